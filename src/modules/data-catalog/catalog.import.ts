import { pipeline } from "node:stream/promises";
import { Readable } from "node:stream";
import { from as copyFrom } from "pg-copy-streams";
import { createAudit } from "../../entity/index.js";
import { inTransaction } from "../../events/outbox.js";
import { defineJob, JobError } from "../../jobs/index.js";
import { quoteIdent } from "../../query-language/index.js";
import type { DataTableColumn } from "../data-tables/data-table-definition.js";
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

/** Query-language flags of an imported column: keys and text searchable by equality and prefix, numbers and dates by range. */
function dataTableColumn(column: PlanColumn, index: number): DataTableColumn {
  const base = { field: column.name, type: column.columnType as DataTableColumn["type"], sql: `c${index}`, originalName: column.from, platformField: null, nullable: column.nullable, typeaheadDataTableId: null, indexed: false };
  const none = { equalitySearch: false, rangeSearch: false, containsSearch: false, allowCaseInsensitiveSubstringSearch: false, caseInsensitivePrefixSearch: false, keywordSearch: false, filterOnly: false, sortable: false };
  switch (column.columnType) {
    case "STRING":
      return { ...base, ...none, equalitySearch: true, caseInsensitivePrefixSearch: true, allowCaseInsensitiveSubstringSearch: true, sortable: true };
    case "DATE":
    case "DATE_TIME":
    case "INT16":
    case "INT32":
    case "INT64":
    case "FLOAT32":
    case "FLOAT64":
    case "MONEY_100":
    case "DECIMAL":
      return { ...base, ...none, equalitySearch: true, rangeSearch: true, sortable: true };
    case "BOOLEAN":
      return { ...base, ...none, equalitySearch: true, sortable: true };
    default:
      return { ...base, ...none };
  }
}

const ROWID: DataTableColumn = {
  field: "rowid",
  type: "INT64",
  sql: "row_no",
  originalName: null,
  platformField: null,
  nullable: false,
  typeaheadDataTableId: null,
  indexed: true,
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
    const columnsSql = plan.columns.map((c, i) => `${quoteIdent(`c${i}`)} ${sqlTypeOf(c)}`).join(", ");
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
        const chunks = client.chunks(statement, ctx.signal);
        async function* lines() {
          for await (const chunk of chunks) {
            let text = "";
            for (const row of chunk.rows) {
              rows += 1;
              text += `${rows}\t${row.map(copyValue).join("\t")}\n`;
            }
            if (text) yield text;
            ctx.progress(Math.min(95, 5 + rows / 20000));
          }
        }
        const pg = await app.pool.connect();
        try {
          const target = pg.query(copyFrom(`COPY ${quoted(table)} (row_no, ${plan.columns.map((_c, i) => quoteIdent(`c${i}`)).join(", ")}) FROM STDIN`));
          await pipeline(Readable.from(lines()), target);
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
      if ((error as { code?: string }).code?.startsWith("22")) throw new JobError(`A value does not fit its column type: ${(error as Error).message}`);
      throw error;
    }
    await app.pool.query(`CREATE UNIQUE INDEX ON ${quoted(table)} (row_no)`);
    await app.pool.query(`ANALYZE ${quoted(table)}`);
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
          columns: [ROWID, ...plan.columns.map(dataTableColumn)],
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
