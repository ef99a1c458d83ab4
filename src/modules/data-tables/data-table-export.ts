import type pg from "pg";
import { compileFilter, SqlParams } from "../../query-language/index.js";
import { assertContent } from "../../entity/index.js";
import { ValidationError } from "../../core/errors.js";
import { batched, csvWriter, quotedListWriter, type CsvFormat } from "../../tabular/csv-writer.js";
import { csvFormatOf, DEFAULT_INNER_LIST_CSV } from "./data-table-csv.js";
import type { ExportInput } from "./data-table.inputs.js";
export type { ExportInput };
import type { DataTableColumn } from "./data-table-definition.js";
import { columnSet, parseSortOrders, quotedTable, rowsOrderBy, selectedColumns, selectExpression, type RowsTable } from "./data-table-rows.js";

export interface ExportPlan {
  columns: DataTableColumn[];
  /** SELECT over the rows table with `$n` parameters. */
  sql: string;
  values: unknown[];
  sorted: boolean;
  format: CsvFormat;
  /** How list columns (ARRAY_STRINGS) are written inside one field. */
  innerFormat: CsvFormat;
}

/** Rows fetched from the cursor per round trip: big enough to amortise it, small enough to stay a few MiB. */
const FETCH_ROWS = 5000;

/** Default export columns (wire reference): not KEYWORD_SEARCH and not filterOnly. */
function defaultFields(table: RowsTable): string[] {
  return table.columns.filter((c) => c.type !== "KEYWORD_SEARCH" && !c.filterOnly).map((c) => c.field);
}

/** Validates an export request without touching the rows (400 naming the key); returns the pieces. */
export function checkExport(table: RowsTable, input: ExportInput) {
  // Spec 2.1 rule 5: `fields`, when sent, names at least one column (left out, it means the default columns).
  assertContent({ fields: input.fields }, ["fields"]);
  const set = columnSet(table);
  if (input.limit !== null && input.limit !== undefined && (!Number.isInteger(input.limit) || input.limit < 1)) {
    throw new ValidationError("limit must be a whole number of at least 1", { identifier: "limit", values: [String(input.limit)], problemType: "GREATER_VALUE_REQUIRED" });
  }
  const orders = parseSortOrders(input.sort, set, "sort", table);
  const columns = selectedColumns(table, { fields: input.fields ?? defaultFields(table) });
  const format = csvFormatOf(input.csvConfiguration, "csvConfiguration");
  const innerFormat = csvFormatOf(input.innerListCsvConfiguration, "innerListCsvConfiguration", DEFAULT_INNER_LIST_CSV);
  const filter = compileFilter(input.query ?? {}, set, new SqlParams());
  return { set, orders, columns, format, innerFormat, filter };
}

/**
 * Plans an export. Spec 4.3: exports of more than `sortLimit` rows (2 million) are unsorted, so the
 * database can stream them in table order instead of sorting millions of rows first. The count is
 * only taken when the table (or the limit) could exceed the threshold, and stops at threshold + 1.
 */
export async function planExport(pool: pg.Pool, table: RowsTable, input: ExportInput, sortLimit: number): Promise<ExportPlan> {
  const { set, orders, columns, format, innerFormat, filter } = checkExport(table, input);
  const from = `FROM ${quotedTable(table.tableName)} WHERE ${filter.sql}`;
  const cap = input.limit ?? Number.POSITIVE_INFINITY;
  let rows = Math.min(cap, table.rowCount);
  if (rows > sortLimit && filter.sql !== "TRUE") {
    const { rows: counted } = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM (SELECT 1 ${from} LIMIT ${sortLimit + 1}) s`, filter.params.values);
    rows = Math.min(cap, Number(counted[0].n));
  }
  const sorted = rows <= sortLimit;
  const order = sorted ? ` ORDER BY ${rowsOrderBy(orders, set)}` : "";
  const limit = input.limit ? ` LIMIT ${input.limit}` : "";
  return { columns, sorted, format, innerFormat, values: filter.params.values, sql: `SELECT ${columns.map(selectExpression).join(", ")} ${from}${order}${limit}` };
}

/**
 * The export as CSV bytes, streamed from a server-side cursor in a read-only transaction: at most
 * FETCH_ROWS rows are in memory at a time whatever the table's size. Header: the column fields.
 */
export async function* exportCsv(pool: pg.Pool, plan: ExportPlan, signal?: AbortSignal): AsyncGenerator<Buffer> {
  const header = csvWriter(plan.format, { text: String });
  const write = csvWriter(plan.format, { textColumns: plan.columns.map((c) => c.type === "STRING"), text: String });
  const list = quotedListWriter(plan.innerFormat, String);
  const lists = plan.columns.map((c) => c.type === "ARRAY_STRINGS" || c.type === "ARRAY_INT64");
  const line = lists.some(Boolean) ? (row: readonly unknown[]) => write(row.map((v, i) => (lists[i] && Array.isArray(v) ? list(v) : v))) : write;
  const client = await pool.connect();
  let committed = false;
  try {
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    await client.query(`DECLARE data_table_export NO SCROLL CURSOR FOR ${plan.sql}`, plan.values);
    async function* lines() {
      yield header(plan.columns.map((c) => c.field));
      for (;;) {
        if (signal?.aborted) throw signal.reason ?? new Error("export aborted");
        const batch = await client.query({ text: `FETCH ${FETCH_ROWS} FROM data_table_export`, rowMode: "array" });
        for (const row of batch.rows as unknown[][]) yield line(row);
        if (batch.rows.length < FETCH_ROWS) return;
      }
    }
    yield* batched(lines());
    await client.query("COMMIT");
    committed = true;
  } finally {
    // An early stop (consumer gone) or a failure: end the transaction before the client goes back.
    if (!committed) await client.query("ROLLBACK").catch(() => undefined);
    client.release();
  }
}
