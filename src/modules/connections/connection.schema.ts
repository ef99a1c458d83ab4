import { builder } from "../../graphql/builder.js";
import { Entity } from "../common/entity.js";
import { DeleteResult } from "../common/delete-result.js";
import { ColumnType } from "../data-tables/data-table.schema.js";
import { connectionColumns, connectionTableColumns, connectionTablesResultColumns, connectionTestResultColumns, warehouseAuthorizationColumns } from "./connection.columns.js";
import { defineCrudFields } from "../common/crud-fields.js";
import * as service from "./connection.service.js";
import { ConnectionType, CreateConnectionInput, CreateWarehouseAuthorizationInput, UpdateWarehouseAuthorizationInput, WarehouseAuthType } from "./connection.inputs.js";
import type { TabularColumn, TabularSchema as TabularSchemaShape } from "./warehouse-types.js";
import { entityById } from "../common/relations.js";


export const TabularSchemaColumn = builder.objectRef<TabularColumn>("TabularSchemaColumn").implement({
  description: "Spec 2.4: precision is returned on read; scale can be set on create",
  fields: (t) => ({
    name: t.exposeString("name"),
    displayName: t.string({ nullable: true, resolve: (c) => c.displayName ?? null }),
    description: t.string({ nullable: true, resolve: (c) => c.description ?? null }),
    columnType: t.field({ type: ColumnType, resolve: (c) => c.columnType }),
    nullable: t.boolean({ resolve: (c) => c.nullable }),
    precision: t.int({ nullable: true, resolve: (c) => c.precision ?? null }),
    scale: t.int({ nullable: true, resolve: (c) => c.scale ?? null }),
  }),
});

export const TabularSchema = builder.objectRef<TabularSchemaShape>("TabularSchema").implement({
  fields: (t) => ({
    displayName: t.string({ nullable: true, resolve: (s) => s.displayName ?? null }),
    description: t.string({ nullable: true, resolve: (s) => s.description ?? null }),
    columns: t.field({ type: [TabularSchemaColumn], resolve: (s) => s.columns }),
  }),
});

export const Connection = builder.prismaObject("Connection", {
  interfaces: [Entity],
  fields: (t) => ({
    name: t.exposeString("name"),
    type: t.field({ type: ConnectionType, resolve: (c) => c.type }),
    description: t.exposeString("description", { nullable: true }),
    authorization: t.relation("authorization", { nullable: true, authScopes: { permission: "api.connections.read" } }),
    tables: t.relation("tables", { authScopes: { permission: "api.connections.read" }, query: { orderBy: { tableId: "asc" } } }),
  }),
});

export const WarehouseAuthorization = builder.prismaObject("WarehouseAuthorization", {
  interfaces: [Entity],
  description: "Credentials of one connection; accessToken and clientSecret are write-only (encrypted at rest, never returned)",
  fields: (t) => ({
    connectionId: t.exposeID("connectionId"),
    authType: t.field({ type: WarehouseAuthType, resolve: (a) => a.authType }),
    host: t.exposeString("host"),
    httpPath: t.exposeString("httpPath"),
    port: t.exposeInt("port", { nullable: true }),
    clientId: t.exposeString("clientId", { nullable: true }),
    connection: t.prismaField({ type: "Connection", nullable: true, authScopes: { permission: "api.connections.read" }, resolve: (_q, p, _a, ctx) => entityById("connection")(ctx, p.connectionId) }),
  }),
});

export const ConnectionTestResult = builder.prismaObject("ConnectionTestResult", {
  interfaces: [Entity],
  fields: (t) => ({
    connectionId: t.exposeID("connectionId"),
    success: t.exposeBoolean("success"),
    message: t.exposeString("message"),
    connection: t.prismaField({ type: "Connection", nullable: true, authScopes: { permission: "api.connections.read" }, resolve: (_q, p, _a, ctx) => entityById("connection")(ctx, p.connectionId) }),
  }),
});

export const ConnectionTablesResult = builder.prismaObject("ConnectionTablesResult", {
  interfaces: [Entity],
  fields: (t) => ({
    connectionId: t.exposeID("connectionId"),
    success: t.exposeBoolean("success"),
    message: t.exposeString("message", { nullable: true }),
    totalTables: t.exposeInt("totalTables"),
    connection: t.prismaField({ type: "Connection", nullable: true, authScopes: { permission: "api.connections.read" }, resolve: (_q, p, _a, ctx) => entityById("connection")(ctx, p.connectionId) }),
  }),
});

export const ConnectionTable = builder.prismaObject("ConnectionTable", {
  interfaces: [Entity],
  fields: (t) => ({
    tablesResultId: t.exposeID("tablesResultId"),
    connectionId: t.exposeID("connectionId"),
    tableId: t.exposeString("tableId"),
    name: t.exposeString("name"),
    schema: t.field({ type: TabularSchema, resolve: (c) => c.schema }),
    connection: t.relation("connection", { authScopes: { permission: "api.connections.read" } }),
  }),
});

const READ = { permission: "api.connections.read" } as const;
const WRITE = { permission: "api.data-catalog-entries.write" } as const;
const DELETE = { permission: "api.data-catalog-entries.write" } as const;

defineCrudFields({
  name: "Connection",
  type: Connection,
  columns: connectionColumns,
  createInput: CreateConnectionInput,
  permissions: { read: READ.permission, write: WRITE.permission, delete: DELETE.permission },
  service: { get: service.getConnection, query: service.queryConnections, create: service.createConnection, delete: service.deleteConnection },
});

defineCrudFields({ name: "WarehouseAuthorization", type: WarehouseAuthorization, columns: warehouseAuthorizationColumns, permissions: { read: READ.permission }, service: { get: service.getWarehouseAuthorization, query: service.queryWarehouseAuthorizations } });

defineCrudFields({ name: "ConnectionTestResult", type: ConnectionTestResult, columns: connectionTestResultColumns, permissions: { read: READ.permission }, service: { get: service.getConnectionTestResult, query: service.queryConnectionTestResults } });

defineCrudFields({ name: "ConnectionTablesResult", type: ConnectionTablesResult, columns: connectionTablesResultColumns, permissions: { read: READ.permission }, service: { get: service.getConnectionTablesResult, query: service.queryConnectionTablesResults } });

defineCrudFields({ name: "ConnectionTable", type: ConnectionTable, columns: connectionTableColumns, permissions: { read: READ.permission }, service: { get: service.getConnectionTable, query: service.queryConnectionTables } });

builder.mutationFields((t) => ({
  testConnection: t.field({
    type: ConnectionTestResult,
    description: "Runs SELECT 1 on the warehouse and records whether it worked (or why not); emits connection.test.complete",
    authScopes: WRITE,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, { id }, ctx) => service.testConnection(ctx, id),
  }),
  discoverConnectionTables: t.field({
    type: ConnectionTablesResult,
    description: "Reads the warehouse's tables and upserts the connection's tables by tableId",
    authScopes: WRITE,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, { id }, ctx) => service.discoverConnectionTables(ctx, id),
  }),
  createWarehouseAuthorization: t.field({
    type: WarehouseAuthorization,
    description: "At most one per connection (a second is 409)",
    authScopes: WRITE,
    args: { input: t.arg({ type: CreateWarehouseAuthorizationInput, required: true }) },
    resolve: (_r, { input }, ctx) => service.createWarehouseAuthorization(ctx, input),
  }),
  updateWarehouseAuthorization: t.field({
    type: WarehouseAuthorization,
    description: "Secrets left out keep their stored value (unless authType changes)",
    authScopes: WRITE,
    args: { input: t.arg({ type: UpdateWarehouseAuthorizationInput, required: true }) },
    resolve: (_r, { input }, ctx) => service.updateWarehouseAuthorization(ctx, input),
  }),
  deleteWarehouseAuthorization: t.field({ type: DeleteResult, authScopes: DELETE, args: { id: t.arg.id({ required: true }) }, resolve: (_r, { id }, ctx) => service.deleteWarehouseAuthorization(ctx, id) }),
}));
