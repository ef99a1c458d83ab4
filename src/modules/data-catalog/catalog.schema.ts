import { builder } from "../../graphql/builder.js";
import type { Problem } from "../../core/errors.js";
import { Entity } from "../common/entity.js";
import { AsyncResult } from "../async-results/async-result.schema.js";
import { ColumnType } from "../data-tables/data-table.schema.js";
import { getDataTable } from "../data-tables/data-table.service.js";
import { TabularSchema, TabularSchemaColumn } from "../connections/connection.schema.js";
import { ASYNC_STATUSES } from "../../jobs/index.js";
import { CATALOG_SOURCES, dataCatalogEntryColumns, dataFlowColumns, importTaskColumns, OPERATION_TYPES } from "./catalog.columns.js";
import { defineCrudFields } from "../common/crud-fields.js";
import type { RemapOperation } from "./catalog.plan.js";
import * as service from "./catalog.service.js";
import { entityById } from "../common/relations.js";

export const DataCatalogSource = builder.enumType("DataCatalogSource", { values: CATALOG_SOURCES });
export const DataFlowOperationType = builder.enumType("DataFlowOperationType", { values: OPERATION_TYPES });
const ImportStatus = builder.enumType("DataSourceImportStatus", { values: ASYNC_STATUSES });

const RemapPair = builder.objectRef<{ source: string; destination: string }>("RemapOperation").implement({
  fields: (t) => ({ source: t.exposeString("source"), destination: t.exposeString("destination") }),
});

const DataFlowOperation = builder.objectRef<RemapOperation>("DataFlowOperation").implement({
  description: "REMAP: each pair yields `destination` with the values of `source`; a source column is replaced by its pairs (one pair renames, two duplicate, {a -> a} keeps a)",
  fields: (t) => ({
    type: t.field({ type: DataFlowOperationType, resolve: (o) => o.type as never }),
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
    source: t.field({ type: DataCatalogSource, resolve: (e) => e.source as never }),
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

const ColumnInput = builder.inputType("TabularSchemaColumnInput", {
  fields: (t) => ({
    name: t.string({ required: true }),
    displayName: t.string(),
    description: t.string(),
    columnType: t.field({ type: ColumnType, required: true }),
    nullable: t.boolean({ description: "Default: the source column's" }),
    scale: t.int(),
  }),
});

const SchemaInput = builder.inputType("TabularSchemaInput", {
  fields: (t) => ({ displayName: t.string(), description: t.string(), columns: t.field({ type: [ColumnInput], required: true }) }),
});

const RemapPairInput = builder.inputType("RemapOperationInput", { fields: (t) => ({ source: t.string({ required: true }), destination: t.string({ required: true }) }) });
const OperationInput = builder.inputType("DataFlowOperationInput", {
  fields: (t) => ({ type: t.field({ type: DataFlowOperationType, required: true }), remapOperations: t.field({ type: [RemapPairInput], required: true }) }),
});

const entryFields = (t: any, create: boolean) => ({
  name: t.string({ required: create }),
  description: t.string(),
  source: t.field({ type: DataCatalogSource, required: create }),
  dataTableId: t.id({ description: "source DATA_TABLE" }),
  connectionId: t.id({ description: "source CONNECTION" }),
  tableId: t.string({ description: "source CONNECTION: the connection table's tableId" }),
  dataFlowId: t.id({ description: "source DATA_FLOW" }),
  schema: t.field({ type: SchemaInput, required: create, description: "A subset of the source's columns with their exact name and columnType" }),
});
const CreateEntryInput = builder.inputType("CreateDataCatalogEntryInput", { fields: (t) => entryFields(t, true) });
const UpdateEntryInput = builder.inputType("UpdateDataCatalogEntryInput", { fields: (t) => ({ ...entryFields(t, false), version: t.int({ required: true }) }) });

const flowFields = (t: any, create: boolean) => ({
  name: t.string({ required: create }),
  description: t.string(),
  inputDataCatalogEntryId: t.id({ required: create }),
  operations: t.field({ type: [OperationInput], required: create }),
});
const CreateFlowInput = builder.inputType("CreateDataFlowInput", { fields: (t) => flowFields(t, true) });
const UpdateFlowInput = builder.inputType("UpdateDataFlowInput", { fields: (t) => ({ ...flowFields(t, true), version: t.int({ required: true }) }) });

const SortPropertyInput = builder.inputType("SortPropertyInput", { fields: (t) => ({ field: t.string({ required: true }), direction: t.string({ description: "ASC (default) or DESC" }) }) });
const GetDataInput = builder.inputType("GetDataInput", {
  fields: (t) => ({
    analysisId: t.id({ required: true, description: "The analysis the imported data table belongs to" }),
    name: t.string({ description: "Names the data table's logicalName (default: from the entry or flow)" }),
    sortProperties: t.field({ type: [SortPropertyInput], description: "Order of the imported rows" }),
  }),
});
const ConnectionGetDataInput = builder.inputType("ConnectionGetDataInput", {
  fields: (t) => ({
    tableId: t.string({ required: true, description: "A discovered connection table's tableId" }),
    analysisId: t.id({ required: true }),
    name: t.string(),
    columns: t.stringList({ description: "Columns to read (default all)" }),
    sortProperties: t.field({ type: [SortPropertyInput] }),
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
  createInput: CreateEntryInput,
  updateInput: UpdateEntryInput,
  permissions: { read: READ.permission, write: WRITE.permission, delete: DELETE.permission },
  service: {
    get: service.getDataCatalogEntry,
    query: service.queryDataCatalogEntries,
    create: (ctx, input) => service.createDataCatalogEntry(ctx, input as never),
    update: (ctx, id, input) => service.updateDataCatalogEntry(ctx, id, input as never),
    delete: service.deleteDataCatalogEntry,
  },
});

defineCrudFields({
  name: "DataFlow",
  type: DataFlow,
  columns: dataFlowColumns,
  createInput: CreateFlowInput,
  updateInput: UpdateFlowInput,
  permissions: { read: READ.permission, write: WRITE.permission, delete: DELETE.permission },
  service: {
    get: service.getDataFlow,
    query: service.queryDataFlows,
    create: (ctx, input) => service.createDataFlow(ctx, input as never),
    update: (ctx, id, input) => service.updateDataFlow(ctx, id, input as never),
    delete: service.deleteDataFlow,
  },
});

defineCrudFields({ name: "DataSourceImportTask", type: DataSourceImportTask, columns: importTaskColumns, permissions: { read: READ.permission }, service: { get: service.getImportTask, query: service.queryImportTasks } });

builder.mutationFields((t) => ({
  validateDataCatalogEntry: t.field({ type: ValidationReport, description: "Checks the entry against its source as it is now", authScopes: READ, args: { id: t.arg.id({ required: true }) }, resolve: (_r, { id }, ctx) => service.validateDataCatalogEntry(ctx, id) }),
  getDataCatalogEntryData: t.field({ type: AsyncResult, description: GET_DATA_NOTE, authScopes: WRITE, args: { id: t.arg.id({ required: true }), input: t.arg({ type: GetDataInput, required: true }) }, resolve: (_r, { id, input }, ctx) => service.getDataCatalogEntryData(ctx, id, input as never) }),
  validateDataFlow: t.field({ type: ValidationReport, authScopes: READ, args: { id: t.arg.id({ required: true }) }, resolve: (_r, { id }, ctx) => service.validateDataFlow(ctx, id) }),
  getDataFlowData: t.field({ type: AsyncResult, description: GET_DATA_NOTE, authScopes: WRITE, args: { id: t.arg.id({ required: true }), input: t.arg({ type: GetDataInput, required: true }) }, resolve: (_r, { id, input }, ctx) => service.getDataFlowData(ctx, id, input as never) }),
  getConnectionData: t.field({
    type: AsyncResult,
    description: "Imports one discovered table of the connection into a data table (DATA_SOURCE_IMPORT_TASK); needs api.data-tables.write and api.connections.read",
    authScopes: { permission: "api.data-tables.write" },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: ConnectionGetDataInput, required: true }) },
    resolve: (_r, { id, input }, ctx) => service.getConnectionData(ctx, id, input as never),
  }),
}));
