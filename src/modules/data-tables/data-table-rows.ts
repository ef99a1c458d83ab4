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
 * ORDER BY for rows: strings case-insensitively, `row_no` last so pages are stable, in the direction
 * of the first key (equal keys in file order ascending, in reverse file order descending): then a
 * one-column sort is the order of a `(col, row_no)` index read forwards or backwards, and the
 * keyset form continues with a row comparison that index serves. Nulls sort as larger than any value (last ascending, first descending), which is
 * the order of a plain btree index read either way: a sort on an indexed column can walk the index
 * and stop after the page instead of sorting every matching row (entity queries put nulls last both
 * ways; their tables are small).
 */
export function rowsOrderBy(orders: SortOrder[], set: ColumnSet): string {
  return orderKeys(orders, set).map((k) => `${k.expression} ${k.direction}`).join(", ");
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
  /** Keyset form: the `endCursor` of the previous page; rows after it in the same order. */
  after?: string | null;
}

export interface DataPage {
  content: Array<Record<string, unknown>>;
  page: number;
  size: number;
  last: boolean;
  /** The position of the page's last row, for `after` (null on an empty page). */
  endCursor: string | null;
}

interface OrderKey {
  /** SQL of the sort key as ORDER BY compares it. */
  expression: string;
  direction: "ASC" | "DESC";
  /** Cast of the cursor's value back to the key's type. */
  cast: string;
}

const CURSOR_CASTS: Record<string, string> = { STRING: "text", DATE: "date", DATE_TIME: "timestamptz", MONEY_100: "bigint", INT64: "bigint", INT32: "integer", NUMBER: "numeric", DOUBLE: "double precision", BOOLEAN: "boolean" };

/** The keys of an order as SQL, `row_no` last (the unique tiebreaker that makes keyset pages exact), in the first key's direction. */
function orderKeys(orders: SortOrder[], set: ColumnSet): OrderKey[] {
  const keys: OrderKey[] = orders.map((o) => {
    const column = set.byField.get(o.field)!;
    const expression = column.type === "STRING" ? `lower(${quoteIdent(column.sql)})` : quoteIdent(column.sql);
    return { expression, direction: o.direction === "DESC" ? "DESC" : "ASC", cast: CURSOR_CASTS[column.type] ?? "text" };
  });
  if (!orders.some((o) => set.byField.get(o.field)?.sql === "row_no")) keys.push({ expression: `"row_no"`, direction: keys[0]?.direction ?? "ASC", cast: "bigint" });
  return keys;
}

/** A cursor names the order it belongs to, so one from another sort is refused rather than misread. */
function orderFingerprint(keys: OrderKey[]): string {
  return keys.map((k) => `${k.expression} ${k.direction}`).join(",");
}

function encodeCursor(keys: OrderKey[], values: unknown[]): string {
  return Buffer.from(JSON.stringify({ o: orderFingerprint(keys), v: values })).toString("base64url");
}

function badCursor(reason: string, after: string): ValidationError {
  return new ValidationError(`after is not a cursor of this table and sort: ${reason}`, { identifier: "after", values: [after] });
}

/**
 * Rows strictly after the cursor's row in the order of `keys`, where nulls sort as larger than any
 * value (ascending: last; descending: first), as ORDER BY puts them. A one-column sort (the usual
 * case) is the row comparison `(col, row_no) > (v, r)` (`<` descending); otherwise
 * k1 > v1 OR (k1 = v1 AND (k2 > v2 OR ...)), led by a range on the first key (k1 >= v1) so that
 * PostgreSQL starts its index scan at the cursor instead of walking from the first row. Ascending
 * from a non-null value, the rows whose first key is null (which all follow) are a second branch
 * (`nullTail`): an OR in the range would make the planner give up the index.
 */
function afterCursor(keys: OrderKey[], after: string, params: SqlParams): { condition: string; nullTail?: string } {
  let decoded: { o?: unknown; v?: unknown };
  try {
    decoded = JSON.parse(Buffer.from(after, "base64url").toString("utf8")) as typeof decoded;
  } catch {
    throw badCursor("not readable", after);
  }
  if (decoded.o !== orderFingerprint(keys)) throw badCursor("it was issued for another sort", after);
  const values = decoded.v;
  if (!Array.isArray(values) || values.length !== keys.length) throw badCursor("wrong number of keys", after);
  const placeholders = values.map((v, i) => (v === null ? null : params.add(String(v), keys[i]!.cast)));
  const first = keys[0]!;
  const start = placeholders[0];
  // One sort column and row_no (or row_no alone), one direction: a row comparison, which PostgreSQL
  // reads as one range of a (col, row_no) index starting at the cursor: no filter over the rows
  // before it, no sort of equal keys.
  if (keys.length <= 2 && keys.every((k) => k.direction === first.direction) && placeholders.every((p) => p !== null)) {
    const op = first.direction === "ASC" ? ">" : "<";
    const row = keys.length === 1 ? `${first.expression} ${op} ${start}` : `(${first.expression}, ${keys[1]!.expression}) ${op} (${start}, ${placeholders[1]})`;
    // Ascending, rows whose key is null follow every value (descending they came first, already read).
    return { condition: row, nullTail: first.direction === "ASC" && keys.length === 2 ? `${first.expression} IS NULL` : undefined };
  }
  const greater = (i: number): string => {
    const { expression, direction } = keys[i]!;
    const p = placeholders[i];
    if (direction === "ASC") return p === null ? "FALSE" : i === 0 ? `${expression} > ${p}` : `(${expression} > ${p} OR ${expression} IS NULL)`;
    return p === null ? `${expression} IS NOT NULL` : `${expression} < ${p}`;
  };
  const equal = (i: number): string => (placeholders[i] === null ? `${keys[i]!.expression} IS NULL` : `${keys[i]!.expression} = ${placeholders[i]}`);
  let condition = greater(keys.length - 1);
  for (let i = keys.length - 2; i >= 0; i--) condition = `(${greater(i)} OR (${equal(i)} AND ${condition}))`;
  if (start === null) return { condition: first.direction === "ASC" ? `${first.expression} IS NULL AND ${condition}` : condition };
  if (first.direction === "DESC") return { condition: `${first.expression} <= ${start} AND ${condition}` };
  return { condition: `${first.expression} >= ${start} AND ${condition}`, nullTail: `${first.expression} IS NULL` };
}

/**
 * One page of rows, filtered and sorted in SQL on the rows table (never in memory): the filter is
 * the query language checked against the definition's columns and flags; `row_no` ends every
 * order so pages are stable. One row more than the page is read to tell whether it is the last.
 */
export type PopulationSql = (populationId: string, params: SqlParams) => string;

export interface PageQueryOptions {
  /** The table's column set when the caller holds one already (a cached definition). */
  set?: ColumnSet;
  /**
   * The definition the statement was built from: rows come back only while `data_table` still
   * holds that version, so a page read with a cached definition another process has since
   * replaced or deleted comes back empty instead of wrong (a one-time filter, evaluated once).
   */
  guard?: { id: string; version: number };
}

export function dataPageQuery(table: RowsTable, input: DataPageInput, populationSql?: PopulationSql, options: PageQueryOptions = {}) {
  const page = input.page ?? 0;
  const size = input.pageSize ?? DEFAULT_DATA_PAGE_SIZE;
  if (!Number.isInteger(page) || page < 0) throw new ValidationError("page must be an integer of at least 0", { identifier: "page", values: [String(page)] });
  if (!Number.isInteger(size) || size < 1 || size > MAX_DATA_PAGE_SIZE) {
    throw new ValidationError(`pageSize must be an integer from 1 to ${MAX_DATA_PAGE_SIZE}`, { identifier: "pageSize", values: [String(size)], problemType: size > MAX_DATA_PAGE_SIZE ? "LESS_VALUE_REQUIRED" : "GREATER_VALUE_REQUIRED" });
  }
  const set = options.set ?? columnSet(table);
  const orders = parseSortOrders(input.sort, set, "sort", table);
  const columns = selectedColumns(table, { fields: input.fields, excludeFields: input.excludeFields });
  const compiled = compileFilter(input.query ?? {}, set, new SqlParams(), { populationSql });
  const params = compiled.params;
  const where = options.guard
    ? `(${compiled.sql}) AND (SELECT "version" FROM "data_table" WHERE "id" = ${params.add(options.guard.id)}) = ${params.add(options.guard.version, "integer")}`
    : compiled.sql;
  const keys = orderKeys(orders, set);
  if (input.after !== undefined && input.after !== null && page !== 0) {
    throw new ValidationError("page and after cannot be combined: after continues from a cursor", { identifier: "page", values: [String(page)] });
  }
  // The sort keys ride along after the columns: as compared (for the outer order of the union
  // below) and as text (for the next page's cursor; pg would turn dates into local-time Dates).
  const select = [...columns.map(selectExpression), ...keys.map((k, i) => `${k.expression} AS "_k${i}"`), ...keys.map((k, i) => `(${k.expression})::text AS "_c${i}"`)].join(", ");
  const from = `FROM ${quotedTable(table.tableName)}`;
  const order = rowsOrderBy(orders, set);
  let sql: string;
  if (input.after === undefined || input.after === null) {
    sql = `SELECT ${select} ${from} WHERE ${where} ORDER BY ${order} LIMIT ${size + 1} OFFSET ${page * size}`;
  } else {
    const { condition, nullTail } = afterCursor(keys, input.after, params);
    sql = `SELECT ${select} ${from} WHERE ${where} AND ${condition} ORDER BY ${order} LIMIT ${size + 1}`;
    if (nullTail) {
      const positions = keys.map((k, i) => `"_k${i}" ${k.direction}`).join(", ");
      sql = `SELECT * FROM ((${sql}) UNION ALL (SELECT ${select} ${from} WHERE ${where} AND ${nullTail} ORDER BY ${order} LIMIT ${size + 1})) s ORDER BY ${positions} LIMIT ${size + 1}`;
    }
  }
  return { sql, values: params.values, columns, keys, page, size };
}

export async function readDataPage(pool: pg.Pool, table: RowsTable, input: DataPageInput, populationSql?: PopulationSql, options?: PageQueryOptions): Promise<DataPage> {
  const { sql, values, columns, keys, page, size } = dataPageQuery(table, input, populationSql, options);
  const result = await pool.query({ text: sql, values, rowMode: "array" });
  const rows = (result.rows as unknown[][]).slice(0, size);
  const lastRow = rows[rows.length - 1];
  return {
    content: rows.map((row) => wireRow(columns, row)),
    page,
    size,
    last: result.rows.length <= size,
    endCursor: lastRow ? encodeCursor(keys, lastRow.slice(columns.length + keys.length)) : null,
  };
}
