import { Readable } from "node:stream";
import { ForbiddenError, ValidationError } from "../../core/errors.js";
import { createAudit, findEntity, queryEntities, touchAudit, type Actor, type PageArgs } from "../../entity/index.js";
import { inTransaction, type Emit, type Tx } from "../../events/outbox.js";
import type { RequestContext } from "../../graphql/context.js";
import { onEntriesTableCreated, onEntriesTableDropped } from "../../ingestion/index.js";
import { defineJob, JobError, jobStarter, startJob } from "../../jobs/index.js";
import type { App } from "../../app-types.js";
import { startFileResultJob, writeFileResult } from "../file-results/file-result.service.js";
import { checkPlacement, createFileRow, fileObjectKey, markFileReady } from "../file-manager/file-manager.service.js";
import { dataTableColumns } from "./data-table.columns.js";
import { entriesTableColumns, logicalNameFor, transactionsTableColumns, type DataTableColumn } from "./data-table-definition.js";
import { readDataPage, type DataPage, type DataPageInput, type RowsTable } from "./data-table-rows.js";
import { cachedDefinition, definitionCache, remember, type CachedDefinition } from "./data-table-cache.js";
import { populationSqlFor, savedFilterOn } from "./data-table-filters.js";
import { checkExport, exportCsv, planExport } from "./data-table-export.js";
import type { ExportInput, ImportFromDataTableInput } from "./data-table.inputs.js";
import { indexDataTableJob } from "./data-table.indexes.js";

const ENTITY = "DataTable";

type StoredDataTable = { id: string; engagementId: string; logicalName: string | null; type: string | null; tableName: string; columns: PrismaJson.DataTableColumns; rowCount: bigint | number };

function rowsTable(row: StoredDataTable): RowsTable {
  return { id: row.id, logicalName: row.logicalName, type: row.type, tableName: row.tableName, columns: row.columns, rowCount: Number(row.rowCount) };
}

export function getDataTable(ctx: RequestContext, id: string) {
  return findEntity(ctx.app, "dataTable", ENTITY, id);
}

/** POST /data-tables/query: stable schemas only unless include-unstable-schemas is true (spec 4.3). */
export function queryDataTables(ctx: RequestContext, args: PageArgs & { includeUnstableSchemas?: boolean | null }) {
  const scope = args.includeUnstableSchemas ? undefined : () => "api_stability = 'STABLE'";
  return queryEntities(ctx.app, { model: "dataTable", columns: dataTableColumns, scope }, args);
}

/**
 * The data endpoint: one page of rows, filtered with the query language on the table's own columns;
 * `savedFilterId` adds the saved filter's compiled condition (ANDed with `query`), and
 * `$population` terms are evaluated with each population's condition on the same columns.
 *
 * The definition comes from the process's cache when it holds one (data-table-cache.ts): the rows
 * statement then checks its version itself, so a full page is one round trip. A page that is not
 * full (the last, or empty because the guard failed) or an error re-reads the definition: the same
 * version confirms the answer, another one (or none: 404) means the table changed and the page is
 * read again from the stored definition.
 */
export async function dataTablePage(ctx: RequestContext, id: string, input: DataPageInput & { savedFilterId?: string | null }) {
  const cached = definitionCache(ctx.app).get(id);
  if (cached) {
    let page: DataPage | undefined;
    let failure: unknown;
    try {
      page = await pageOf(ctx, cached, input);
      if (!page.last) return page;
    } catch (error) {
      failure = error;
    }
    const stored = await loadDefinition(ctx, id);
    if (stored.version === cached.version && stored.table.tableName === cached.table.tableName) {
      if (page) return page;
      throw failure;
    }
    return pageOf(ctx, stored, input);
  }
  return pageOf(ctx, await loadDefinition(ctx, id), input);
}

async function loadDefinition(ctx: RequestContext, id: string): Promise<CachedDefinition> {
  const row = await getDataTable(ctx, id);
  const definition = cachedDefinition(row, rowsTable(row));
  remember(ctx.app, definition);
  return definition;
}

async function pageOf(ctx: RequestContext, definition: CachedDefinition, input: DataPageInput & { savedFilterId?: string | null }): Promise<DataPage> {
  const { table, set } = definition;
  let query = input.query;
  if (input.savedFilterId) {
    const saved = await savedFilterOn(ctx, input.savedFilterId, set, table);
    query = input.query === undefined || input.query === null ? saved : { $and: [input.query, saved] };
  }
  const populationSql = await populationSqlFor(ctx, query, set, { ...table, analysisId: definition.analysisId, engagementId: definition.engagementId });
  return readDataPage(ctx.app.pool, table, { ...input, query }, populationSql, { set, guard: { id: definition.id, version: definition.version } });
}

/** Streams an export plan's CSV (shared by the file-result export and the file manager import). */
async function csvOf(app: App, dataTableId: string, input: ExportInput, signal: AbortSignal) {
  const row = await app.prisma.dataTable.findUnique({ where: { id: dataTableId } });
  if (!row) throw new JobError(`Data table ${dataTableId} was deleted before the export ran`);
  const plan = await planExport(app.pool, rowsTable(row), input, app.config.dataTableExportSortLimit);
  return Readable.from(exportCsv(app.pool, plan, signal));
}

interface ExportPayload {
  dataTableId: string;
  input: ExportInput;
}

/** DATA_TABLE_EXPORT targeting a FILE_RESULT: the CSV goes to the file result of the starting token. */
export const exportDataTableJob = defineJob<ExportPayload>({
  name: "data-tables.export",
  type: "DATA_TABLE_EXPORT",
  retry: { attempts: 3, backoffSeconds: 5 },
  async run(ctx, payload) {
    ctx.progress(1, "exporting");
    await writeFileResult(ctx, await csvOf(ctx.app, payload.dataTableId, payload.input, ctx.signal));
  },
});

/** DATA_TABLE_EXPORT targeting a FILE_MANAGER_FILE (import-from-data-table): the file exists, not ready, until the CSV is stored. */
export const importDataTableJob = defineJob<ExportPayload & { outputFileId: string }>({
  name: "data-tables.import-to-file-manager",
  type: "DATA_TABLE_EXPORT",
  retry: { attempts: 3, backoffSeconds: 5 },
  async run(ctx, payload) {
    const source = await csvOf(ctx.app, payload.dataTableId, payload.input, ctx.signal);
    const { size } = await ctx.app.storage.write(fileObjectKey(payload.outputFileId), source, { signal: ctx.signal });
    await ctx.finish(async (tx) => {
      const output = await tx.fileManagerEntity.findUnique({ where: { id: payload.outputFileId }, select: { id: true } });
      if (!output) throw new JobError("The output file was deleted while the export ran");
      await markFileReady(tx, payload.outputFileId, size, ctx.startedBy);
    });
  },
  async onFailure(ctx, payload) {
    // A file that never became readable is removed rather than left behind half made.
    await ctx.app.prisma.fileManagerEntity.deleteMany({ where: { id: payload.outputFileId, ready: false } });
    await ctx.app.storage.delete(fileObjectKey(payload.outputFileId));
  },
});

function exportFileName(row: StoredDataTable): string {
  return `${row.logicalName ?? "data-table"}-${row.id}.csv`;
}

/** POST /data-tables/{id}/export: checks the request at once (400 naming the key), then starts the job. */
export async function exportDataTable(ctx: RequestContext, id: string, input: ExportInput) {
  const row = await getDataTable(ctx, id);
  checkExport(rowsTable(row), input);
  const startedBy = jobStarter(ctx);
  return inTransaction(ctx.app, (tx) =>
    startFileResultJob(tx, { job: exportDataTableJob, payload: { dataTableId: id, input: plainInput(input) }, fileName: exportFileName(row), contentType: "text/csv", startedBy }),
  );
}

/**
 * POST /file-manager/import-from-data-table: the same CSV as the export, stored as a new file of the
 * table's engagement. Answers with the DATA_TABLE_EXPORT async result whose target is the new file.
 */
export async function importFileFromDataTable(ctx: RequestContext, input: ImportFromDataTableInput) {
  if (!ctx.auth?.permissions.has("api.data-tables.read")) {
    throw new ForbiddenError("The token lacks the permission api.data-tables.read", { values: ["api.data-tables.read"] });
  }
  const row = await ctx.prisma.dataTable.findUnique({ where: { id: input.dataTableId } });
  if (!row) throw new ValidationError(`dataTableId ${input.dataTableId} refers to no data table`, { identifier: "dataTableId", values: [input.dataTableId] });
  const engagementId = input.engagementId ?? row.engagementId;
  if (engagementId !== row.engagementId) {
    throw new ValidationError(`Data table ${row.id} belongs to engagement ${row.engagementId}, not ${engagementId}`, { identifier: "engagementId", values: [engagementId] });
  }
  const { dataTableId, engagementId: _e, name, parentFileManagerEntityId, ...exportInput } = input;
  checkExport(rowsTable(row), exportInput);
  if (name !== null && name !== undefined && name.trim() === "") throw new ValidationError("name must not be blank", { identifier: "name", values: [name] });
  await checkPlacement(ctx, engagementId, parentFileManagerEntityId);
  const stem = name ?? row.logicalName ?? "data-table";
  const startedBy = jobStarter(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const file = await createFileRow(tx, emit, { engagementId, parentFileManagerEntityId, name: stem, extension: "csv", originalName: `${stem}.csv`, ready: false }, startedBy);
    return startJob(tx, {
      job: importDataTableJob,
      payload: { dataTableId, input: plainInput(exportInput), outputFileId: file.id },
      entityType: "FILE_MANAGER_FILE",
      entityId: file.id,
      startedBy,
    });
  });
}

/** GraphQL input objects have a null prototype; the job payload is stored as JSON. */
function plainInput(input: ExportInput): ExportInput {
  return JSON.parse(JSON.stringify(input)) as ExportInput;
}

/**
 * The seam with analysis sources (src/ingestion/entries-table-hooks.ts): a parsed entries table,
 * and for journals its transactions table, are published as data tables in the transaction that
 * records the parse, each replacing the source's previous definition of the same name (same id,
 * next version); a definition the new parse no longer has is deleted. Indexes are built by a job
 * per definition after commit.
 */
onEntriesTableCreated(async (tx, emit, actor, event) => {
  const published = [
    { kind: "entries" as const, table: event.table, rowCount: event.rowCount, columns: entriesTableColumns(event.columns) },
    ...(event.transactions ? [{ kind: "transactions" as const, table: event.transactions.table, rowCount: event.transactions.rowCount, columns: transactionsTableColumns(event.transactions.columns) }] : []),
  ];
  const existing = await tx.dataTable.findMany({ where: { analysisSourceId: event.analysisSourceId }, select: { id: true, logicalName: true } });
  const kept = new Set<string>();
  for (const table of published) {
    const { logicalName, apiStability } = logicalNameFor(event.analysisSourceTypeId, table.kind);
    const fields = {
      engagementId: event.engagementId,
      analysisId: event.analysisId,
      logicalName,
      type: table.kind,
      apiStability,
      columns: table.columns,
      rowCount: BigInt(table.rowCount),
      tableName: table.table,
    };
    const previous = existing.find((e) => e.logicalName === logicalName);
    const row = previous
      ? await tx.dataTable.update({ where: { id: previous.id }, data: { ...fields, ...touchAudit(actor), version: { increment: 1 } } })
      : await tx.dataTable.create({ data: { ...createAudit(actor), ...fields, analysisSourceId: event.analysisSourceId } });
    kept.add(row.id);
    emit({
      type: previous ? "data-table.updated" : "data-table.created",
      entityType: "DATA_TABLE",
      entityId: row.id,
      userId: actor.userId,
      payload: { dataTableId: row.id, analysisId: row.analysisId, analysisSourceId: event.analysisSourceId, logicalName },
    });
    await startJob(tx, { job: indexDataTableJob, payload: { dataTableId: row.id }, entityType: "DATA_TABLE", entityId: row.id, startedBy: actor });
  }
  const gone = existing.filter((e) => !kept.has(e.id)).map((e) => e.id);
  if (gone.length > 0) await deleteDefinitions(tx, emit, actor, { analysisId: event.analysisId, analysisSourceId: event.analysisSourceId }, gone);
});

onEntriesTableDropped(async (tx, emit, actor, event) => {
  const rows = await tx.dataTable.findMany({ where: { analysisSourceId: event.analysisSourceId }, select: { id: true } });
  await deleteDefinitions(tx, emit, actor, event, rows.map((r) => r.id));
});

async function deleteDefinitions(tx: Tx, emit: Emit, actor: Actor, event: { analysisId: string; analysisSourceId: string }, ids: string[]): Promise<void> {
  await tx.dataTable.deleteMany({ where: { id: { in: ids } } });
  for (const id of ids) {
    emit({ type: "data-table.deleted", entityType: "DATA_TABLE", entityId: id, userId: actor.userId, payload: { dataTableId: id, analysisId: event.analysisId, analysisSourceId: event.analysisSourceId } });
  }
}

/** A table an analysis result publishes (the engine's `PublishedTable`). */
export interface ResultTableInput {
  key: string;
  logicalName: string;
  type: string;
  apiStability: "STABLE" | "UNSTABLE";
  table: string;
  columns: DataTableColumn[];
  rowCount: number;
  /** Typeahead tables: the (table key, field) columns this table lists the values of. */
  typeaheadFor?: Array<{ table: string; field: string }>;
  /** Its indexes are built already (`buildIndexes` in the run): no index job. */
  indexed?: boolean;
}

/**
 * Publishes an analysis result's tables as data tables (in the transaction that completes the run):
 * typeahead tables first, so the columns they serve carry their `typeaheadDataTableId`, then the
 * others; one `data-table.created` event and one index job per table. Returns the ids by key.
 */
export async function publishResultTables(
  tx: Tx,
  emit: Emit,
  actor: Actor,
  input: { engagementId: string; analysisId: string; analysisResultId: string; tables: ResultTableInput[] },
): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  const ordered = [...input.tables.filter((t) => t.typeaheadFor), ...input.tables.filter((t) => !t.typeaheadFor)];
  for (const table of ordered) {
    const columns = table.columns.map((c) => {
      const typeahead = input.tables.find((t) => t.typeaheadFor?.some((f) => f.table === table.key && f.field === c.field));
      return typeahead && ids[typeahead.key] ? { ...c, typeaheadDataTableId: ids[typeahead.key] } : c;
    });
    const row = await tx.dataTable.create({
      data: {
        ...createAudit(actor),
        engagementId: input.engagementId,
        analysisId: input.analysisId,
        analysisResultId: input.analysisResultId,
        logicalName: table.logicalName,
        type: table.type,
        apiStability: table.apiStability,
        columns,
        rowCount: BigInt(table.rowCount),
        tableName: table.table,
      },
    });
    ids[table.key] = row.id;
    emit({
      type: "data-table.created",
      entityType: "DATA_TABLE",
      entityId: row.id,
      userId: actor.userId,
      payload: { dataTableId: row.id, analysisId: input.analysisId, analysisResultId: input.analysisResultId, logicalName: table.logicalName },
    });
    if (!table.indexed) await startJob(tx, { job: indexDataTableJob, payload: { dataTableId: row.id }, entityType: "DATA_TABLE", entityId: row.id, startedBy: actor });
  }
  return ids;
}
