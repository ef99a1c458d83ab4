import { pipeline } from "node:stream/promises";
import type { Writable } from "node:stream";
import { from as copyFrom } from "pg-copy-streams";
import { createAudit } from "../../entity/index.js";
import { inTransaction } from "../../events/outbox.js";
import { defineJob, JobError } from "../../jobs/index.js";
import { quoteIdent } from "../../query-language/index.js";
import { plainTableColumn, type DataTableColumn } from "../data-tables/data-table-definition.js";
import { buildIndexes } from "../data-tables/data-table.indexes.js";
import { warehouseClientFor } from "../connections/connection.service.js";
import { WarehouseError } from "../connections/warehouse-client.js";
import { sqlTypeOf } from "../connections/warehouse-types.js";
import type { Origin, PlanColumn } from "./catalog.plan.js";

/** What an import task runs, resolved when it was started (stored in `data_source_import_task.plan`). */
export interface ImportPlan {
  origin: Origin;
  columns: PlanColumn[];
  sort: Array<{ from: string; direction: "ASC" | "DESC" }>;
  logicalName: string;
}

export const IMPORT_SCHEMA = "imports";
const tableNameOf = (taskId: string) => `${IMPORT_SCHEMA}.t_${taskId}`;
const quoted = (name: string) => name.split(".").map(quoteIdent).join(".");
const backtick = (name: string) => "`" + name.replace(/`/g, "``") + "`";

/** COPY text format: backslash, tab, newline and carriage return escaped; null as \N. */
function copyValue(value: string | null): string {
  if (value === null) return "\\N";
  return value.replace(/\\/g, "\\\\").replace(/\t/g, "\\t").replace(/\n/g, "\\n").replace(/\r/g, "\\r");
}

/** An imported column in the data table: searchable and indexed by the entries tables' rule. */
const dataTableColumn = (column: PlanColumn, index: number): DataTableColumn =>
  plainTableColumn({ field: column.name, type: column.columnType as DataTableColumn["type"], sql: `c${index}`, originalName: column.from, nullable: column.nullable });

const ROWID: DataTableColumn = {
  field: "rowid",
  type: "INT64",
  sql: "row_no",
  originalName: null,
  platformField: null,
  nullable: false,
  typeaheadDataTableId: null,
  // Served by the unique index the import creates on row_no.
  indexed: false,
  equalitySearch: true,
  rangeSearch: true,
  containsSearch: false,
  allowCaseInsensitiveSubstringSearch: false,
  caseInsensitivePrefixSearch: false,
  keywordSearch: false,
  filterOnly: false,
  sortable: true,
};

/**
 * Writes the warehouse's rows into a COPY stream, numbering them from 1 in the order they arrive.
 * `pipeline` pulls the next chunk only once COPY has taken the previous one (the socket drained to
 * PostgreSQL): the HTTP fetch of chunk n+1 waits while chunk n is written, so memory holds one
 * chunk whatever the table's size, however slow the database is.
 */
export async function copyChunks(chunks: AsyncIterable<{ rows: Array<Array<string | null>> }>, target: Writable, progress: (rows: number) => void): Promise<number> {
  let rows = 0;
  await pipeline(async function* () {
    for await (const chunk of chunks) {
      const text = copyText(chunk.rows, rows);
      rows += chunk.rows.length;
      // The parsed rows are garbage from here on, while still young: emptying the array the
      // client's generator also holds keeps them from being promoted while COPY drains this chunk.
      chunk.rows.length = 0;
      progress(rows);
      if (text) yield text;
    }
  }, target);
  return rows;
}

/** COPY text of rows numbered from `before + 1`. */
function copyText(rows: Array<Array<string | null>>, before: number): string {
  const lines = new Array<string>(rows.length);
  for (let i = 0; i < rows.length; i++) lines[i] = `${before + i + 1}\t${rows[i].map(copyValue).join("\t")}\n`;
  return lines.join("");
}

/**
 * DATA_SOURCE_IMPORT_TASK: reads the plan's origin into `imports.t_<taskId>` and publishes it as a
 * data table of the task's analysis. Warehouse rows arrive chunk by chunk (the statement API's
 * INLINE chunks) and go straight into one COPY stream, so memory holds about one chunk whatever
 * the table's size; data table origins are copied with one INSERT ... SELECT. Re-running starts
 * from an empty table (idempotent). Warehouse failures (credentials, unknown warehouse, host,
 * timeouts, failing statements) end the task in ERROR with the warehouse's message.
 */
export const importJob = defineJob<{ taskId: string }>({
  name: "data-catalog.import",
  type: "DATA_SOURCE_IMPORT_TASK",
  retry: { attempts: 2, backoffSeconds: 5 },
  leaseSeconds: 300,
  async run(ctx, { taskId }) {
    const app = ctx.app;
    const task = await app.prisma.dataSourceImportTask.findUnique({ where: { id: taskId } });
    if (!task) throw new JobError(`Import task ${taskId} was deleted`);
    const plan = task.plan;
    const table = tableNameOf(taskId);
    // A column the entry declares non-nullable refuses nulls: a source that changed (or a nullable
    // source column the entry narrowed) fails the import naming the column (spec 2.6).
    const columnsSql = plan.columns.map((c, i) => `${quoteIdent(`c${i}`)} ${sqlTypeOf(c)}${c.nullable ? "" : " NOT NULL"}`).join(", ");
    await app.pool.query(`CREATE SCHEMA IF NOT EXISTS ${IMPORT_SCHEMA}`);
    await app.pool.query(`DROP TABLE IF EXISTS ${quoted(table)}`);
    await app.pool.query(`CREATE TABLE ${quoted(table)} (row_no bigint NOT NULL, ${columnsSql}) WITH (autovacuum_enabled = false)`);
    let rows = 0;
    try {
      if (plan.origin.kind === "CONNECTION") {
        const client = await warehouseClientFor(app, plan.origin.connectionId).catch((error) => {
          throw new JobError(error instanceof Error ? error.message : String(error));
        });
        const tableRef = plan.origin.tableId.split(".").map(backtick).join(".");
        const order = plan.sort.length > 0 ? ` ORDER BY ${plan.sort.map((s) => `${backtick(s.from)} ${s.direction}`).join(", ")}` : "";
        const statement = `SELECT ${plan.columns.map((c) => backtick(c.from)).join(", ")} FROM ${tableRef}${order}`;
        const pg = await app.pool.connect();
        try {
          const target = pg.query(copyFrom(`COPY ${quoted(table)} (row_no, ${plan.columns.map((_c, i) => quoteIdent(`c${i}`)).join(", ")}) FROM STDIN`));
          rows = await copyChunks(client.chunks(statement, ctx.signal), target, (count) => ctx.progress(Math.min(80, 5 + count / 20000)));
        } finally {
          pg.release();
        }
      } else {
        const source = await app.prisma.dataTable.findUnique({ where: { id: plan.origin.dataTableId } });
        if (!source) throw new JobError(`Data table ${plan.origin.dataTableId} was deleted before the import ran`);
        const order = plan.sort.length > 0 ? plan.sort.map((s) => `${quoteIdent(s.from)} ${s.direction}`).join(", ") : "row_no";
        const result = await app.pool.query(
          `INSERT INTO ${quoted(table)} (row_no, ${plan.columns.map((_c, i) => quoteIdent(`c${i}`)).join(", ")}) ` +
            `SELECT row_number() OVER (ORDER BY ${order}), ${plan.columns.map((c) => quoteIdent(c.from)).join(", ")} FROM ${quoted(source.tableName)}`,
        );
        rows = result.rowCount ?? 0;
      }
    } catch (error) {
      if (error instanceof WarehouseError) throw new JobError(error.message);
      const code = (error as { code?: string }).code;
      if (code === "23502") {
        const column = plan.columns[Number(/^c(\d+)$/.exec((error as { column?: string }).column ?? "")?.[1])]?.name ?? (error as { column?: string }).column;
        throw new JobError(`Column ${column} is not nullable in the entry, but the source holds a null in it`);
      }
      if (code?.startsWith("22")) throw new JobError(`A value does not fit its column type: ${(error as Error).message}`);
      throw error;
    }
    // Indexed and analysed before COMPLETE: the new data table answers filters and sorts as fast as an ingested one.
    const columns = [ROWID, ...plan.columns.map(dataTableColumn)];
    await app.pool.query(`CREATE UNIQUE INDEX IF NOT EXISTS ${quoteIdent(`t_${taskId}_rowid`)} ON ${quoted(table)} (row_no)`);
    if (!(await buildIndexes(app.pool, table, columns, { signal: ctx.signal, progress: (f) => ctx.progress(80 + f * 18) }))) throw new JobError("The import was cancelled");
    await ctx.finish(async (tx, emit) => {
      const actor = { userId: ctx.startedBy.userId, userName: ctx.startedBy.userName };
      const dataTable = await tx.dataTable.create({
        data: {
          ...createAudit(actor),
          engagementId: task.engagementId,
          analysisId: task.analysisId,
          logicalName: plan.logicalName,
          type: "imported",
          apiStability: "STABLE",
          columns,
          rowCount: BigInt(rows),
          tableName: table,
        },
      });
      await tx.dataSourceImportTask.update({ where: { id: taskId }, data: { status: "COMPLETE", rowCount: BigInt(rows), dataTableId: dataTable.id, version: { increment: 1 }, lastModifiedDate: new Date() } });
      emit({ type: "data-table.created", entityType: "DATA_TABLE", entityId: dataTable.id, userId: actor.userId, payload: { dataTableId: dataTable.id, analysisId: task.analysisId, logicalName: plan.logicalName } });
      if (plan.origin.kind === "CONNECTION") {
        emit({ type: "connection.data.complete", entityType: "CONNECTION", entityId: plan.origin.connectionId, userId: actor.userId, payload: { connectionId: plan.origin.connectionId, dataSourceImportTaskId: taskId, dataTableId: dataTable.id, status: "COMPLETE", rowCount: rows } });
      }
    });
  },
  async onFailure(ctx, { taskId }, error) {
    await ctx.app.pool.query(`DROP TABLE IF EXISTS ${quoted(tableNameOf(taskId))}`);
    const task = await ctx.app.prisma.dataSourceImportTask.findUnique({ where: { id: taskId } });
    if (!task) return;
    await inTransaction(ctx.app, async (tx, emit) => {
      await tx.dataSourceImportTask.update({ where: { id: taskId }, data: { status: "ERROR", error, version: { increment: 1 }, lastModifiedDate: new Date() } });
      if (task.connectionId) emit({ type: "connection.data.complete", entityType: "CONNECTION", entityId: task.connectionId, userId: ctx.startedBy.userId, payload: { connectionId: task.connectionId, dataSourceImportTaskId: taskId, status: "ERROR", error } });
    });
  },
});
