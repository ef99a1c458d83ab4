import { ConflictError, NotFoundError, ValidationError, type Problem } from "../../core/errors.js";
import { decryptSecret, derivedKey, encryptSecret, type SecretsConfig } from "../../core/secrets.js";

const credentialsKey = (config: SecretsConfig) => derivedKey(config, "warehouse credentials");
import { assertContent, createAudit, findEntity, queryEntities, saveVersioned, type PageArgs } from "../../entity/index.js";
import { inTransaction } from "../../events/outbox.js";
import { actorOf, type RequestContext } from "../../graphql/context.js";
import type { App } from "../../app-types.js";
import type { CreateConnectionInput, CreateWarehouseAuthorizationInput, UpdateWarehouseAuthorizationInput } from "./connection.inputs.js";
import {
  connectionColumns,
  connectionTableColumns,
  connectionTablesResultColumns,
  connectionTestResultColumns,
  warehouseAuthorizationColumns,
} from "./connection.columns.js";
import { WarehouseClient, WarehouseError, warehouseIdOf, type WarehouseCredentials } from "./warehouse-client.js";
import { columnTypeOf, decimalShape, type TabularColumn, type TabularSchema } from "./warehouse-types.js";

const CONNECTION = "Connection";
const AUTHORIZATION = "WarehouseAuthorization";

export function getConnection(ctx: RequestContext, id: string) {
  return findEntity(ctx.app, "connection", CONNECTION, id);
}

export function queryConnections(ctx: RequestContext, args: PageArgs) {
  return queryEntities(ctx.app, { model: "connection", columns: connectionColumns }, args);
}

export async function createConnection(ctx: RequestContext, input: CreateConnectionInput) {
  assertContent(input);
  const type = input.type ?? "WAREHOUSE";
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const connection = await tx.connection.create({ data: { ...createAudit(actor), name: input.name, type, description: input.description ?? null } });
    emit({ type: "connection.created", entityType: "CONNECTION", entityId: connection.id, userId: actor.userId, payload: { connectionId: connection.id } });
    return connection;
  });
}

/** Deleting a connection removes its authorization and tables (cascade); results and entries stay as history. */
export async function deleteConnection(ctx: RequestContext, id: string) {
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const deleted = await tx.connection.deleteMany({ where: { id } });
    if (deleted.count === 0) throw new NotFoundError(CONNECTION, id);
    emit({ type: "connection.deleted", entityType: "CONNECTION", entityId: id, userId: actor.userId, payload: { connectionId: id } });
    return { id };
  });
}

// --- Warehouse authorizations ---

export function getWarehouseAuthorization(ctx: RequestContext, id: string) {
  return findEntity(ctx.app, "warehouseAuthorization", AUTHORIZATION, id);
}

export function queryWarehouseAuthorizations(ctx: RequestContext, args: PageArgs) {
  return queryEntities(ctx.app, { model: "warehouseAuthorization", columns: warehouseAuthorizationColumns }, args);
}

/** Checks the fields one auth type uses (spec 2.7) and returns the secret to store. */
function checkAuthorization(input: CreateWarehouseAuthorizationInput): string {
  const problems: Problem[] = [];
  const missing = (identifier: string) => problems.push({ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier, reason: `${identifier} is required for authType ${input.authType}` });
  if (!/^[A-Za-z0-9.-]+$/.test(input.host)) problems.push({ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier: "host", reason: "host must be a host name without scheme, port or path, e.g. adb-123.4.azuredatabricks.net", values: [input.host] });
  if (!warehouseIdOf(input.httpPath)) problems.push({ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier: "httpPath", reason: "httpPath must name a SQL warehouse, e.g. /sql/1.0/warehouses/abc123", values: [input.httpPath] });
  if (input.port != null && (!Number.isInteger(input.port) || input.port < 1 || input.port > 65535)) problems.push({ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier: "port", reason: "port must be from 1 to 65535", values: [String(input.port)] });
  let secret = "";
  if (input.authType === "PAT") {
    if (!input.accessToken) missing("accessToken");
    secret = JSON.stringify({ accessToken: input.accessToken });
  } else if (input.authType === "OAUTH_M2M") {
    if (!input.clientId) missing("clientId");
    if (!input.clientSecret) missing("clientSecret");
    secret = JSON.stringify({ clientSecret: input.clientSecret });
  }
  if (problems.length > 0) throw ValidationError.of(problems);
  return secret;
}

export async function createWarehouseAuthorization(ctx: RequestContext, input: CreateWarehouseAuthorizationInput) {
  assertContent(input);
  const secret = checkAuthorization(input);
  const connection = await ctx.prisma.connection.findUnique({ where: { id: input.connectionId }, select: { id: true } });
  if (!connection) throw new ValidationError(`connectionId ${input.connectionId} refers to no connection`, { identifier: "connectionId", values: [input.connectionId] });
  const actor = actorOf(ctx);
  const key = credentialsKey(ctx.app.config);
  return inTransaction(ctx.app, async (tx) => {
    // The unique connection_id index decides a race; the lookup gives the usual case a clear message.
    const existing = await tx.warehouseAuthorization.findUnique({ where: { connectionId: input.connectionId }, select: { id: true } });
    if (existing) throw secondAuthorization(input.connectionId, existing.id);
    try {
      return await tx.warehouseAuthorization.create({
        data: {
          ...createAudit(actor),
          connectionId: input.connectionId,
          authType: input.authType,
          host: input.host,
          httpPath: input.httpPath,
          port: input.port ?? null,
          clientId: input.authType === "OAUTH_M2M" ? input.clientId! : null,
          secretCiphertext: encryptSecret(key, secret),
        },
      });
    } catch (error) {
      if ((error as { code?: string }).code === "P2002") throw secondAuthorization(input.connectionId);
      throw error;
    }
  });
}

function secondAuthorization(connectionId: string, existingId?: string) {
  return new ConflictError(`Connection ${connectionId} already has a warehouse authorization${existingId ? ` (${existingId})` : ""}; update or delete it instead`, {
    identifier: "connectionId",
    values: [connectionId],
  });
}

/** PUT /warehouse-auth: the id is in the body. Secrets left out keep their stored value unless the auth type changes. */
export async function updateWarehouseAuthorization(ctx: RequestContext, input: UpdateWarehouseAuthorizationInput) {
  assertContent(input);
  const current = await getWarehouseAuthorization(ctx, input.id);
  if (input.connectionId != null && input.connectionId !== current.connectionId) {
    throw new ValidationError("connectionId cannot change; create an authorization for the other connection", { identifier: "connectionId", values: [input.connectionId] });
  }
  const key = credentialsKey(ctx.app.config);
  const stored = JSON.parse(decryptSecret(key, current.secretCiphertext)) as { accessToken?: string; clientSecret?: string };
  const authType = input.authType ?? current.authType;
  const sameType = authType === current.authType;
  const merged: CreateWarehouseAuthorizationInput = {
    connectionId: current.connectionId,
    authType,
    host: input.host ?? current.host,
    httpPath: input.httpPath ?? current.httpPath,
    port: input.port !== undefined ? input.port : current.port,
    accessToken: input.accessToken ?? (sameType ? stored.accessToken : null),
    clientId: input.clientId ?? (sameType ? current.clientId : null),
    clientSecret: input.clientSecret ?? (sameType ? stored.clientSecret : null),
  };
  const secret = checkAuthorization(merged);
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx) =>
    saveVersioned(
      tx.warehouseAuthorization,
      AUTHORIZATION,
      input.id,
      input.version,
      {
        authType,
        host: merged.host,
        httpPath: merged.httpPath,
        port: merged.port ?? null,
        clientId: authType === "OAUTH_M2M" ? merged.clientId : null,
        secretCiphertext: encryptSecret(key, secret),
      },
      actor,
    ),
  );
}

export async function deleteWarehouseAuthorization(ctx: RequestContext, id: string) {
  const deleted = await ctx.prisma.warehouseAuthorization.deleteMany({ where: { id } });
  if (deleted.count === 0) throw new NotFoundError(AUTHORIZATION, id);
  return { id };
}

/** A client for the connection's warehouse; a connection without an authorization is a 409. */
export async function warehouseClientFor(app: App, connectionId: string): Promise<WarehouseClient> {
  const auth = await app.prisma.warehouseAuthorization.findUnique({ where: { connectionId } });
  if (!auth) throw new ConflictError(`Connection ${connectionId} has no warehouse authorization; POST /warehouse-auth first`, { identifier: "connectionId", values: [connectionId] });
  const secret = JSON.parse(decryptSecret(credentialsKey(app.config), auth.secretCiphertext)) as { accessToken?: string; clientSecret?: string };
  const credentials: WarehouseCredentials = { authType: auth.authType, host: auth.host, httpPath: auth.httpPath, port: auth.port, clientId: auth.clientId, ...secret };
  return new WarehouseClient(credentials, { timeoutMs: app.config.warehouseTimeoutSeconds * 1000, caFile: app.config.warehouseCaFile });
}

// --- Test and discovery ---

/** POST /connections/{id}/test: runs `SELECT 1` on the warehouse; the outcome is recorded either way. */
export async function testConnection(ctx: RequestContext, id: string) {
  await getConnection(ctx, id);
  const client = await warehouseClientFor(ctx.app, id);
  let success = true;
  let message: string;
  try {
    await client.rows("SELECT 1");
    message = "Connection succeeded";
  } catch (error) {
    if (!(error instanceof WarehouseError)) throw error;
    success = false;
    message = error.message;
  }
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const result = await tx.connectionTestResult.create({ data: { ...createAudit(actor), connectionId: id, success, message } });
    emit({ type: "connection.test.complete", entityType: "CONNECTION", entityId: id, userId: actor.userId, payload: { connectionId: id, connectionTestResultId: result.id, success } });
    return result;
  });
}

export const DISCOVERY_STATEMENT =
  "SELECT table_catalog, table_schema, table_name, column_name, data_type, full_data_type, is_nullable, comment, ordinal_position " +
  "FROM system.information_schema.columns WHERE table_schema <> 'information_schema' " +
  "ORDER BY table_catalog, table_schema, table_name, ordinal_position";

/** Groups information_schema.columns rows into tables keyed by `catalog.schema.table`. */
function tablesOf(columns: string[], rows: Array<Array<string | null>>): Map<string, { name: string; schema: TabularSchema }> {
  const at = (name: string) => columns.indexOf(name);
  const [catalog, schema, table, column, dataType, fullType, nullable, comment] = [
    "table_catalog",
    "table_schema",
    "table_name",
    "column_name",
    "data_type",
    "full_data_type",
    "is_nullable",
    "comment",
  ].map(at);
  const tables = new Map<string, { name: string; schema: TabularSchema }>();
  for (const row of rows) {
    const tableId = `${row[catalog]}.${row[schema]}.${row[table]}`;
    let entry = tables.get(tableId);
    if (!entry) tables.set(tableId, (entry = { name: String(row[table]), schema: { displayName: String(row[table]), description: null, columns: [] } }));
    const type = columnTypeOf(String(row[dataType] ?? "STRING"), fullType >= 0 ? row[fullType] : null);
    const shape = type === "DECIMAL" ? decimalShape(fullType >= 0 ? row[fullType] : null) : { precision: null, scale: null };
    const tabular: TabularColumn = {
      name: String(row[column]),
      displayName: String(row[column]),
      description: comment >= 0 ? row[comment] : null,
      columnType: type,
      nullable: String(row[nullable] ?? "YES").toUpperCase() !== "NO",
      precision: shape.precision,
      scale: shape.scale,
    };
    entry.schema.columns.push(tabular);
  }
  return tables;
}

/**
 * POST /connections/{id}/tables: reads the warehouse's information schema and upserts the
 * connection's tables by tableId (spec 2.3): new ones are added, changed ones updated (next
 * version), vanished ones removed. A failing warehouse is recorded in the result and leaves the
 * known tables as they were.
 */
export async function discoverConnectionTables(ctx: RequestContext, id: string) {
  await getConnection(ctx, id);
  const client = await warehouseClientFor(ctx.app, id);
  const actor = actorOf(ctx);
  let found: Map<string, { name: string; schema: TabularSchema }>;
  try {
    const result = await client.rows(DISCOVERY_STATEMENT);
    found = tablesOf(result.columns.map((c) => c.name), result.rows);
  } catch (error) {
    if (!(error instanceof WarehouseError)) throw error;
    return ctx.prisma.connectionTablesResult.create({ data: { ...createAudit(actor), connectionId: id, success: false, message: error.message, totalTables: 0 } });
  }
  return inTransaction(ctx.app, async (tx) => {
    const result = await tx.connectionTablesResult.create({ data: { ...createAudit(actor), connectionId: id, success: true, message: `Found ${found.size} table(s)`, totalTables: found.size } });
    const existing = await tx.connectionTable.findMany({ where: { connectionId: id } });
    const byTableId = new Map(existing.map((t) => [t.tableId, t]));
    const gone = existing.filter((t) => !found.has(t.tableId)).map((t) => t.id);
    if (gone.length > 0) await tx.connectionTable.deleteMany({ where: { id: { in: gone } } });
    const now = new Date();
    for (const [tableId, table] of found) {
      const known = byTableId.get(tableId);
      const schema = table.schema;
      if (!known) {
        await tx.connectionTable.create({ data: { ...createAudit(actor), tablesResultId: result.id, connectionId: id, tableId, name: table.name, schema } });
      } else {
        await tx.connectionTable.update({
          where: { id: known.id },
          data: { tablesResultId: result.id, name: table.name, schema, version: { increment: 1 }, lastModifiedDate: now, lastModifiedUserId: actor.userId, lastModifiedUserName: actor.userName },
        });
      }
    }
    return result;
  });
}

export const getConnectionTestResult = (ctx: RequestContext, id: string) => findEntity(ctx.app, "connectionTestResult", "ConnectionTestResult", id);
export const queryConnectionTestResults = (ctx: RequestContext, args: PageArgs) => queryEntities(ctx.app, { model: "connectionTestResult", columns: connectionTestResultColumns }, args);
export const getConnectionTablesResult = (ctx: RequestContext, id: string) => findEntity(ctx.app, "connectionTablesResult", "ConnectionTablesResult", id);
export const queryConnectionTablesResults = (ctx: RequestContext, args: PageArgs) => queryEntities(ctx.app, { model: "connectionTablesResult", columns: connectionTablesResultColumns }, args);
export const getConnectionTable = (ctx: RequestContext, id: string) => findEntity(ctx.app, "connectionTable", "ConnectionTable", id);
export const queryConnectionTables = (ctx: RequestContext, args: PageArgs) => queryEntities(ctx.app, { model: "connectionTable", columns: connectionTableColumns }, args);

/** Spec 2.7 / 8: connection test results older than 7 days are removed. */
export async function deleteOldTestResults(app: App, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - 7 * 24 * 3600 * 1000);
  const { count } = await app.prisma.connectionTestResult.deleteMany({ where: { creationDate: { lt: cutoff } } });
  return count;
}

