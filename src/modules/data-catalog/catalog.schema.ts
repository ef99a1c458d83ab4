import { builder } from "../../graphql/builder.js";
import type { Problem } from "../../core/errors.js";
import { Entity } from "../common/entity.js";
import { AsyncResult } from "../async-results/async-result.schema.js";
import { getDataTable } from "../data-tables/data-table.service.js";
import { TabularSchema, TabularSchemaColumn } from "../connections/connection.schema.js";
import { ASYNC_STATUSES } from "../../jobs/index.js";
import { dataCatalogEntryColumns, dataFlowColumns, importTaskColumns } from "./catalog.columns.js";
import { ConnectionGetDataInput, CreateDataCatalogEntryInput, CreateDataFlowInput, DataCatalogSource, DataFlowOperationType, GetDataInput, UpdateDataCatalogEntryInput, UpdateDataFlowInput } from "./catalog.inputs.js";
import { defineCrudFields } from "../common/crud-fields.js";
import type { RemapOperation } from "./catalog.plan.js";
import * as service from "./catalog.service.js";
import { entityById } from "../common/relations.js";

const ImportStatus = builder.enumType("DataSourceImportStatus", { values: ASYNC_STATUSES });

const RemapPair = builder.objectRef<{ source: string; destination: string }>("RemapOperation").implement({
  fields: (t) => ({ source: t.exposeString("source"), destination: t.exposeString("destination") }),
});

const DataFlowOperation = builder.objectRef<RemapOperation>("DataFlowOperation").implement({
  description: "REMAP: each pair yields `destination` with the values of `source`; a source column is replaced by its pairs (one pair renames, two duplicate, {a -> a} keeps a)",
  fields: (t) => ({
    type: t.field({ type: DataFlowOperationType, resolve: (o) => o.type }),
    remapOperations: t.field({ type: [RemapPair], resolve: (o) => o.remapOperations }),
  }),
});

export const DataSourceImportTask = builder.prismaObject("DataSourceImportTask", {
  interfaces: [Entity],
  fields: (t) => ({
    dataCatalogEntryId: t.exposeID("dataCatalogEntryId", { nullable: true }),
    dataFlowId: t.exposeID("dataFlowId", { nullable: true }),
    connectionId: t.exposeID("connectionId", { nullable: true }),
    tableId: t.exposeString("tableId", { nullable: true }),
    engagementId: t.exposeID("engagementId"),
    analysisId: t.exposeID("analysisId"),
    status: t.field({ type: ImportStatus, resolve: (i) => i.status }),
    error: t.exposeString("error", { nullable: true }),
    rowCount: t.field({ type: "Long", resolve: (i) => i.rowCount }),
    dataTableId: t.exposeID("dataTableId", { nullable: true }),
    dataTable: t.prismaField({
      type: "DataTable",
      nullable: true,
      authScopes: { permission: "api.data-tables.read" },
      resolve: (_q, task, _a, ctx) => (task.dataTableId ? getDataTable(ctx, task.dataTableId).catch(() => null) : null),
    }),
    dataCatalogEntry: t.prismaField({ type: "DataCatalogEntry", nullable: true, authScopes: { permission: "api.connections.read" }, resolve: (_q, p, _a, ctx) => entityById("dataCatalogEntry")(ctx, p.dataCatalogEntryId) }),
    dataFlow: t.prismaField({ type: "DataFlow", nullable: true, authScopes: { permission: "api.connections.read" }, resolve: (_q, p, _a, ctx) => entityById("dataFlow")(ctx, p.dataFlowId) }),
    connection: t.prismaField({ type: "Connection", nullable: true, authScopes: { permission: "api.connections.read" }, resolve: (_q, p, _a, ctx) => entityById("connection")(ctx, p.connectionId) }),
    engagement: t.prismaField({ type: "Engagement", nullable: true, authScopes: { permission: "api.engagements.read" }, resolve: (_q, p, _a, ctx) => entityById("engagement")(ctx, p.engagementId) }),
    analysis: t.prismaField({ type: "Analysis", nullable: true, authScopes: { permission: "api.analyses.read" }, resolve: (_q, p, _a, ctx) => entityById("analysis")(ctx, p.analysisId) }),
  }),
});

export const DataCatalogEntry = builder.prismaObject("DataCatalogEntry", {
  interfaces: [Entity],
  fields: (t) => ({
    name: t.exposeString("name"),
    description: t.exposeString("description", { nullable: true }),
    source: t.field({ type: DataCatalogSource, resolve: (e) => e.source }),
    dataTableId: t.exposeID("dataTableId", { nullable: true }),
    connectionId: t.exposeID("connectionId", { nullable: true }),
    tableId: t.exposeString("tableId", { nullable: true }),
    dataFlowId: t.exposeID("dataFlowId", { nullable: true }),
    schema: t.field({ type: TabularSchema, resolve: (e) => e.schema }),
    importTasks: t.prismaField({
      type: ["DataSourceImportTask"],
      authScopes: { permission: "api.connections.read" },
      resolve: (query, entry, _a, ctx) => ctx.prisma.dataSourceImportTask.findMany({ ...query, where: { dataCatalogEntryId: entry.id }, orderBy: { creationDate: "asc" } }),
    }),
    dataTable: t.prismaField({ type: "DataTable", nullable: true, authScopes: { permission: "api.data-tables.read" }, resolve: (_q, p, _a, ctx) => entityById("dataTable")(ctx, p.dataTableId) }),
    connection: t.prismaField({ type: "Connection", nullable: true, authScopes: { permission: "api.connections.read" }, resolve: (_q, p, _a, ctx) => entityById("connection")(ctx, p.connectionId) }),
    dataFlow: t.prismaField({ type: "DataFlow", nullable: true, authScopes: { permission: "api.connections.read" }, resolve: (_q, p, _a, ctx) => entityById("dataFlow")(ctx, p.dataFlowId) }),
  }),
});

export const DataFlow = builder.prismaObject("DataFlow", {
  interfaces: [Entity],
  fields: (t) => ({
    name: t.exposeString("name"),
    description: t.exposeString("description", { nullable: true }),
    inputDataCatalogEntryId: t.exposeID("inputDataCatalogEntryId"),
    operations: t.field({ type: [DataFlowOperation], resolve: (f) => f.operations }),
    inputDataCatalogEntry: t.prismaField({ type: "DataCatalogEntry", nullable: true, authScopes: { permission: "api.connections.read" }, resolve: (_q, p, _a, ctx) => entityById("dataCatalogEntry")(ctx, p.inputDataCatalogEntryId) }),
  }),
});

builder.prismaObjectField("ConnectionTable", "dataCatalogEntries", (t) =>
  t.prismaField({
    type: ["DataCatalogEntry"],
    authScopes: { permission: "api.connections.read" },
    resolve: (query, table, _a, ctx) => ctx.prisma.dataCatalogEntry.findMany({ ...query, where: { connectionId: table.connectionId, tableId: table.tableId }, orderBy: { creationDate: "asc" } }),
  }),
);

const ValidationProblem = builder.objectRef<Problem>("CatalogValidationProblem").implement({
  fields: (t) => ({
    problemType: t.string({ resolve: (p) => p.problemType }),
    severity: t.string({ resolve: (p) => p.severity }),
    identifier: t.string({ nullable: true, resolve: (p) => p.identifier ?? null }),
    reason: t.string({ resolve: (p) => p.reason }),
    values: t.stringList({ nullable: true, resolve: (p) => p.values ?? null }),
    suggestedValues: t.stringList({ nullable: true, resolve: (p) => p.suggestedValues ?? null }),
  }),
});

const ValidationReport = builder.objectRef<service.ValidationReport>("CatalogValidationReport").implement({
  fields: (t) => ({
    valid: t.exposeBoolean("valid"),
    errors: t.field({ type: [ValidationProblem], resolve: (r) => r.errors }),
    columns: t.field({ type: [TabularSchemaColumn], resolve: (r) => r.columns }),
  }),
});

const READ = { permission: "api.connections.read" } as const;
const WRITE = { permission: "api.data-catalog-entries.write" } as const;
const DELETE = { permission: "api.data-catalog-entries.write" } as const;
const GET_DATA_NOTE = "Starts a DATA_SOURCE_IMPORT_TASK (async result; target the import task) importing into a data table; also needs api.data-tables.write";

defineCrudFields({
  name: "DataCatalogEntry",
  plural: "dataCatalogEntries",
  type: DataCatalogEntry,
  columns: dataCatalogEntryColumns,
  createInput: CreateDataCatalogEntryInput,
  updateInput: UpdateDataCatalogEntryInput,
  permissions: { read: READ.permission, write: WRITE.permission, delete: DELETE.permission },
  service: {
    get: service.getDataCatalogEntry,
    query: service.queryDataCatalogEntries,
    create: service.createDataCatalogEntry,
    update: service.updateDataCatalogEntry,
    delete: service.deleteDataCatalogEntry,
  },
});

defineCrudFields({
  name: "DataFlow",
  type: DataFlow,
  columns: dataFlowColumns,
  createInput: CreateDataFlowInput,
  updateInput: UpdateDataFlowInput,
  permissions: { read: READ.permission, write: WRITE.permission, delete: DELETE.permission },
  service: {
    get: service.getDataFlow,
    query: service.queryDataFlows,
    create: service.createDataFlow,
    update: service.updateDataFlow,
    delete: service.deleteDataFlow,
  },
});

defineCrudFields({ name: "DataSourceImportTask", type: DataSourceImportTask, columns: importTaskColumns, permissions: { read: READ.permission }, service: { get: service.getImportTask, query: service.queryImportTasks } });

builder.mutationFields((t) => ({
  validateDataCatalogEntry: t.field({ type: ValidationReport, description: "Checks the entry against its source as it is now", authScopes: READ, args: { id: t.arg.id({ required: true }) }, resolve: (_r, { id }, ctx) => service.validateDataCatalogEntry(ctx, id) }),
  getDataCatalogEntryData: t.field({ type: AsyncResult, description: GET_DATA_NOTE, authScopes: WRITE, args: { id: t.arg.id({ required: true }), input: t.arg({ type: GetDataInput, required: true }) }, resolve: (_r, { id, input }, ctx) => service.getDataCatalogEntryData(ctx, id, input) }),
  validateDataFlow: t.field({ type: ValidationReport, authScopes: READ, args: { id: t.arg.id({ required: true }) }, resolve: (_r, { id }, ctx) => service.validateDataFlow(ctx, id) }),
  getDataFlowData: t.field({ type: AsyncResult, description: GET_DATA_NOTE, authScopes: WRITE, args: { id: t.arg.id({ required: true }), input: t.arg({ type: GetDataInput, required: true }) }, resolve: (_r, { id, input }, ctx) => service.getDataFlowData(ctx, id, input) }),
  getConnectionData: t.field({
    type: AsyncResult,
    description: "Imports one discovered table of the connection into a data table (DATA_SOURCE_IMPORT_TASK); needs api.data-tables.write and api.connections.read",
    authScopes: { permission: "api.data-tables.write" },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: ConnectionGetDataInput, required: true }) },
    resolve: (_r, { id, input }, ctx) => service.getConnectionData(ctx, id, input),
  }),
}));
