import type { EntryColumn, TransactionColumn } from "../../ingestion/index.js";
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
  /** Whether an index on (column, row_no) serves ordering by it: the table's default sort column. */
  orderIndexed?: boolean;
  /** BOOLEAN columns set on few rows: a partial index on (row_no) WHERE the column (analysis results' cp_failed_*). */
  partialIndex?: boolean;
  /**
   * STRING enumerations (analysis results' risk_level, flow_type): the values (lower-case) on many
   * rows, found walking the row_no order. The column has no full index: one partial index on
   * (lower(col), row_no) WHERE lower(col) is none of these serves every other value, rare or absent.
   */
  commonValues?: string[];
  /** BOOLEAN_FLAGS: flag name -> physical BOOLEAN column; the column has no storage of its own (filter-only). */
  flagColumns?: Record<string, string>;
  /** ARRAY_STRINGS whose values are stored lower-case. */
  storedLowerCase?: boolean;
}

export const API_STABILITIES = ["STABLE", "UNSTABLE"] as const;
export type ApiStability = (typeof API_STABILITIES)[number];

/**
 * What a data table holds, stored in its `type` (spec 2.10 identifies tables by `logicalName` or
 * `type`): the kind of rows, whatever the source type, so "every transactions table of this
 * analysis" is one filter. Analysis sources publish entries and transactions; analysis results
 * also the spec's `flows_compact` (Monetary Flows) and `typeahead` tables (a column's values).
 */
export type DataTableKind = "entries" | "transactions" | "flows_compact" | "typeahead";

/**
 * The spec 2.10 logical names of the source types whose tables are published with a stable schema:
 * entries, and for general ledger journals also their transactions. Tables of every other source
 * type (balances, lists, adjustments) are published too, named after the source type, but as
 * UNSTABLE: their columns may still change.
 */
const STABLE_LOGICAL_NAMES: Record<string, Partial<Record<DataTableKind, string>>> = {
  [ANALYSIS_SOURCE_TYPE_IDS.GENERAL_LEDGER_JOURNAL]: { entries: "gl_journal_lines", transactions: "gl_journal_tx" },
  [ANALYSIS_SOURCE_TYPE_IDS.GENERAL_LEDGER_JOURNAL_FUND]: { entries: "gl_journal_lines", transactions: "gl_journal_tx" },
  [ANALYSIS_SOURCE_TYPE_IDS.NOT_FOR_PROFIT_GENERAL_LEDGER_JOURNAL]: { entries: "gl_journal_lines", transactions: "gl_journal_tx" },
  [ANALYSIS_SOURCE_TYPE_IDS.ACCOUNTS_PAYABLE_DETAIL]: { entries: "ap_detail_entries" },
  [ANALYSIS_SOURCE_TYPE_IDS.ACCOUNTS_RECEIVABLE_DETAIL]: { entries: "ar_detail_entries" },
};

const SOURCE_TYPE_KEYS = new Map<string, string>(Object.entries(ANALYSIS_SOURCE_TYPE_IDS).map(([key, id]) => [id, key]));

export function logicalNameFor(analysisSourceTypeId: string, kind: DataTableKind = "entries"): { logicalName: string; apiStability: ApiStability } {
  const stable = STABLE_LOGICAL_NAMES[analysisSourceTypeId]?.[kind];
  if (stable) return { logicalName: stable, apiStability: "STABLE" };
  const key = SOURCE_TYPE_KEYS.get(analysisSourceTypeId);
  return { logicalName: `${(key ?? `source_type_${analysisSourceTypeId}`).toLowerCase()}_${kind}`, apiStability: "UNSTABLE" };
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

const INDEXED_SCALARS = new Set<ColumnType>(["DATE", "DATE_TIME", "INT16", "INT32", "INT64", "FLOAT32", "FLOAT64", "MONEY_100", "DECIMAL", "PERCENTAGE_FIXED_POINT"]);

/**
 * The data table column of a table whose columns map to no platform field (a warehouse import),
 * by the entries tables' rule, so it is as fast to query: keys and codes (STRING not named like
 * free text) get equality, prefix and substring search and an index; free text substring and
 * keyword search without one; dates and numbers equality and range, indexed; BOOLEAN equality
 * only (no index, as in transactions tables). Types the query language cannot search in this
 * storage (arrays and documents kept as jsonb) carry no flag.
 */
export function plainTableColumn(column: { field: string; type: ColumnType; sql: string; originalName: string | null; nullable: boolean }): DataTableColumn {
  const base = { ...NO_FLAGS, ...column, platformField: null, typeaheadDataTableId: null };
  if (column.type === "STRING") {
    if (FREE_TEXT.test(column.field.toLowerCase())) return { ...base, allowCaseInsensitiveSubstringSearch: true, keywordSearch: true, sortable: true };
    return { ...base, equalitySearch: true, caseInsensitivePrefixSearch: true, allowCaseInsensitiveSubstringSearch: true, sortable: true, indexed: true };
  }
  if (INDEXED_SCALARS.has(column.type)) return { ...base, equalitySearch: true, rangeSearch: true, sortable: true, indexed: true };
  if (column.type === "BOOLEAN") return { ...base, equalitySearch: true, sortable: true };
  return base;
}

/**
 * The data table columns of a transactions table (`TransactionsTableResult.columns`): `row_no`
 * (the row number of the transaction's first entry, i.e. its rowid in the entries table) is
 * published as `rowid`; txid is a key (equality, prefix, substring, indexed) and the default sort
 * (also indexed with rowid for that order); counts, totals and dates take equality and range,
 * indexed; `balanced` takes equality only and has no index (two values: a scan is what the planner
 * would choose anyway).
 */
export function transactionsTableColumns(columns: TransactionColumn[]): DataTableColumn[] {
  return columns.map((c) => {
    const base = { ...NO_FLAGS, sql: c.name, originalName: null, platformField: c.platformField, nullable: c.name !== "row_no", typeaheadDataTableId: null };
    if (c.name === "row_no") return { ...base, field: "rowid", type: "INT64" as const, equalitySearch: true, rangeSearch: true, sortable: true, indexed: true };
    if (c.type === "STRING") {
      const key = { ...base, field: c.name, type: "STRING" as const, equalitySearch: true, caseInsensitivePrefixSearch: true, allowCaseInsensitiveSubstringSearch: true, sortable: true, indexed: true };
      return c.name === "txid" ? { ...key, orderIndexed: true } : key;
    }
    if (c.type === "BOOLEAN") return { ...base, field: c.name, type: "BOOLEAN" as const, equalitySearch: true, sortable: true };
    return { ...base, field: c.name, type: c.type, equalitySearch: true, rangeSearch: true, sortable: true, indexed: true };
  });
}

/**
 * A table's order when a request names none (wire reference 5: `rowid` for gl_journal_lines, `txid`
 * for gl_journal_tx): transactions tables by txid, every other table by rowid. `row_no` ends
 * every order either way.
 */
export function defaultSortOf(type: string | null): Array<{ field: string; direction: "ASC" | "DESC" }> {
  return type === "transactions" ? [{ field: "txid", direction: "ASC" }] : [];
}

/** The query language's view of a definition: every column with its flags and physical name. */
export function queryColumnsOf(columns: DataTableColumn[]): ColumnDef[] {
  return columns.map((c) => ({
    ...(c.flagColumns ? { flagColumns: c.flagColumns } : {}),
    ...(c.storedLowerCase ? { storedLowerCase: true } : {}),
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
