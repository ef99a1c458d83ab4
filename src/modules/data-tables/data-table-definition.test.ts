import { describe, expect, it } from "vitest";
import { ANALYSIS_SOURCE_TYPE_IDS } from "../catalogue/ids.js";
import { csvWriter, DEFAULT_CSV } from "../../tabular/csv-writer.js";
import { csvFormatOf } from "./data-table-csv.js";
import { entriesTableColumns, logicalNameFor } from "./data-table-definition.js";
import { indexStatements } from "./data-table.indexes.js";

const ENTRY_COLUMNS = [
  { name: "row_no", type: "INT64" as const, platformField: null, originalName: null },
  { name: "txid", type: "STRING" as const, platformField: "txid", originalName: null },
  { name: "effective_date", type: "DATE" as const, platformField: "effective_date", originalName: "Date" },
  { name: "account_description", type: "STRING" as const, platformField: "account_description", originalName: "Description" },
  { name: "line_number", type: "FLOAT64" as const, platformField: "line_number", originalName: "Line" },
  { name: "amount", type: "MONEY_100" as const, platformField: "amount", originalName: "Amount" },
  { name: "x_batch", type: "STRING" as const, platformField: null, originalName: "Batch" },
  { name: "parse_errors", type: "INT32" as const, platformField: null, originalName: null },
];

describe("entries table definitions", () => {
  it("names tables by source type: spec 2.10 names are STABLE, the rest UNSTABLE", () => {
    expect(logicalNameFor(ANALYSIS_SOURCE_TYPE_IDS.GENERAL_LEDGER_JOURNAL)).toEqual({ logicalName: "gl_journal_lines", apiStability: "STABLE" });
    expect(logicalNameFor(ANALYSIS_SOURCE_TYPE_IDS.NOT_FOR_PROFIT_GENERAL_LEDGER_JOURNAL).logicalName).toBe("gl_journal_lines");
    expect(logicalNameFor(ANALYSIS_SOURCE_TYPE_IDS.ACCOUNTS_PAYABLE_DETAIL)).toEqual({ logicalName: "ap_detail_entries", apiStability: "STABLE" });
    expect(logicalNameFor(ANALYSIS_SOURCE_TYPE_IDS.ACCOUNTS_RECEIVABLE_DETAIL).logicalName).toBe("ar_detail_entries");
    expect(logicalNameFor(ANALYSIS_SOURCE_TYPE_IDS.CHART_OF_ACCOUNTS)).toEqual({ logicalName: "chart_of_accounts_entries", apiStability: "UNSTABLE" });
  });

  it("derives fields, flags and indexes from the entries columns", () => {
    const columns = entriesTableColumns(ENTRY_COLUMNS);
    expect(columns.map((c) => [c.field, c.type, c.indexed])).toEqual([
      ["rowid", "INT64", true],
      ["txid", "STRING", true],
      ["effective_date", "DATE", true],
      ["account_description", "STRING", false],
      ["line_number", "FLOAT64", true],
      ["amount", "MONEY_100", true],
      ["x_batch", "STRING", false],
      ["parse_errors", "INT32", false],
    ]);
    expect(columns[3]).toMatchObject({ equalitySearch: false, allowCaseInsensitiveSubstringSearch: true, keywordSearch: true });
    expect(columns[1]).toMatchObject({ equalitySearch: true, caseInsensitivePrefixSearch: true, rangeSearch: false });
    expect(indexStatements("ingest.entries_abc", columns)).toEqual([
      'CREATE INDEX IF NOT EXISTS "entries_abc_0" ON "ingest"."entries_abc" ("row_no")',
      'CREATE INDEX IF NOT EXISTS "entries_abc_1" ON "ingest"."entries_abc" (lower("txid") text_pattern_ops)',
      'CREATE INDEX IF NOT EXISTS "entries_abc_2" ON "ingest"."entries_abc" ("effective_date", "row_no")',
      'CREATE STATISTICS IF NOT EXISTS "ingest"."entries_abc_s3" ON (lower("account_description")) FROM "ingest"."entries_abc"',
      'CREATE INDEX IF NOT EXISTS "entries_abc_4" ON "ingest"."entries_abc" ("line_number", "row_no")',
      'CREATE INDEX IF NOT EXISTS "entries_abc_5" ON "ingest"."entries_abc" ("amount", "row_no")',
      'CREATE STATISTICS IF NOT EXISTS "ingest"."entries_abc_s6" ON (lower("x_batch")) FROM "ingest"."entries_abc"',
    ]);
  });
});

describe("CSV formats", () => {
  it("writes RFC 4180 by default and honours quote, quoteEscape and quoteEscapeEscape", () => {
    expect(csvWriter(DEFAULT_CSV)(["a", 'b "c", d', null, 12, "line\nbreak"])).toBe('a,"b ""c"", d",,12,"line\nbreak"\r\n');
    const backslash = csvWriter(csvFormatOf({ quoteEscape: "\\" }, "csv"));
    expect(backslash(['say "hi"', "C:\\dir", "plain"])).toBe('"say \\"hi\\"","C:\\\\dir",plain\r\n');
    const semicolon = csvWriter(csvFormatOf({ delimiter: ";", quote: "'" }, "csv"));
    expect(semicolon(["a;b", "it's", 'x"y'])).toBe("'a;b';'it''s';x\"y\r\n");
  });

  it("refuses settings that are not one character or that clash", () => {
    expect(() => csvFormatOf({ delimiter: "ab" }, "csvConfiguration")).toThrow(/exactly one character/);
    expect(() => csvFormatOf({ quote: "\n" }, "csvConfiguration")).toThrow(/exactly one character/);
    expect(() => csvFormatOf({ delimiter: "'", quote: "'" }, "csvConfiguration")).toThrow(/differ/);
  });
});
