import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GENERAL_LEDGER_COLUMNS } from "../../../test/ingestion/definitions.js";
import { sourceTypeByKey } from "../../modules/catalogue/analysis-source-types.data.js";
import { ERP_GENERAL_LEDGER, FixtureDir, frenchFec, germanLedger, QUICKBOOKS_ONLINE_JOURNAL, SIGNED_AMOUNT_LEDGER, SPANISH_LEDGER } from "../../../test/ingestion/fixtures.js";
import { inspectFile } from "../inspect.js";
import type { TabularFileInfo } from "../types.js";
import { selectionProblems } from "../analysis/transaction-keys.js";
import { applyColumnMappings, validateAppliedMapping } from "./apply.js";
import { summarizeColumns } from "./columns.js";
import { headerScore, recommendMappings } from "./recommend.js";
import { columnTextExpression, MappingError, placeVirtualColumns, validateVirtualColumns } from "./virtual-columns.js";

const dir = new FixtureDir();
const infos: Record<string, TabularFileInfo> = {};
beforeAll(async () => {
  infos.erp = await inspectFile(dir.write("erp.csv", ERP_GENERAL_LEDGER));
  infos.fec = await inspectFile(dir.write("fec.txt", frenchFec()));
  infos.german = await inspectFile(dir.write("de.txt", germanLedger()));
  infos.spanish = await inspectFile(dir.write("es.csv", SPANISH_LEDGER));
  infos.signed = await inspectFile(dir.write("signed.csv", SIGNED_AMOUNT_LEDGER));
  infos.qbo = await inspectFile(dir.write("qbo.csv", QUICKBOOKS_ONLINE_JOURNAL), { degroup: true });
});
afterAll(() => dir.remove());

/** column name -> platform field of the recommendation. */
function recommended(info: TabularFileInfo): Record<string, string> {
  const r = recommendMappings(summarizeColumns(info), GENERAL_LEDGER_COLUMNS, { delimiter: info.delimiter });
  return Object.fromEntries(r.columnMappings.filter((m) => m.platformField).map((m) => [m.field, m.platformField!]));
}

describe("mapping recommendations", () => {
  it("English ERP headers, debit/credit pair", () => {
    expect(recommended(infos.erp)).toEqual({
      "Journal ID": "txid",
      Line: "line_number",
      "Effective Date": "effective_date",
      "Entry Date": "entry_date",
      Account: "account",
      "Account Description": "account_description",
      Debit: "debit",
      Credit: "credit",
      Memo: "memo",
      Source: "source",
      "Entered By": "entered_by",
      "Approved By": "approved_by",
      Currency: "currency",
    });
  });

  it("French FEC headers", () => {
    expect(recommended(infos.fec)).toMatchObject({
      JournalCode: "source",
      EcritureNum: "txid",
      EcritureDate: "effective_date",
      CompteNum: "account",
      CompteLib: "account_description",
      EcritureLib: "memo",
      Debit: "debit",
      Credit: "credit",
      Idevise: "currency",
    });
  });

  it("German headers (Soll/Haben)", () => {
    expect(recommended(infos.german)).toEqual({
      Belegnummer: "txid",
      Buchungsdatum: "effective_date",
      Erfassungsdatum: "entry_date",
      Konto: "account",
      Kontobezeichnung: "account_description",
      Buchungstext: "memo",
      Soll: "debit",
      Haben: "credit",
      Währung: "currency",
      Erfasser: "entered_by",
    });
  });

  it("Spanish headers (Debe/Haber)", () => {
    expect(recommended(infos.spanish)).toEqual({
      Fecha: "effective_date",
      Asiento: "txid",
      Cuenta: "account",
      "Descripción de la cuenta": "account_description",
      Concepto: "memo",
      Debe: "debit",
      Haber: "credit",
      Usuario: "entered_by",
    });
  });

  it("a signed amount instead of a debit/credit pair, and an ambiguous date resolved with a recommendation", () => {
    const r = recommendMappings(summarizeColumns(infos.signed), GENERAL_LEDGER_COLUMNS);
    expect(Object.fromEntries(r.columnMappings.filter((m) => m.platformField).map((m) => [m.field, m.platformField]))).toEqual({
      "Txn Date": "effective_date",
      "JE Number": "txid",
      "GL Account": "account",
      "Account Name": "account_description",
      Amount: "amount",
      Description: "memo",
    });
    expect(r.unmappedRequiredFields).toEqual([]);
    expect(r.ambiguousColumnResolutions).toEqual([{ position: 0, ambiguousFormats: ["MM/dd/yyyy", "dd/MM/yyyy"], selectedFormat: "MM/dd/yyyy" }]);
    expect(recommendMappings(summarizeColumns(infos.signed), GENERAL_LEDGER_COLUMNS, { preferredDateOrder: "DMY" }).ambiguousColumnResolutions[0].selectedFormat).toBe("dd/MM/yyyy");
  });

  it("degrouped QuickBooks rows map too (the degrouper's transaction number is the txid)", () => {
    expect(recommended(infos.qbo)).toMatchObject({ Date: "effective_date", Account: "account", Debit: "debit", Credit: "credit", "Memo/Description": "memo", "Transaction Type": "source" });
  });

  it("bare Description and Type: the account's description and type where the source type gives them no other meaning", async () => {
    const chart = await inspectFile(dir.write("chart.csv", "Account,Description,Type,Class\n1000,Cash,Asset,Current\n2000,Accounts Payable,Liability,Current\n"));
    const mapped = (definitions: typeof GENERAL_LEDGER_COLUMNS) =>
      Object.fromEntries(recommendMappings(summarizeColumns(chart), definitions).columnMappings.map((m) => [m.field, m.platformField]));
    // "Type" and "Class" both name the account type: the first (and only) pairing wins, the other stays unmapped.
    expect(mapped(sourceTypeByKey("CHART_OF_ACCOUNTS").columnDefinitions)).toEqual({ Account: "account", Description: "account_description", Type: "account_type", Class: null });
    expect(mapped(sourceTypeByKey("FUND_CHART_OF_ACCOUNTS").columnDefinitions)).toMatchObject({ Description: "account_description", Type: "account_type" });
    expect(mapped(sourceTypeByKey("OPENING_BALANCE").columnDefinitions)).toMatchObject({ Account: "account", Description: "account_description", Type: null });
    // A journal has memo for "Description" (and "Type" names its source): nothing changes there.
    expect(mapped(GENERAL_LEDGER_COLUMNS)).toMatchObject({ Account: "account", Description: "memo", Type: "source" });
    // A named account description column wins over the bare word.
    const named = await inspectFile(dir.write("chart-named.csv", "Account,Account Name,Description\n1000,Cash,Bank account\n"));
    const r = recommendMappings(summarizeColumns(named), sourceTypeByKey("CHART_OF_ACCOUNTS").columnDefinitions);
    expect(Object.fromEntries(r.columnMappings.map((m) => [m.field, m.platformField]))).toEqual({ Account: "account", "Account Name": "account_description", Description: null });
  });

  it("scores headers: exact synonyms 1, phrases less, vetoed words 0", () => {
    const def = (name: string) => GENERAL_LEDGER_COLUMNS.find((d) => d.platformFieldName === name)!;
    expect(headerScore("Posting Date", def("effective_date"))).toBe(1);
    expect(headerScore("GL Posting Date (local)", def("effective_date"))).toBeGreaterThan(0.6);
    expect(headerScore("Running Balance", def("amount"))).toBe(0);
    expect(headerScore("Entry Date", def("effective_date"))).toBe(0);
    expect(headerScore("Colour", def("account"))).toBe(0);
  });

  it("reports required fields no column satisfies", () => {
    const r = recommendMappings(summarizeColumns(infos.erp).filter((c) => !["Debit", "Credit"].includes(c.name)), GENERAL_LEDGER_COLUMNS);
    expect(r.unmappedRequiredFields).toEqual(["debit", "credit", "amount"]);
  });
});

describe("applying mappings (DATA_VALIDATION_CONFIRMED)", () => {
  it("applies the recommendation when nothing is proposed", () => {
    const { applied } = applyColumnMappings({ fileInfo: infos.signed, columnDefinitions: GENERAL_LEDGER_COLUMNS });
    expect(applied.columnMappings.filter((m) => m.mappingType === "AUTO")).toHaveLength(6);
    expect(applied.ambiguousColumnResolutions).toEqual([{ position: 0, ambiguousFormats: ["MM/dd/yyyy", "dd/MM/yyyy"], selectedFormat: "MM/dd/yyyy" }]);
  });

  it("applies proposed mappings, virtual columns, additional-data columns and format choices", () => {
    const { applied } = applyColumnMappings({
      fileInfo: infos.signed,
      columnDefinitions: GENERAL_LEDGER_COLUMNS,
      proposedVirtualColumns: [{ name: "Account prefix", type: "SPLIT_BY_POSITION", columnIndex: 2, startPosition: 0, endPosition: 2 }],
      proposedColumnMappings: [
        { columnPosition: 0, platformField: "effective_date" },
        { columnPosition: 1, platformField: "txid" },
        { columnPosition: 2, platformField: "account" },
        { columnPosition: 4, platformField: "amount" },
        { columnPosition: 5, additionalColumnName: "Line text" },
        { virtualColumnIndex: 0, platformField: "memo" },
      ],
      proposedAmbiguousColumnResolutions: [{ position: 0, selectedFormat: "dd/MM/yyyy" }],
    });
    expect(applied.virtualColumns).toEqual([{ name: "Account prefix", type: "SPLIT_BY_POSITION", columnIndex: 2, startPosition: 0, endPosition: 2, position: 6 }]);
    expect(applied.columnMappings.find((m) => m.position === 6)).toEqual({ position: 6, field: "Account prefix", platformField: "memo", additionalColumnName: null, mappingType: "MANUAL" });
    expect(applied.columnMappings.find((m) => m.position === 5)).toMatchObject({ platformField: null, additionalColumnName: "Line text", mappingType: "MANUAL" });
    expect(applied.columnMappings.find((m) => m.position === 3)).toMatchObject({ platformField: null, mappingType: "NOT_MAPPED" });
    expect(applied.ambiguousColumnResolutions).toEqual([{ position: 0, ambiguousFormats: ["MM/dd/yyyy", "dd/MM/yyyy"], selectedFormat: "dd/MM/yyyy" }]);
  });

  it("refuses bad proposals with every problem named", () => {
    let error: unknown;
    try {
      applyColumnMappings({
        fileInfo: infos.signed,
        columnDefinitions: GENERAL_LEDGER_COLUMNS,
        proposedColumnMappings: [
          { columnPosition: 0, platformField: "effective_date" },
          { columnPosition: 1, platformField: "effective_date" },
          { columnPosition: 42, platformField: "account" },
          { columnPosition: 3, platformField: "colour" },
          { virtualColumnIndex: 3, platformField: "memo" },
        ],
        proposedAmbiguousColumnResolutions: [{ position: 0, selectedFormat: "yyyy-MM-dd" }],
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MappingError);
    expect((error as MappingError).problems).toEqual([
      "proposedColumnMappings[1]: effective_date is mapped more than once",
      "proposedColumnMappings[2]: column 42 does not exist",
      "proposedColumnMappings[3]: colour is not a platform field of this source type",
      "proposedColumnMappings[4]: virtualColumnIndex 3 is not a proposed virtual column",
    ]);
    expect(() => applyColumnMappings({ fileInfo: infos.signed, columnDefinitions: GENERAL_LEDGER_COLUMNS, proposedColumnMappings: [{ columnPosition: 0, platformField: "effective_date" }] })).toThrow(
      /required platform field account is not mapped/,
    );
    expect(() =>
      applyColumnMappings({ fileInfo: infos.signed, columnDefinitions: GENERAL_LEDGER_COLUMNS, proposedAmbiguousColumnResolutions: [{ position: 0, selectedFormat: "yyyy-MM-dd" }] }),
    ).toThrow(/selectedFormat yyyy-MM-dd is not one of MM\/dd\/yyyy, dd\/MM\/yyyy/);
  });
});

describe("virtual columns", () => {
  it("validates definitions and refuses loops", () => {
    const columns = placeVirtualColumns(
      [
        { name: "", type: "DUPLICATE", columnIndex: 9 },
        { name: "Parts", type: "SPLIT_BY_DELIMITER", columnIndex: 0 },
        { name: "Join", type: "JOIN", columnIndices: [0] },
        { name: "Loop", type: "DUPLICATE", columnIndex: 6 },
        { name: "Cut", type: "SPLIT_BY_POSITION", columnIndex: 0, startPosition: 3, endPosition: 2 },
      ],
      3,
    );
    expect(validateVirtualColumns(columns, 3)).toEqual([
      "virtual column 0 (unnamed) needs a name",
      "virtual column 0 (unnamed): columnIndex must name an existing column",
      "virtual column 1 (Parts): delimiter is required",
      "virtual column 1 (Parts): splitIndex must be 0 or more",
      "virtual column 2 (Join): columnIndices must name at least two existing columns",
      "virtual column 4 (Cut): endPosition must be after startPosition",
    ]);
    expect(validateVirtualColumns(placeVirtualColumns([{ name: "A", type: "DUPLICATE", columnIndex: 4 }, { name: "B", type: "DUPLICATE", columnIndex: 3 }], 3), 3)).toEqual([
      "virtual column A refers to itself",
      "virtual column B refers to itself",
    ]);
  });

  it("compiles to set-based SQL expressions over the staging columns, nesting allowed", () => {
    const columns = placeVirtualColumns(
      [
        { name: "Copy", type: "DUPLICATE", columnIndex: 1 },
        { name: "Second part", type: "SPLIT_BY_DELIMITER", columnIndex: 0, delimiter: "-", splitIndex: 1 },
        { name: "Key", type: "JOIN", columnIndices: [3, 2], delimiter: "/" },
      ],
      2,
    );
    expect(columnTextExpression(2, 2, columns)).toBe("c1");
    expect(columnTextExpression(3, 2, columns)).toBe("NULLIF(btrim(split_part(c0, '-', 2)), '')");
    expect(columnTextExpression(4, 2, columns)).toBe("NULLIF(concat_ws('/', NULLIF(btrim(split_part(c0, '-', 2)), ''), c1), '')");
  });
});

describe("checks of stored choices on update", () => {
  it("re-validates applied mappings and transaction id selections against the file", () => {
    const { applied } = applyColumnMappings({ fileInfo: infos.erp, columnDefinitions: GENERAL_LEDGER_COLUMNS });
    expect(validateAppliedMapping(applied, infos.erp, GENERAL_LEDGER_COLUMNS)).toEqual([]);
    const broken = {
      ...applied,
      columnMappings: [
        ...applied.columnMappings.filter((m) => m.platformField !== "account"),
        { position: 40, field: "?", platformField: "memo", mappingType: "MANUAL" as const },
      ],
    };
    expect(validateAppliedMapping(broken, infos.erp, GENERAL_LEDGER_COLUMNS)).toEqual([
      "column 40 does not exist",
      "memo is mapped more than once",
      "required platform field account is not mapped to a column",
    ]);
    expect(selectionProblems({ type: "COMBINATION", columnSelection: [0, 99], virtualColumnSelection: [2] }, 13, applied)).toEqual([
      "columnSelection: column 99 does not exist",
      "virtualColumnSelection: virtual column 2 does not exist",
    ]);
    expect(selectionProblems({ type: "COMBINATION", columnSelection: [] }, 13, applied)).toEqual(["a COMBINATION transaction id selects at least one column"]);
    expect(selectionProblems({ type: "RUNNING_TOTAL", columnSelection: [] }, 13, applied)).toEqual([]);
  });
});

