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

  it("refuses files that are neither delimited text nor a workbook", async () => {
    const broken = dir.write("book.xlsx", Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(100, 1)]));
    await expect(detectFormat(broken)).rejects.toThrow(NotTabularFileError);
    await expect(inspectFile(broken)).rejects.toThrow(/cannot be read as an .xlsx workbook/);
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
    expect(info.rowContentSnippets[1].slice(0, 3)).toEqual(["JE1001", "1", "01/15/2023"]);
    expect(info.rowContentSnippets[1][8]).toBe("Invoice 4471, freight");
    expect(info.columnData.map((c) => c.columnName)).toEqual([
      "Journal ID", "Line", "Effective Date", "Entry Date", "Account", "Account Description", "Debit", "Credit", "Memo", "Source", "Entered By", "Approved By", "Currency",
    ]);
    const effective = column(info, "Effective Date");
    expect(meta(effective, "dataTypeMetrics", "dominantType")).toBe("DATE");
    expect(meta(effective, "format", "detectedFormat")).toBe("MM/dd/yyyy");
    expect(effective.columnMetadata.unparseableValues).toMatchObject({ state: "FAIL", count: 1, dataPreviews: [{ row: 8, column: 2, data: "13/45/2023" }] });
    const debit = column(info, "Debit");
    expect(meta(debit, "dataTypeMetrics", "dominantType")).toBe("NUMBER");
    expect(meta(debit, "format", "detectedFormat")).toBe("#,##0.00");
    expect(meta(debit, "numberSummary", "sums")).toMatchObject({ "#,##0.00": 125000 + 4599 + 4599 + 10000 + 51000 });
    expect(debit.columnMetadata.densityMetrics).toMatchObject({ state: "PASS", count: 10, blanks: 5, density: 0.5 });
    expect(column(info, "Memo").rowSample[0]).toBe("Invoice 4471, freight");
    expect(column(info, "Memo").rowSample[2]).toBe('Paper "A4" and toner');
    expect(meta(column(info, "Memo"), "samples", "values")).toContain("Reclass per review,\nsee memo");
    expect(column(info, "Account").columnMetadata.densityMetrics).toMatchObject({ blanks: 1, dataPreviews: [{ row: 8, column: 4, data: "" }] });
    expect(column(info, "Currency").columnMetadata.distinctValueMetrics).toMatchObject({ state: "PASS", count: 1, approximate: false });
    expect(column(info, "Journal ID").columnMetadata.distinctValueMetrics.count).toBe(4);
    expect(info.tableMetadata.duplicateRows).toMatchObject({ state: "WARN", count: 1, dataPreviews: [{ row: 5 }] });
    expect(info.tableMetadata.duplicateRows.dataPreviews[0].values?.[0]).toBe("JE1002");
    expect(info.tableMetadata.overallDataTypeMetrics).toMatchObject({ state: "PASS", blankRecords: 1, totalRecords: 10, totalRows: 12, columnCount: 13, dataPreviews: [{ row: 7 }] });
  });

  it("reports the wire reference's metrics under their names and shapes, each with state and {row, column, data} previews", async () => {
    const long = "x".repeat(300);
    const file = dir.write(
      "metrics.csv",
      [
        "Date,Account,Amount,Memo,Ref",
        `01/15/2023,1000,12.50,${long},A1`,
        "01/16/2023,N/A,1.5E+07,plain,A2",
        '2023-01-17,2000,"-3.25","tab\there",A3',
        "01/18/2023,3000,abc,x,A4,extra",
        "01/19/2023,3000",
      ].join("\n") + "\n",
    );
    const info = await inspectFile(file);
    const t = info.tableMetadata;
    for (const name of ["cellLengthMetrics", "densityMetrics", "inconsistentDateMetrics", "nullValueMetrics", "numericColumnMetrics", "overallDataTypeMetrics", "scientificNotationMetrics", "sheetMetrics", "specialCharacterMetrics", "unevenColumnsMetrics"]) {
      expect(t[name], name).toMatchObject({ state: expect.stringMatching(/^(PASS|WARN|FAIL)$/), dataPreviews: expect.any(Array) });
    }
    expect(t.cellLengthMetrics).toMatchObject({ state: "WARN", count: 1, dataPreviews: [{ row: 1, column: 3 }] });
    expect(t.densityMetrics).toMatchObject({ count: 25, blanks: 3, density: 22 / 25 });
    expect(t.inconsistentDateMetrics).toMatchObject({ state: "WARN", count: 1, dataPreviews: [{ row: 3, column: 0, data: "2023-01-17" }] });
    expect(t.nullValueMetrics).toMatchObject({ state: "WARN", count: 1, dataPreviews: [{ row: 2, column: 1, data: "N/A" }] });
    expect(t.numericColumnMetrics).toMatchObject({ state: "WARN", dataPreviews: [{ row: 2, column: 1, data: "N/A" }, { row: 4, column: 2, data: "abc" }] });
    expect(t.overallDataTypeMetrics).toMatchObject({
      state: "PASS",
      blankRecords: 0,
      cellTypeCounts: { TEXT: 10, NUMBER: 7, DATE: 5 },
      columnCount: 5,
      columnTypeCounts: { DATE: 1, NUMBER: 2, TEXT: 2 },
      totalRecords: 5,
      totalRows: 6,
    });
    expect(t.scientificNotationMetrics).toMatchObject({ state: "WARN", count: 1, dataPreviews: [{ row: 2, column: 2, data: "1.5E+07" }] });
    expect(t.sheetMetrics).toMatchObject({ state: "PASS", count: 0, sheetNames: [], validSheets: [] });
    expect(t.specialCharacterMetrics).toMatchObject({ state: "WARN", count: 1, dataPreviews: [{ row: 3, column: 3, data: "tab\there" }] });
    expect(t.unevenColumnsMetrics).toMatchObject({ state: "WARN", count: 2, histogram: { "2": 1, "5": 3, "6": 1 } });

    const [date, account, amount, memo] = info.columnData;
    const names = ["cellLengthMetrics", "dataTypeMetrics", "densityMetrics", "distinctValueMetrics", "nullValueMetrics", "scientificNotationMetrics", "specialCharacterMetrics"];
    for (const c of info.columnData) for (const name of names) expect(c.columnMetadata[name], `${c.columnName} ${name}`).toMatchObject({ state: expect.any(String), dataPreviews: expect.any(Array) });
    expect(date.columnMetadata.dataTypeMetrics).toMatchObject({
      detectedTypes: ["DATE"],
      dominantType: "DATE",
      nonNullValueCount: 5,
      typeCounts: { TEXT: 0, NUMBER: 0, DATE: 5 },
      dateTypeDetails: { ambiguousDateTimeFormats: [], unambiguousDateTimeFormats: ["MM/dd/yyyy"], range: { min: "2023-01-15", max: "2023-01-19" } },
    });
    expect(amount.columnMetadata.dataTypeMetrics).toMatchObject({
      dominantType: "NUMBER",
      detectedTypes: ["TEXT", "NUMBER"],
      numericTypeDetails: { cappedMax: false, cappedSum: false, currencyFormat: { decimalCharacter: "." }, range: { min: -3.25, max: 15000000 }, sum: 15000009.25 },
    });
    expect(memo.columnMetadata.dataTypeMetrics).toMatchObject({ dominantType: "TEXT", textTypeDetails: { range: { min: 1, max: 300 } } });
    expect(account.columnMetadata.nullValueMetrics).toMatchObject({ state: "WARN", count: 1 });
    expect(memo.columnMetadata.densityMetrics).toMatchObject({ state: "PASS", count: 5, blanks: 1, density: 0.8, dataPreviews: [{ row: 5, column: 3, data: "" }] });
    expect(account.columnMetadata.distinctValueMetrics).toMatchObject({ count: 4 });
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
    expect(column(flat, "Date").columnMetadata.densityMetrics.blanks).toBe(0);
  });
});
