import type { EntryColumn } from "../../ingestion/index.js";
import type { ColumnDef, ColumnType } from "../../query-language/index.js";
import { ANALYSIS_SOURCE_TYPE_IDS } from "../catalogue/ids.js";

/** One column of a data table definition as stored (`data_table.columns`) and shown on the wire. */
export interface DataTableColumn {
  field: string;
  type: ColumnType;
  /** Physical column of the rows table; internal, never on the wire. */
  sql: string;
  originalName: string | null;
  platformField: string | null;
  nullable: boolean;
  equalitySearch: boolean;
  rangeSearch: boolean;
  containsSearch: boolean;
  allowCaseInsensitiveSubstringSearch: boolean;
  caseInsensitivePrefixSearch: boolean;
  keywordSearch: boolean;
  filterOnly: boolean;
  sortable: boolean;
  typeaheadDataTableId: string | null;
  /** Whether a btree index serves this column's searches (created by the data-tables.index job). */
  indexed: boolean;
}

export type ApiStability = "STABLE" | "UNSTABLE";

/**
 * The spec 2.10 logical names of the source types whose entries tables are published with a stable
 * schema. Entries of every other source type (balances, lists, adjustments) are published too,
 * named after the source type, but as UNSTABLE: their columns may still change.
 */
const STABLE_LOGICAL_NAMES: Record<string, string> = {
  [ANALYSIS_SOURCE_TYPE_IDS.GENERAL_LEDGER_JOURNAL]: "gl_journal_lines",
  [ANALYSIS_SOURCE_TYPE_IDS.GENERAL_LEDGER_JOURNAL_FUND]: "gl_journal_lines",
  [ANALYSIS_SOURCE_TYPE_IDS.NOT_FOR_PROFIT_GENERAL_LEDGER_JOURNAL]: "gl_journal_lines",
  [ANALYSIS_SOURCE_TYPE_IDS.ACCOUNTS_PAYABLE_DETAIL]: "ap_detail_entries",
  [ANALYSIS_SOURCE_TYPE_IDS.ACCOUNTS_RECEIVABLE_DETAIL]: "ar_detail_entries",
};

const SOURCE_TYPE_KEYS = new Map<string, string>(Object.entries(ANALYSIS_SOURCE_TYPE_IDS).map(([key, id]) => [id, key]));

export function logicalNameFor(analysisSourceTypeId: string): { logicalName: string; apiStability: ApiStability } {
  const stable = STABLE_LOGICAL_NAMES[analysisSourceTypeId];
  if (stable) return { logicalName: stable, apiStability: "STABLE" };
  const key = SOURCE_TYPE_KEYS.get(analysisSourceTypeId);
  return { logicalName: `${(key ?? `source_type_${analysisSourceTypeId}`).toLowerCase()}_entries`, apiStability: "UNSTABLE" };
}

/**
 * Free text: searched by substring and keyword, not by equality or prefix, and not indexed (a
 * btree cannot serve substring search, and indexing every description would dominate parse time).
 */
const FREE_TEXT = /(memo|description|address|comment|note|name)$/;

const NO_FLAGS = {
  equalitySearch: false,
  rangeSearch: false,
  containsSearch: false,
  allowCaseInsensitiveSubstringSearch: false,
  caseInsensitivePrefixSearch: false,
  keywordSearch: false,
  filterOnly: false,
  sortable: false,
  indexed: false,
};

/**
 * The data table columns of an entries table (`ParseResult.columns`): field names are the platform
 * fields (`row_no` is published as `rowid`, additional columns keep their `x_` names), and the
 * search flags decide what the query language allows and which columns get an index:
 * - keys and codes (STRING): equality, case-insensitive prefix and substring, sortable, indexed
 *   on lower(col) (equality and prefix use it; range on strings is not offered: the index's
 *   text_pattern_ops order is not the collation order);
 * - free text and additional columns: substring and keyword search only, not indexed;
 * - dates, amounts and numbers: equality and range, sortable, indexed;
 * - parse_errors (bit mask of unreadable fields): equality only (`{"parse_errors": {"$ne": null}}`).
 */
export function entriesTableColumns(columns: EntryColumn[]): DataTableColumn[] {
  return columns.map((c) => {
    const base = { sql: c.name, originalName: c.originalName, platformField: c.platformField, nullable: c.name !== "row_no", typeaheadDataTableId: null };
    if (c.name === "row_no") {
      return { ...base, ...NO_FLAGS, field: "rowid", type: "INT64" as const, equalitySearch: true, rangeSearch: true, sortable: true, indexed: true };
    }
    if (c.name === "parse_errors") return { ...base, ...NO_FLAGS, field: c.name, type: "INT32" as const, equalitySearch: true };
    if (c.type === "STRING") {
      const freeText = c.platformField === null || FREE_TEXT.test(c.name);
      if (freeText) return { ...base, ...NO_FLAGS, field: c.name, type: "STRING" as const, allowCaseInsensitiveSubstringSearch: true, keywordSearch: true, sortable: true };
      return {
        ...base,
        ...NO_FLAGS,
        field: c.name,
        type: "STRING" as const,
        equalitySearch: true,
        caseInsensitivePrefixSearch: true,
        allowCaseInsensitiveSubstringSearch: true,
        sortable: true,
        indexed: true,
      };
    }
    return { ...base, ...NO_FLAGS, field: c.name, type: c.type, equalitySearch: true, rangeSearch: true, sortable: true, indexed: true };
  });
}

/** The query language's view of a definition: every column with its flags and physical name. */
export function queryColumnsOf(columns: DataTableColumn[]): ColumnDef[] {
  return columns.map((c) => ({
    field: c.field,
    type: c.type,
    sql: c.sql,
    equalitySearch: c.equalitySearch,
    rangeSearch: c.rangeSearch,
    containsSearch: c.containsSearch,
    allowCaseInsensitiveSubstringSearch: c.allowCaseInsensitiveSubstringSearch,
    caseInsensitivePrefixSearch: c.caseInsensitivePrefixSearch,
    keywordSearch: c.keywordSearch,
    sortable: c.sortable,
  }));
}
