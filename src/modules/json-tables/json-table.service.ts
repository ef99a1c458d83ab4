import { Readable } from "node:stream";
import { ConflictError, NotFoundError, ValidationError, type Problem } from "../../core/errors.js";
import { createAudit, findEntity } from "../../core/entity/index.js";
import { actorOf, type RequestContext } from "../../graphql/context.js";
import type { App } from "../../app-services.js";
import { batched, csvLine } from "../../tabular/csv-writer.js";
import { utf8Lines } from "../../tabular/lines.js";
import { createFileFromStream, type PlacementInput } from "../file-manager/file-manager.service.js";

const ENTITY = "JsonTable";
/** Spec 8: JSON tables older than 7 days are deleted. */
export const JSON_TABLE_RETENTION_DAYS = 7;
const RETENTION_MS = JSON_TABLE_RETENTION_DAYS * 24 * 3600 * 1000;
/** Keys of the read model, ignored when a read body comes back as a create body (spec 2.1). */
const READ_KEYS = new Set(["id", "version", "creationDate", "lastModifiedDate", "createdUserInfo", "lastModifiedUserInfo", "headers", "currentSize"]);

export function jsonTablePageKey(id: string, page: number): string {
  return `json-tables/${id}/${String(page).padStart(6, "0")}`;
}

export async function getJsonTable(ctx: RequestContext | App, id: string) {
  const app = "app" in ctx ? ctx.app : ctx;
  const table = await findEntity(app, "jsonTable", ENTITY, id);
  if (table.creationDate.getTime() < Date.now() - RETENTION_MS) throw new NotFoundError(ENTITY, id);
  return table;
}

/** POST /json-tables with `{}`: an empty table (`headers` [], `currentSize` 0). */
export async function createJsonTable(ctx: RequestContext, input: unknown) {
  if (input !== undefined && input !== null && (typeof input !== "object" || Array.isArray(input))) {
    throw new ValidationError("The body must be a JSON object, e.g. {}", { identifier: "body", problemType: "INCORRECT_DATA_TYPE" });
  }
  const unknown = Object.keys((input ?? {}) as object).filter((key) => !READ_KEYS.has(key));
  if (unknown.length > 0) {
    throw ValidationError.of(unknown.map((key) => ({ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier: key, reason: `${key} is not a property of this model`, values: [key] })));
  }
  return ctx.prisma.jsonTable.create({ data: createAudit(actorOf(ctx)) });
}

function checkRows(rows: unknown): Array<Record<string, unknown>> {
  if (!Array.isArray(rows)) throw new ValidationError("The body must be a JSON array of row objects", { identifier: "body", problemType: "INCORRECT_DATA_TYPE" });
  if (rows.length === 0) throw new ValidationError("A page needs at least one row", { identifier: "body" });
  const problems: Problem[] = [];
  rows.forEach((row, index) => {
    if (typeof row !== "object" || row === null || Array.isArray(row)) problems.push({ problemType: "INCORRECT_DATA_TYPE", severity: "ERROR", identifier: `[${index}]`, reason: `[${index}] must be an object of column: value` });
    else if (Object.keys(row).length === 0) problems.push({ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier: `[${index}]`, reason: `[${index}] needs at least one key` });
  });
  if (problems.length > 0) throw ValidationError.of(problems.slice(0, 20));
  return rows as Array<Record<string, unknown>>;
}

/**
 * Appends one page. Pages are sequential (spec 8): the table row is locked without waiting, so a
 * second append arriving while one is being stored is refused with 409 instead of queueing.
 */
export async function appendJsonTable(ctx: RequestContext, id: string, body: unknown) {
  const rows = checkRows(body);
  const actor = actorOf(ctx);
  const client = await ctx.app.pool.connect();
  try {
    await client.query("BEGIN");
    let locked;
    try {
      locked = await client.query<{ headers: string[]; page_count: number; creation_date: Date }>(
        "SELECT headers, page_count, creation_date FROM json_table WHERE id = $1 FOR UPDATE NOWAIT",
        [id],
      );
    } catch (error) {
      if ((error as { code?: string }).code === "55P03") {
        throw new ConflictError(`Another page of JSON table ${id} is being appended; pages are uploaded one at a time, send this one when the other has finished`, {
          entityId: id,
          entityType: ENTITY,
        });
      }
      throw error;
    }
    const table = locked.rows[0];
    if (!table || table.creation_date.getTime() < Date.now() - RETENTION_MS) throw new NotFoundError(ENTITY, id);
    const headers = [...table.headers];
    const known = new Set(headers);
    for (const row of rows) for (const key of Object.keys(row)) if (!known.has(key)) (known.add(key), headers.push(key));
    const page = table.page_count;
    const { size } = await ctx.app.storage.write(jsonTablePageKey(id, page), Readable.from(batched(rows.map((row) => JSON.stringify(row) + "\n"))));
    await client.query(
      `UPDATE json_table SET headers = $2, current_size = current_size + $3, page_count = page_count + 1, row_count = row_count + $4,
         version = version + 1, last_modified_date = now(), last_modified_user_id = $5, last_modified_user_name = $6 WHERE id = $1`,
      [id, headers, size, rows.length, actor.userId, actor.userName],
    );
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
  return getJsonTable(ctx, id);
}

/**
 * All pages as CSV, streamed: the header is every key in order of first appearance; a row lacking
 * a key gets an empty value. Only the pages appended when the export began are read.
 */
export function jsonTableCsv(app: App, table: { id: string; headers: string[]; pageCount: number }): Readable {
  const { headers } = table;
  async function* lines() {
    yield csvLine(headers);
    for (let page = 0; page < table.pageCount; page++) {
      for await (const line of utf8Lines(app.storage.read(jsonTablePageKey(table.id, page)))) {
        if (line === "") continue;
        const row = JSON.parse(line) as Record<string, unknown>;
        yield csvLine(headers.map((key) => row[key]));
      }
    }
  }
  return Readable.from(batched(lines()));
}

/** POST /file-manager/import-from-json-table: the table's rows become a CSV file. */
export async function importFileFromJsonTable(ctx: RequestContext, input: PlacementInput & { jsonTableId: string; name: string }) {
  const table = await getJsonTable(ctx, input.jsonTableId).catch((error) => {
    if (error instanceof NotFoundError) throw new ValidationError(`jsonTableId ${input.jsonTableId} refers to no JSON table (or one older than 7 days)`, { identifier: "jsonTableId", values: [input.jsonTableId] });
    throw error;
  });
  if (table.pageCount === 0) throw new ValidationError(`JSON table ${table.id} has no rows yet; append pages first`, { identifier: "jsonTableId", values: [table.id] });
  return createFileFromStream(ctx, { ...input, fileName: `${input.name}.csv` }, () => jsonTableCsv(ctx.app, table));
}

/** Removes JSON tables past their 7 days, with their pages. */
export async function deleteExpiredJsonTables(app: App): Promise<number> {
  const cutoff = new Date(Date.now() - RETENTION_MS);
  const expired = await app.prisma.jsonTable.findMany({ where: { creationDate: { lt: cutoff } }, select: { id: true } });
  for (const { id } of expired) {
    // Bytes first: once the row is gone, nothing of the table is left.
    await app.storage.deletePrefix(`json-tables/${id}`);
    await app.prisma.jsonTable.deleteMany({ where: { id } });
  }
  return expired.length;
}
