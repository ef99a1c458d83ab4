import type pg from "pg";
import { ValidationError, type Problem } from "../../core/errors.js";
import { columnSetOf, compileFilter, quoteIdent, SqlParams, type ColumnSet, type SortOrder } from "../../query-language/index.js";
import { defaultSortOf, queryColumnsOf, type DataTableColumn } from "./data-table-definition.js";

export const MAX_DATA_PAGE_SIZE = 2000;
export const DEFAULT_DATA_PAGE_SIZE = 100;

/** What the rows module needs of a stored definition. */
export interface RowsTable {
  id: string;
  logicalName: string | null;
  /** The table's kind (`entries`, `transactions`): its default sort. */
  type: string | null;
  tableName: string;
  columns: DataTableColumn[];
  rowCount: number;
}

export interface SortInput {
  field?: string | null;
  direction?: string | null;
}

/** `ingest.entries_x` -> `"ingest"."entries_x"`; the name comes from the engine, never from a caller. */
export function quotedTable(name: string): string {
  return name.split(".").map(quoteIdent).join(".");
}

export function columnSet(table: RowsTable): ColumnSet {
  return columnSetOf(`data table ${table.logicalName ?? table.id}`, queryColumnsOf(table.columns));
}

/**
 * A column as its wire value: dates as YYYY-MM-DD and date-times as ISO UTC with Z; 64-bit
 * integers (MONEY_100, INT64) come back from pg as decimal strings and are turned into numbers by
 * `wireRow` (exact up to 2^53, i.e. ninety trillion in MONEY_100).
 */
export function selectExpression(column: DataTableColumn): string {
  const name = quoteIdent(column.sql);
  if (column.type === "DATE") return `to_char(${name}, 'YYYY-MM-DD')`;
  if (column.type === "DATE_TIME") return `to_char(${name} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  return name;
}

const BIGINT_TYPES = new Set(["INT64", "MONEY_100"]);

function wireRow(columns: DataTableColumn[], row: unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  columns.forEach((column, i) => {
    const value = row[i];
    out[column.field] = value !== null && BIGINT_TYPES.has(column.type) ? Number(value) : value;
  });
  return out;
}

/**
 * Parses `sort` (one `{field, direction}` or a list of them) against the sortable columns; 400
 * names the key. Without one, the table's default sort (`defaultSortOf`).
 */
export function parseSortOrders(sort: SortInput | SortInput[] | null | undefined, set: ColumnSet, key = "sort", table?: Pick<RowsTable, "type">): SortOrder[] {
  if (sort === null || sort === undefined) return table ? defaultSortOf(table.type).filter((o) => set.byField.has(o.field)) : [];
  const list = Array.isArray(sort) ? sort : [sort];
  const sortable = [...set.byField.values()].filter((c) => c.sortable).map((c) => c.field);
  return list.map((item, index) => {
    const at = Array.isArray(sort) ? `${key}[${index}]` : key;
    const column = item.field ? set.byField.get(item.field) : undefined;
    if (!item.field || !column || !column.sortable) {
      throw new ValidationError(`${item.field ?? "(no field)"} is not a sortable column of ${set.subject}`, { identifier: `${at}.field`, values: [String(item.field ?? "")], suggestedValues: sortable });
    }
    const direction = (item.direction ?? "ASC").toUpperCase();
    if (direction !== "ASC" && direction !== "DESC") {
      throw new ValidationError("Sort direction must be ASC or DESC", { identifier: `${at}.direction`, values: [String(item.direction)], suggestedValues: ["ASC", "DESC"] });
    }
    return { field: item.field, direction };
  });
}

/**
 * ORDER BY for rows: strings case-insensitively, `row_no` last so equal keys keep file order and
 * pages are stable. Nulls sort as larger than any value (last ascending, first descending), which is
 * the order of a plain btree index read either way: a sort on an indexed column can walk the index
 * and stop after the page instead of sorting every matching row (entity queries put nulls last both
 * ways; their tables are small).
 */
export function rowsOrderBy(orders: SortOrder[], set: ColumnSet): string {
  const parts = orders.map((o) => {
    const column = set.byField.get(o.field)!;
    return `${column.type === "STRING" ? `lower(${quoteIdent(column.sql)})` : quoteIdent(column.sql)} ${o.direction}`;
  });
  if (!orders.some((o) => set.byField.get(o.field)?.sql === "row_no")) parts.push(`"row_no" ASC`);
  return parts.join(", ");
}

/** The columns to return: all, or all but `excludeFields` / only `fields`; unknown names give 400. */
export function selectedColumns(table: RowsTable, options: { fields?: readonly string[] | null; excludeFields?: readonly string[] | null }): DataTableColumn[] {
  // Flag sets over other columns (a result's `cp_failed`) hold no value of their own: filters only.
  const readable = table.columns.filter((c) => !c.flagColumns);
  const known = new Set(readable.map((c) => c.field));
  const filterOnly = new Set(table.columns.filter((c) => c.flagColumns).map((c) => c.field));
  const problems: Problem[] = [];
  for (const key of ["fields", "excludeFields"] as const) {
    (options[key] ?? []).forEach((field, i) => {
      if (filterOnly.has(field)) {
        if (key === "fields") problems.push({ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier: `${key}[${i}]`, reason: `${field} can only be used in filters; its flags are the cp_failed_<name> columns`, values: [field] });
        return;
      }
      if (!known.has(field)) problems.push({ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier: `${key}[${i}]`, reason: `${field} is not a column of data table ${table.logicalName ?? table.id}`, values: [field], suggestedValues: [...known] });
    });
  }
  if (problems.length > 0) throw ValidationError.of(problems);
  const byField = new Map(readable.map((c) => [c.field, c]));
  // `fields` chooses the columns and their order (default all); `excludeFields` then leaves some out.
  const chosen = options.fields && options.fields.length > 0 ? [...new Set(options.fields)].map((f) => byField.get(f)!) : readable;
  const excluded = new Set(options.excludeFields ?? []);
  const kept = chosen.filter((c) => !excluded.has(c.field));
  if (kept.length === 0) throw new ValidationError("excludeFields leaves no column to return", { identifier: "excludeFields", values: [...excluded] });
  return kept;
}

export interface DataPageInput {
  page?: number | null;
  pageSize?: number | null;
  query?: unknown;
  sort?: SortInput | SortInput[] | null;
  fields?: string[] | null;
  excludeFields?: string[] | null;
}

export interface DataPage {
  content: Array<Record<string, unknown>>;
  page: number;
  size: number;
  last: boolean;
}

/**
 * One page of rows, filtered and sorted in SQL on the rows table (never in memory): the filter is
 * the query language checked against the definition's columns and flags; `row_no` ends every
 * order so pages are stable. One row more than the page is read to tell whether it is the last.
 */
export type PopulationSql = (populationId: string, params: SqlParams) => string;

export function dataPageQuery(table: RowsTable, input: DataPageInput, populationSql?: PopulationSql) {
  const page = input.page ?? 0;
  const size = input.pageSize ?? DEFAULT_DATA_PAGE_SIZE;
  if (!Number.isInteger(page) || page < 0) throw new ValidationError("page must be an integer of at least 0", { identifier: "page", values: [String(page)] });
  if (!Number.isInteger(size) || size < 1 || size > MAX_DATA_PAGE_SIZE) {
    throw new ValidationError(`pageSize must be an integer from 1 to ${MAX_DATA_PAGE_SIZE}`, { identifier: "pageSize", values: [String(size)], problemType: size > MAX_DATA_PAGE_SIZE ? "LESS_VALUE_REQUIRED" : "GREATER_VALUE_REQUIRED" });
  }
  const set = columnSet(table);
  const orders = parseSortOrders(input.sort, set, "sort", table);
  const columns = selectedColumns(table, { fields: input.fields, excludeFields: input.excludeFields });
  const { sql: where, params } = compileFilter(input.query ?? {}, set, new SqlParams(), { populationSql });
  const sql =
    `SELECT ${columns.map(selectExpression).join(", ")} FROM ${quotedTable(table.tableName)} WHERE ${where} ` +
    `ORDER BY ${rowsOrderBy(orders, set)} LIMIT ${size + 1} OFFSET ${page * size}`;
  return { sql, values: params.values, columns, page, size };
}

export async function readDataPage(pool: pg.Pool, table: RowsTable, input: DataPageInput, populationSql?: PopulationSql): Promise<DataPage> {
  const { sql, values, columns, page, size } = dataPageQuery(table, input, populationSql);
  const result = await pool.query({ text: sql, values, rowMode: "array" });
  const rows = result.rows as unknown[][];
  return { content: rows.slice(0, size).map((row) => wireRow(columns, row)), page, size, last: rows.length <= size };
}
