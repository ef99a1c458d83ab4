import type pg from "pg";
import { inClientTransaction } from "../../db/pg-transaction.js";
import { quoteIdent } from "../../query-language/index.js";
import { defineJob } from "../../jobs/index.js";
import type { DataTableColumn } from "./data-table-definition.js";
import { quotedTable } from "./data-table-rows.js";

/**
 * CREATE INDEX statements for the columns whose search flags the definition promises to serve:
 * strings on lower(col) with text_pattern_ops (the query language compares lower-cased strings;
 * the opclass serves both = and LIKE 'prefix%'), every other indexed column as (col, row_no), the
 * order of a sort on it (row_no breaks ties in the sort's direction, see rowsOrderBy). Free-text
 * columns, and enumerations (see commonValues), get no full index but expression statistics on
 * lower(col): without them PostgreSQL guesses the selectivity of `lower(memo) LIKE '%x%'` and
 * scans the whole table even when the first page's matches sit at its start. A table's default
 * sort column (`orderIndexed`) also gets (col, row_no) so its first pages walk an index. Names are
 * `<table>_<position>` / `<table>_s<position>` / `<table>_o<position>` / `<table>_p<position>` /
 * `<table>_r<position>` (within 63 characters) and go away with the table.
 */
export function indexStatements(tableName: string, columns: DataTableColumn[]): string[] {
  const parts = tableName.split(".");
  const base = parts.pop()!;
  const schema = parts.length > 0 ? `${quoteIdent(parts[0])}.` : "";
  const table = quotedTable(tableName);
  return columns.flatMap((column, position) => {
    if (column.flagColumns) return [];
    const name = quoteIdent(column.sql);
    const statistics = `CREATE STATISTICS IF NOT EXISTS ${schema}${quoteIdent(`${base}_s${position}`)} ON (lower(${name})) FROM ${table}`;
    const statements: string[] = [];
    if (column.partialIndex && column.type === "BOOLEAN") {
      // A flag set on few rows: its first pages walk only those rows, in rowid order.
      return [`CREATE INDEX IF NOT EXISTS ${quoteIdent(`${base}_p${position}`)} ON ${table} ("row_no") WHERE ${name}`];
    }
    if (column.commonValues && column.type === "STRING") {
      // An enumeration: its rare and absent values' rows, in row_no order within each value; the
      // common ones walk the row_no order (the query's lower(col) = 'v' implies the predicate).
      const common = column.commonValues.map((v) => `'${v.replaceAll("'", "''")}'`).join(", ");
      return [`CREATE INDEX IF NOT EXISTS ${quoteIdent(`${base}_r${position}`)} ON ${table} (lower(${name}), "row_no")${common ? ` WHERE lower(${name}) NOT IN (${common})` : ""}`, statistics];
    }
    if (column.indexed && (column.type === "ARRAY_STRINGS" || column.type === "ARRAY_INT64")) {
      const key = column.type === "ARRAY_STRINGS" && !column.storedLowerCase ? `(lower_text_array(${name}))` : `(${name})`;
      return [`CREATE INDEX IF NOT EXISTS ${quoteIdent(`${base}_g${position}`)} ON ${table} USING gin ${key}`];
    }
    if (column.orderIndexed) {
      // The default sort's ORDER BY (lower(col), row_no) under the collation, which the pattern_ops index cannot serve.
      const key = column.type === "STRING" ? `lower(${name})` : name;
      statements.push(`CREATE INDEX IF NOT EXISTS ${quoteIdent(`${base}_o${position}`)} ON ${table} (${key}, "row_no")`);
    }
    if (column.indexed) {
      // Other scalars carry row_no too: a sort on the column (the keyset form's row comparison
      // included) is then one range of the index in either direction, equal values in row order.
      const key = column.type === "STRING" ? `(lower(${name}) text_pattern_ops)` : column.sql === "row_no" || column.orderIndexed ? `(${name})` : `(${name}, "row_no")`;
      return [...statements, `CREATE INDEX IF NOT EXISTS ${quoteIdent(`${base}_${position}`)} ON ${table} ${key}`];
    }
    if (statements.length > 0) return statements;
    // Enumerations without a full index (commonValues) too: with the share of each value known the
    // planner walks the default order for a common one rather than sorting the whole table.
    if (column.type === "STRING" && (column.allowCaseInsensitiveSubstringSearch || column.keywordSearch || column.equalitySearch)) return [statistics];
    return [];
  });
}

/**
 * Builds a table's indexes (idempotent: IF NOT EXISTS) on one connection of its own, then ANALYZEs
 * it: statistics of the lower(col) expressions exist only once their indexes (or statistics objects)
 * do; without them the planner misjudges `lower(txid) = $1` and walks the rowid index instead.
 * Returns false when the table is gone (dropped meanwhile: nothing to index) or `signal` aborted it.
 */
export async function buildIndexes(pool: pg.Pool, tableName: string, columns: DataTableColumn[], options: { signal?: AbortSignal; progress?: (fraction: number) => void } = {}): Promise<boolean> {
  const statements = indexStatements(tableName, columns);
  const client = await pool.connect();
  try {
    // Sorting a million keys in memory rather than in batches on disk.
    await client.query("SET maintenance_work_mem = '256MB'");
    for (const [i, statement] of statements.entries()) {
      if (options.signal?.aborted) return false;
      await client.query(statement);
      options.progress?.((i + 1) / statements.length);
    }
    if (options.signal?.aborted) return false;
    await inClientTransaction(client, async () => {
      // The sample size the parse uses for its own ANALYZE (a tenth of the default's).
      await client.query("SET LOCAL default_statistics_target = 30");
      await client.query(`ANALYZE ${quotedTable(tableName)}`);
    });
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === "42P01") return false;
    throw error;
  } finally {
    await client.query("RESET maintenance_work_mem").catch(() => undefined);
    client.release();
  }
}

/**
 * Internal job started with each new or replaced definition: builds the indexes after the
 * definition's transaction committed. Building them inside it would hold the analysis source's
 * transaction for seconds on a million rows (and past Prisma's interactive-transaction timeout);
 * queries are correct without them meanwhile, only slower. It reads the definition current when it
 * runs, so a superseded job builds the latest indexes or none. (Analysis results build theirs in the
 * run, before it says COMPLETE, and start no such job.)
 */
export const indexDataTableJob = defineJob<{ dataTableId: string }>({
  name: "data-tables.index",
  type: null,
  retry: { attempts: 3, backoffSeconds: 5 },
  async run(ctx, { dataTableId }) {
    const table = await ctx.app.prisma.dataTable.findUnique({ where: { id: dataTableId }, select: { tableName: true, columns: true } });
    if (!table) return;
    await buildIndexes(ctx.app.pool, table.tableName, table.columns, { signal: ctx.signal, progress: (f) => ctx.progress(f * 95) });
  },
});
