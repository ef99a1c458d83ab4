import { ConflictError, ForbiddenError, NotFoundError, ValidationError, isAppError, type Problem } from "../../core/errors.js";
import { hasAnyPermission } from "../../auth/permissions.js";
import { assertContent, createAudit, findEntity, queryEntities, saveVersioned, type PageArgs } from "../../entity/index.js";
import { inTransaction } from "../../events/outbox.js";
import { actorOf, type RequestContext } from "../../graphql/context.js";
import { jobStarter, startJob } from "../../jobs/index.js";
import type { ConnectionGetDataInput, CreateDataCatalogEntryInput, CreateDataFlowInput, GetDataInput, UpdateDataCatalogEntryInput, UpdateDataFlowInput } from "./catalog.inputs.js";
import { dataCatalogEntryColumns, dataFlowColumns, importTaskColumns } from "./catalog.columns.js";
import { columnProblems, resolveEntry, resolveFlow, resolveSource, type Resolved } from "./catalog.plan.js";
import { importJob, type ImportPlan } from "./catalog.import.js";
import type { TabularColumn, TabularSchema } from "../connections/warehouse-types.js";
import { warehouseClientFor } from "../connections/connection.service.js";

const ENTRY = "DataCatalogEntry";
const FLOW = "DataFlow";

export const getDataCatalogEntry = (ctx: RequestContext, id: string) => findEntity(ctx.app, "dataCatalogEntry", ENTRY, id);
export const queryDataCatalogEntries = (ctx: RequestContext, args: PageArgs) => queryEntities(ctx.app, { model: "dataCatalogEntry", columns: dataCatalogEntryColumns }, args);
export const getDataFlow = (ctx: RequestContext, id: string) => findEntity(ctx.app, "dataFlow", FLOW, id);
export const queryDataFlows = (ctx: RequestContext, args: PageArgs) => queryEntities(ctx.app, { model: "dataFlow", columns: dataFlowColumns }, args);
export const getImportTask = (ctx: RequestContext, id: string) => findEntity(ctx.app, "dataSourceImportTask", "DataSourceImportTask", id);
export const queryImportTasks = (ctx: RequestContext, args: PageArgs) => queryEntities(ctx.app, { model: "dataSourceImportTask", columns: importTaskColumns }, args);

/** Only the fields of the chosen source are kept (a read body of another source may carry nulls). */
function sourceFields(input: Pick<CreateDataCatalogEntryInput, "source" | "dataTableId" | "connectionId" | "tableId" | "dataFlowId">) {
  return {
    dataTableId: input.source === "DATA_TABLE" ? (input.dataTableId ?? null) : null,
    connectionId: input.source === "CONNECTION" ? (input.connectionId ?? null) : null,
    tableId: input.source === "CONNECTION" ? (input.tableId ?? null) : null,
    dataFlowId: input.source === "DATA_FLOW" ? (input.dataFlowId ?? null) : null,
  };
}

/** The stored schema: the entry's columns as resolved (precision from the source, nullable defaulted). */
function storedSchema(schema: Pick<TabularSchema, "displayName" | "description">, resolved: Resolved): TabularSchema {
  return {
    displayName: schema.displayName ?? null,
    description: schema.description ?? null,
    columns: resolved.columns.map(({ from: _from, ...column }) => column),
  };
}

const ENTRY_ARRAYS = ["schema.columns"];
const FLOW_ARRAYS = ["operations", "operations[].remapOperations"];

export async function createDataCatalogEntry(ctx: RequestContext, input: CreateDataCatalogEntryInput) {
  assertContent(input, ENTRY_ARRAYS);
  const fields = sourceFields(input);
  const resolved = await resolveEntry(ctx.app, { ...input, ...fields }, []);
  const actor = actorOf(ctx);
  return ctx.prisma.dataCatalogEntry.create({
    data: { ...createAudit(actor), name: input.name, description: input.description ?? null, source: input.source, ...fields, schema: storedSchema(input.schema, resolved) },
  });
}

export async function updateDataCatalogEntry(ctx: RequestContext, id: string, input: UpdateDataCatalogEntryInput) {
  assertContent(input, ENTRY_ARRAYS);
  const current = await getDataCatalogEntry(ctx, id);
  const source = input.source ?? current.source;
  const sourceChanged = source !== current.source;
  const merged = {
    source,
    dataTableId: input.dataTableId !== undefined ? input.dataTableId : sourceChanged ? null : current.dataTableId,
    connectionId: input.connectionId !== undefined ? input.connectionId : sourceChanged ? null : current.connectionId,
    tableId: input.tableId !== undefined ? input.tableId : sourceChanged ? null : current.tableId,
    dataFlowId: input.dataFlowId !== undefined ? input.dataFlowId : sourceChanged ? null : current.dataFlowId,
  };
  const fields = sourceFields(merged);
  const schema = input.schema ?? current.schema;
  // The entry's own id starts the trail: a source leading back to it is a cycle (spec 7 rule 5).
  const resolved = await resolveEntry(ctx.app, { id, ...fields, source, schema }, []);
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx) =>
    saveVersioned(
      tx.dataCatalogEntry,
      ENTRY,
      id,
      input.version,
      { name: input.name ?? current.name, description: input.description !== undefined ? input.description : current.description, source, ...fields, schema: storedSchema(schema, resolved) },
      actor,
    ),
  );
}

async function refuseInUse(ctx: RequestContext, kind: "entry" | "flow", id: string) {
  const users =
    kind === "entry"
      ? await ctx.prisma.dataFlow.findMany({ where: { inputDataCatalogEntryId: id }, select: { id: true } })
      : await ctx.prisma.dataCatalogEntry.findMany({ where: { dataFlowId: id }, select: { id: true } });
  if (users.length > 0) {
    throw new ConflictError(`${kind === "entry" ? "Data catalog entry" : "Data flow"} ${id} is used by ${users.map((u) => u.id).join(", ")}`, { identifier: "id", values: users.map((u) => u.id), problemType: "CANNOT_DELETE" });
  }
}

export async function deleteDataCatalogEntry(ctx: RequestContext, id: string) {
  await refuseInUse(ctx, "entry", id);
  const deleted = await ctx.prisma.dataCatalogEntry.deleteMany({ where: { id } });
  if (deleted.count === 0) throw new NotFoundError(ENTRY, id);
  return { id };
}

export async function createDataFlow(ctx: RequestContext, input: CreateDataFlowInput) {
  assertContent(input, FLOW_ARRAYS);
  await resolveFlow(ctx.app, { inputDataCatalogEntryId: input.inputDataCatalogEntryId, operations: input.operations }, []);
  const actor = actorOf(ctx);
  return ctx.prisma.dataFlow.create({
    data: { ...createAudit(actor), name: input.name, description: input.description ?? null, inputDataCatalogEntryId: input.inputDataCatalogEntryId, operations: input.operations },
  });
}

export async function updateDataFlow(ctx: RequestContext, id: string, input: UpdateDataFlowInput) {
  assertContent(input, FLOW_ARRAYS);
  const current = await getDataFlow(ctx, id);
  const next = { id, inputDataCatalogEntryId: input.inputDataCatalogEntryId ?? current.inputDataCatalogEntryId, operations: input.operations ?? current.operations };
  // Entries reading this flow must still find their columns in its new output.
  const readers = await ctx.prisma.dataCatalogEntry.findMany({ where: { dataFlowId: id } });
  const output = await resolveFlow(ctx.app, next, []);
  const problems: Problem[] = [];
  for (const reader of readers) {
    for (const p of columnProblems(reader.schema.columns, output.columns).problems) problems.push({ ...p, entityId: reader.id, entityType: "DATA_CATALOG_ENTRY", reason: `Entry ${reader.id}: ${p.reason}` });
  }
  if (problems.length > 0) throw ValidationError.of(problems);
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx) =>
    saveVersioned(
      tx.dataFlow,
      FLOW,
      id,
      input.version,
      {
        name: input.name ?? current.name,
        description: input.description !== undefined ? input.description : current.description,
        inputDataCatalogEntryId: next.inputDataCatalogEntryId,
        operations: next.operations,
      },
      actor,
    ),
  );
}

export async function deleteDataFlow(ctx: RequestContext, id: string) {
  await refuseInUse(ctx, "flow", id);
  const deleted = await ctx.prisma.dataFlow.deleteMany({ where: { id } });
  if (deleted.count === 0) throw new NotFoundError(FLOW, id);
  return { id };
}

/** validate: the stored entry or flow checked against its sources as they are now (they may have changed). */
export interface ValidationReport {
  valid: boolean;
  errors: Problem[];
  columns: TabularColumn[];
}

async function report(work: () => Promise<Resolved>): Promise<ValidationReport> {
  try {
    const resolved = await work();
    return { valid: true, errors: [], columns: resolved.columns.map(({ from: _f, ...c }) => c) };
  } catch (error) {
    if (isAppError(error) && error.status === 400) return { valid: false, errors: error.problems, columns: [] };
    throw error;
  }
}

export async function validateDataCatalogEntry(ctx: RequestContext, id: string) {
  const entry = await getDataCatalogEntry(ctx, id);
  return report(() => resolveEntry(ctx.app, entry, []));
}

export async function validateDataFlow(ctx: RequestContext, id: string) {
  const flow = await getDataFlow(ctx, id);
  return report(() => resolveFlow(ctx.app, { id, inputDataCatalogEntryId: flow.inputDataCatalogEntryId, operations: flow.operations }, []));
}

// --- get-data: imports into a data table through a DATA_SOURCE_IMPORT_TASK ---

function requireDataTablesWrite(ctx: RequestContext) {
  if (!hasAnyPermission(ctx.auth?.permissions, "api.data-tables.write")) throw new ForbiddenError("The token lacks the permission api.data-tables.write", { values: ["api.data-tables.write"] });
}

function checkSort(resolved: Resolved, sort: GetDataInput["sortProperties"]): ImportPlan["sort"] {
  const problems: Problem[] = [];
  const out = (sort ?? []).map((s, i) => {
    const column = resolved.columns.find((c) => c.name === s.field);
    const direction = (s.direction ?? "ASC").toUpperCase();
    if (!column) problems.push({ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier: `sortProperties[${i}].field`, reason: `No column ${s.field} to sort by`, values: [s.field] });
    if (direction !== "ASC" && direction !== "DESC") problems.push({ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier: `sortProperties[${i}].direction`, reason: "direction must be ASC or DESC", values: [direction] });
    return { from: column?.from ?? s.field, direction: direction as "ASC" | "DESC" };
  });
  if (problems.length > 0) throw ValidationError.of(problems);
  return out;
}

async function startImport(ctx: RequestContext, input: GetDataInput, resolved: Resolved, refs: { dataCatalogEntryId?: string; dataFlowId?: string; logicalName: string }) {
  // Blank strings and empty arrays (rule 2.1.5) are refused before anything else, naming the field.
  assertContent(input, ["sortProperties", "columns"]);
  const analysis = await ctx.prisma.analysis.findUnique({ where: { id: input.analysisId }, select: { id: true, engagementId: true } });
  if (!analysis) throw new ValidationError(`analysisId ${input.analysisId} refers to no analysis`, { identifier: "analysisId", values: [input.analysisId] });
  if (resolved.columns.length === 0) throw new ValidationError("Nothing to import: no columns", { identifier: "schema.columns" });
  // A WAREHOUSE connection needs its authorization (spec 2.7): said now, not by a failed task later.
  if (resolved.origin.kind === "CONNECTION") await warehouseClientFor(ctx.app, resolved.origin.connectionId);
  const plan: ImportPlan = { origin: resolved.origin, columns: resolved.columns, sort: checkSort(resolved, input.sortProperties), logicalName: refs.logicalName };
  const startedBy = jobStarter(ctx);
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx) => {
    const task = await tx.dataSourceImportTask.create({
      data: {
        ...createAudit(actor),
        dataCatalogEntryId: refs.dataCatalogEntryId ?? null,
        dataFlowId: refs.dataFlowId ?? null,
        connectionId: plan.origin.kind === "CONNECTION" ? plan.origin.connectionId : null,
        tableId: plan.origin.kind === "CONNECTION" ? plan.origin.tableId : null,
        engagementId: analysis.engagementId,
        analysisId: analysis.id,
        status: "IN_PROGRESS",
        plan,
      },
    });
    return startJob(tx, { job: importJob, payload: { taskId: task.id }, entityType: "DATA_SOURCE_IMPORT_TASK", entityId: task.id, startedBy });
  });
}

const slug = (text: string) => text.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_|_$/g, "").slice(0, 40) || "data";

export async function getDataCatalogEntryData(ctx: RequestContext, id: string, input: GetDataInput) {
  requireDataTablesWrite(ctx);
  const entry = await getDataCatalogEntry(ctx, id);
  const resolved = await resolveEntry(ctx.app, entry, []);
  return startImport(ctx, input, resolved, { dataCatalogEntryId: id, logicalName: `catalog_${slug(input.name ?? entry.name)}` });
}

export async function getDataFlowData(ctx: RequestContext, id: string, input: GetDataInput) {
  requireDataTablesWrite(ctx);
  const flow = await getDataFlow(ctx, id);
  const resolved = await resolveFlow(ctx.app, { id, inputDataCatalogEntryId: flow.inputDataCatalogEntryId, operations: flow.operations }, []);
  return startImport(ctx, input, resolved, { dataFlowId: id, dataCatalogEntryId: flow.inputDataCatalogEntryId, logicalName: `flow_${slug(input.name ?? flow.name)}` });
}

/** POST /connections/{id}/get-data: one discovered table (all columns, or those named) into a data table. */
export async function getConnectionData(ctx: RequestContext, connectionId: string, input: ConnectionGetDataInput) {
  requireDataTablesWrite(ctx);
  if (!hasAnyPermission(ctx.auth?.permissions, "api.connections.read")) throw new ForbiddenError("The token lacks the permission api.connections.read", { values: ["api.connections.read"] });
  assertContent(input, ["sortProperties", "columns"]);
  const connection = await ctx.prisma.connection.findUnique({ where: { id: connectionId }, select: { id: true } });
  if (!connection) throw new NotFoundError("Connection", connectionId);
  const source = await resolveSource(ctx.app, { source: "CONNECTION", connectionId, tableId: input.tableId }, []);
  let resolved = source;
  if (input.columns) {
    const missing = input.columns.filter((name) => !source.columns.some((c) => c.name === name));
    if (missing.length > 0) throw new ValidationError(`The table has no column ${missing.join(", ")}`, { identifier: "columns", values: missing });
    resolved = { origin: source.origin, columns: input.columns.map((name) => source.columns.find((c) => c.name === name)!) };
  }
  return startImport(ctx, input, resolved, { logicalName: `connection_${slug(input.name ?? input.tableId)}` });
}
