import { afterAll, describe, expect, it } from "vitest";
import { GENERAL_LEDGER_COLUMNS } from "../../test/ingestion/definitions.js";
import {
  ERP_GENERAL_LEDGER,
  FixtureDir,
  frenchFec,
  germanLedger,
  HEADERLESS,
  QUICKBOOKS_DESKTOP_JOURNAL,
  QUICKBOOKS_ONLINE_JOURNAL,
  QUICKBOOKS_TRANSACTION_DETAIL,
  SAGE50_GENERAL_LEDGER,
  SIGNED_AMOUNT_LEDGER,
  SPANISH_LEDGER,
  UTF8_BOM,
} from "../../test/ingestion/fixtures.js";
import { detectFormat, NotTabularFileError } from "./detect.js";
import { inspectFile } from "./inspect.js";
import type { ColumnData, TabularFileInfo } from "./types.js";

const dir = new FixtureDir();
afterAll(() => dir.remove());

const files = {
  erp: dir.write("erp-gl.csv", Buffer.concat([UTF8_BOM, Buffer.from(ERP_GENERAL_LEDGER)])),
  fec: dir.write("FEC.txt", frenchFec()),
  german: dir.write("buchungen.txt", germanLedger()),
  spanish: dir.write("diario.csv", SPANISH_LEDGER),
  signed: dir.write("signed.csv", SIGNED_AMOUNT_LEDGER),
  qbo: dir.write("journal.csv", QUICKBOOKS_ONLINE_JOURNAL),
  qbd: dir.write("journal-desktop.csv", QUICKBOOKS_DESKTOP_JOURNAL),
  tdba: dir.write("transaction-detail.csv", QUICKBOOKS_TRANSACTION_DETAIL),
  sage: dir.write("general-ledger.csv", SAGE50_GENERAL_LEDGER),
  headerless: dir.write("headerless.csv", HEADERLESS),
};

function column(info: TabularFileInfo, name: string): ColumnData {
  const found = info.columnData.find((c) => c.columnName === name);
  if (!found) throw new Error(`no column ${name} in ${info.columnData.map((c) => c.columnName).join(", ")}`);
  return found;
}

const meta = (c: ColumnData, metric: string, key: string) => c.columnMetadata[metric]?.[key];

describe("format detection", () => {
  it.each([
    ["erp", "UTF-8", true, ",", 0, null],
    ["fec", "windows-1252", false, ";", 0, null],
    ["german", "UTF-16LE", true, "\t", 0, null],
    ["spanish", "UTF-8", false, ";", 0, null],
    ["qbo", "UTF-8", false, ",", 4, "QUICKBOOKS_JOURNAL"],
    ["qbd", "UTF-8", false, ",", 0, "QUICKBOOKS_JOURNAL"],
    ["tdba", "UTF-8", false, ",", 4, "QUICKBOOKS_TRANSACTION_DETAIL_BY_ACCOUNT"],
    ["sage", "UTF-8", false, ",", 5, "SAGE50_LEDGER"],
    ["headerless", "UTF-8", false, ",", null, null],
  ] as const)("%s: %s (BOM %s), delimiter %j, header row %s, grouped format %s", async (key, encoding, bom, delimiter, header, format) => {
    const detection = await detectFormat(files[key]);
    expect(detection.encoding).toEqual({ encoding, bom });
    expect(detection.delimiter).toBe(delimiter);
    expect(detection.headerRowIndex).toBe(header);
    expect(detection.groupedFormat).toBe(format);
  });

  it("refuses files that are not delimited text", async () => {
    const xlsx = dir.write("book.xlsx", Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(100, 1)]));
    await expect(detectFormat(xlsx)).rejects.toThrow(NotTabularFileError);
    await expect(inspectFile(xlsx)).rejects.toThrow(/ZIP archive/);
    const binary = dir.write("blob.bin", Buffer.from(Array.from({ length: 4000 }, (_, i) => (i % 7 === 0 ? 0 : 65 + (i % 26)))));
    await expect(inspectFile(binary)).rejects.toThrow(/binary data/);
  });

  it("takes presetHeaderRowIndex over detection", async () => {
    const detection = await detectFormat(files.qbo, { presetHeaderRowIndex: 1 });
    expect(detection.headerRowIndex).toBe(1);
    expect(detection.header).toEqual(["Craig's Design and Landscaping Services"]);
  });
});

describe("file info (TABULAR_FILE_INFO)", () => {
  it("describes a general ledger export: columns, types, formats, blanks, distinct values, samples", async () => {
    const info = await inspectFile(files.erp);
    expect(info).toMatchObject({
      type: "TABULAR_FILE_INFO",
      name: "erp-gl.csv",
      format: null,
      formatDetected: false,
      encoding: "UTF-8",
      bom: true,
      delimiter: ",",
      headerRowIndex: 0,
      rowCount: 10,
      lastNonBlankRowIndex: 11,
    });
    expect(info.firstLine).toMatch(/^Journal ID,Line,Effective Date/);
    expect(info.rowContentSnippets[1]).toContain("JE1001,1,01/15/2023");
    expect(info.columnData.map((c) => c.columnName)).toEqual([
      "Journal ID", "Line", "Effective Date", "Entry Date", "Account", "Account Description", "Debit", "Credit", "Memo", "Source", "Entered By", "Approved By", "Currency",
    ]);
    const effective = column(info, "Effective Date");
    expect(meta(effective, "dataType", "dominantType")).toBe("DATE");
    expect(meta(effective, "format", "detectedFormat")).toBe("MM/dd/yyyy");
    expect(effective.columnMetadata.unparseableValues).toMatchObject({ state: "FAIL", count: 1, dataPreviews: [{ rowIndex: 8, value: "13/45/2023" }] });
    const debit = column(info, "Debit");
    expect(meta(debit, "dataType", "dominantType")).toBe("NUMBER");
    expect(meta(debit, "format", "detectedFormat")).toBe("#,##0.00");
    expect(meta(debit, "numberSummary", "sums")).toMatchObject({ "#,##0.00": 125000 + 4599 + 4599 + 10000 + 51000 });
    expect(debit.columnMetadata.blanks.count).toBe(5);
    expect(column(info, "Memo").rowSample[0]).toBe("Invoice 4471, freight");
    expect(column(info, "Memo").rowSample[2]).toBe('Paper "A4" and toner');
    expect(meta(column(info, "Memo"), "samples", "values")).toContain("Reclass per review,\nsee memo");
    expect(column(info, "Account").columnMetadata.blanks).toMatchObject({ count: 1, dataPreviews: [{ rowIndex: 8 }] });
    expect(column(info, "Currency").columnMetadata.distinctValues).toMatchObject({ count: 1, approximate: false });
    expect(column(info, "Journal ID").columnMetadata.distinctValues.count).toBe(4);
    expect(info.tableMetadata.duplicateRows).toMatchObject({ state: "WARN", count: 1, dataPreviews: [{ rowIndex: 5 }] });
    expect(info.tableMetadata.duplicateRows.dataPreviews[0].row?.[0]).toBe("JE1002");
    expect(info.tableMetadata.blankRows).toMatchObject({ count: 1, dataPreviews: [{ rowIndex: 7 }] });
    expect(info.tableMetadata.rowCount).toMatchObject({ state: "PASS", count: 10 });
  });

  it("adds the metrics of the recommended mapping when given the source type's fields", async () => {
    const info = await inspectFile(files.erp, { columnDefinitions: GENERAL_LEDGER_COLUMNS });
    expect(info.tableMetadata.blankRequiredValues).toMatchObject({ state: "FAIL", count: 1, fields: { account: 1 } });
    expect(info.tableMetadata.unparseableDates).toMatchObject({ state: "FAIL", count: 1, fields: { effective_date: 1, entry_date: 0 } });
    expect(info.tableMetadata.unparseableAmounts).toMatchObject({ state: "PASS", count: 0 });
    // 1,250 + 45.99 x2 + 100 + 510 against 1,250 + 45.99 x2 + 100 + 500 (JE1004 is off by 10.00).
    expect(info.tableMetadata.debitsNotEqualCredits).toMatchObject({ state: "FAIL", count: 1000, debitTotal: 195198, creditTotal: 194198 });
  });

  it("reads Windows-1252, UTF-16 and decimal-comma files from several countries", async () => {
    const fec = await inspectFile(files.fec, { columnDefinitions: GENERAL_LEDGER_COLUMNS });
    expect(column(fec, "CompteLib").rowSample).toContain("TVA collectée");
    expect(column(fec, "CompAuxLib").rowSample[0]).toBe("Société Générale");
    expect(meta(column(fec, "EcritureDate"), "format", "detectedFormat")).toBe("yyyyMMdd");
    expect(meta(column(fec, "Debit"), "format", "detectedFormat")).toBe("#.##0,00");
    expect(fec.tableMetadata.debitsNotEqualCredits).toMatchObject({ state: "PASS", debitTotal: 246912, creditTotal: 246912 });
    const german = await inspectFile(files.german);
    expect(german.encoding).toBe("UTF-16LE");
    expect(column(german, "Kontobezeichnung").rowSample).toContain("Erlöse 19 % USt");
    expect(meta(column(german, "Buchungsdatum"), "format", "detectedFormat")).toBe("dd.MM.yyyy");
    expect(meta(column(german, "Soll"), "format", "detectedFormat")).toBe("#.##0,00");
    const spanish = await inspectFile(files.spanish);
    expect(meta(column(spanish, "Fecha"), "format", "detectedFormat")).toBe("dd/MM/yyyy");
    expect(meta(column(spanish, "Debe"), "numberSummary", "sums")).toMatchObject({ "#.##0,00": 231250 });
  });

  it("reports ambiguous date formats with every candidate", async () => {
    const info = await inspectFile(files.signed);
    const date = column(info, "Txn Date");
    expect(date.columnMetadata.format).toMatchObject({ state: "WARN", detectedFormat: null, ambiguousFormats: ["MM/dd/yyyy", "dd/MM/yyyy"] });
    const amount = column(info, "Amount");
    expect(amount.columnMetadata.format).toMatchObject({ detectedFormat: "#,##0.00", numberStyle: { parentheses: true, trailingMinus: true, currency: true } });
    expect(meta(amount, "numberSummary", "sums")).toMatchObject({ "#,##0.00": 150000 - 150000 + 75000 - 75000 + 9995 - 9995 });
  });

  it("names the columns of a file without header row", async () => {
    const info = await inspectFile(files.headerless);
    expect(info.headerRowIndex).toBeNull();
    expect(info.columnData.map((c) => [c.columnName, c.synthetic])).toEqual([
      ["Column 1", true], ["Column 2", true], ["Column 3", true], ["Column 4", true], ["Column 5", true],
    ]);
    expect(info.rowCount).toBe(4);
  });

  it("describes a grouped report as it is, or its degrouped rows", async () => {
    const raw = await inspectFile(files.qbo);
    expect(raw).toMatchObject({ format: "QUICKBOOKS_JOURNAL", formatDetected: true, degrouped: false, headerRowIndex: 4 });
    expect(raw.columnData[0]).toMatchObject({ columnName: "Column 1", synthetic: true });
    expect(raw.lastNonBlankRowIndex).toBe(21);
    const flat = await inspectFile(files.qbo, { degroup: true });
    expect(flat).toMatchObject({ format: "QUICKBOOKS_JOURNAL", degrouped: true, rowCount: 7 });
    expect(flat.columnData.map((c) => c.columnName)).toEqual(["Date", "Transaction Type", "Num", "Name", "Memo/Description", "Account", "Debit", "Credit", "Transaction Number"]);
    expect(column(flat, "Date").columnMetadata.blanks.count).toBe(0);
  });
});
