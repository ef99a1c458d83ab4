import { Readable } from "node:stream";
import { ConflictError, NotFoundError, ValidationError, type Problem } from "../../core/errors.js";
import { createAudit, findEntity } from "../../entity/index.js";
import { actorOf, type RequestContext } from "../../graphql/context.js";
import type { App } from "../../app-types.js";
import { batched, csvLine } from "../../tabular/csv-writer.js";
import { inPgTransaction } from "../../db/pg-transaction.js";
import { findDuplicateKey, parseJsonBody } from "../../core/json-body.js";
import { jsonArrayElements } from "../../core/json-array-stream.js";
import { compactJson, decodeJsonString, forEachMember, JsonKind } from "../../core/json-text.js";
import { claimForRequest, claimFreeInTransaction } from "../../requests/request-claim.js";
import { takeUpload } from "../../requests/uploads.js";
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

/**
 * 404 once past its 7 days, and for any token but the one that created it (its API token user):
 * a table being filled belongs to whoever started it, and nobody else may read, extend or import it.
 */
export async function getJsonTable(ctx: RequestContext, id: string) {
  const table = await findEntity(ctx.app, "jsonTable", ENTITY, id);
  if (table.creationDate.getTime() < Date.now() - RETENTION_MS || table.createdUserId !== ctx.auth?.userId) throw new NotFoundError(ENTITY, id);
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

const NOT_ARRAY = "The body must be a JSON array of row objects";

function notArray(): ValidationError {
  return new ValidationError(NOT_ARRAY, { identifier: "body", problemType: "INCORRECT_DATA_TYPE" });
}

/** Why a page element is not a row (an object with at least one key), if it is not. */
function rowProblem(row: unknown, index: number): Problem | undefined {
  if (typeof row !== "object" || row === null || Array.isArray(row)) return { problemType: "INCORRECT_DATA_TYPE", severity: "ERROR", identifier: `[${index}]`, reason: `[${index}] must be an object of column: value` };
  for (const _key in row) return undefined;
  return { problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier: `[${index}]`, reason: `[${index}] needs at least one key` };
}

/** At most this many bad rows are named in one answer. */
const MAX_PROBLEMS = 20;

/** One element of a page: its JSON source text and its index in the page. */
interface PageElement {
  index: number;
  text: string;
}

/**
 * Turns a page's elements into its stored NDJSON lines, one row at a time, collecting the headers
 * in order of first appearance. A row is stored as the sender's own text (only the whitespace
 * between tokens removed), never as JSON.stringify(JSON.parse(text)): parsing would move
 * integer-like keys ("2023") to the front of the object and turn numbers into doubles
 * (12345678901234567890 -> 12345678901234567000, 1.10 -> 1.1), and both the header order and the
 * values of the merged CSV must be what was sent. JSON.parse only vouches for the syntax here.
 *
 * A syntax error or a repeated key fails at once; rows that are not objects with a key are all
 * named (up to MAX_PROBLEMS) once the page is read. The write then fails, so nothing of the page
 * is stored.
 */
async function* pageLines(elements: AsyncIterable<PageElement> | Iterable<PageElement>, page: { headers: string[]; rows: number }) {
  const known = new Set(page.headers);
  const problems: Problem[] = [];
  for await (const { index, text } of elements) {
    let row: unknown;
    try {
      row = JSON.parse(text);
    } catch (error) {
      throw new ValidationError(`Request body is not valid JSON: array element ${index}: ${(error as Error).message}`, { problemType: "INCORRECT_DATA_TYPE", identifier: `[${index}]` });
    }
    const problem = rowProblem(row, index);
    if (problem) {
      if (problems.length < MAX_PROBLEMS) problems.push(problem);
      continue;
    }
    const duplicate = findDuplicateKey(text);
    if (duplicate) {
      throw new ValidationError(`Key "${duplicate.key}" appears more than once in the same object; use $and, $or or a set operator to apply a column twice`, {
        identifier: `[${index}]${duplicate.path.startsWith("[") ? "" : "."}${duplicate.path}`,
        values: [duplicate.key],
      });
    }
    if (problems.length > 0) continue;
    const line = compactJson(text);
    forEachMember(line, (key) => {
      if (!known.has(key)) (known.add(key), page.headers.push(key));
    });
    page.rows++;
    yield line + "\n";
  }
  if (problems.length > 0) throw ValidationError.of(problems);
  if (page.rows === 0) throw new ValidationError("A page needs at least one row", { identifier: "body" });
}

/** Elements of a page given as JSON text (a staged request body), split one element at a time. */
function pageElements(source: AsyncIterable<Buffer | Uint8Array>): AsyncIterable<PageElement> {
  return jsonArrayElements(source, (text) => {
    // Not an array: the whole body is at hand (within the body limit) to say what it is instead.
    const value = text.trim() === "" ? null : parseJsonBody(text);
    throw value === null ? new ValidationError(NOT_ARRAY, { identifier: "body", problemType: "INCORRECT_DATA_TYPE", values: ["null"] }) : notArray();
  });
}

/**
 * Appends one page. Pages are sequential (spec 8): the table row is locked without waiting, so a
 * second append arriving while one is being stored is refused with 409 instead of queueing. The
 * page is written as it is read; a bad row fails the write, and with it the whole page.
 */
const appendClaim = (id: string) => `json-table-append:${id}`;

function appendInProgress(id: string): ConflictError {
  return new ConflictError(`Another page of JSON table ${id} is being appended; pages are uploaded one at a time, send this one when the other has finished`, {
    entityId: id,
    entityType: ENTITY,
  });
}

/**
 * REST append: the table is claimed before its page's bytes are read, so a second page sent while
 * the first is still arriving is refused at once (409) instead of both being accepted.
 */
export async function claimJsonTableAppend(ctx: RequestContext, id: string): Promise<() => Promise<void>> {
  await getJsonTable(ctx, id);
  const release = await claimForRequest(ctx, appendClaim(id));
  if (!release) throw appendInProgress(id);
  return release;
}

async function appendPage(ctx: RequestContext, id: string, elements: Parameters<typeof pageLines>[0]) {
  const actor = actorOf(ctx);
  await inPgTransaction(ctx.app.pool, async (client) => {
    let locked;
    try {
      locked = await client.query<{ headers: string[]; page_count: number; creation_date: Date; created_user_id: string | null }>(
        "SELECT headers, page_count, creation_date, created_user_id FROM json_table WHERE id = $1 FOR UPDATE NOWAIT",
        [id],
      );
    } catch (error) {
      if ((error as { code?: string }).code === "55P03") throw appendInProgress(id);
      throw error;
    }
    if (!(await claimFreeInTransaction(ctx, client, appendClaim(id)))) throw appendInProgress(id);
    const table = locked.rows[0];
    if (!table || table.creation_date.getTime() < Date.now() - RETENTION_MS || table.created_user_id !== actor.userId) throw new NotFoundError(ENTITY, id);
    const page = { headers: [...table.headers], rows: 0 };
    const { size } = await ctx.app.storage.write(jsonTablePageKey(id, table.page_count), Readable.from(batched(pageLines(elements, page))));
    await client.query(
      `UPDATE json_table SET headers = $2, current_size = current_size + $3, page_count = page_count + 1, row_count = row_count + $4,
         version = version + 1, last_modified_date = now(), last_modified_user_id = $5, last_modified_user_name = $6 WHERE id = $1`,
      [id, page.headers, size, page.rows, actor.userId, actor.userName],
    );
  });
  return getJsonTable(ctx, id);
}

/**
 * GraphQL: the page is either `rowsText`, the page's JSON text, read exactly like a REST body (key
 * order and number tokens as written), or `rows`, a JSON value the GraphQL transport has already
 * parsed: its key order is JavaScript's (integer-like keys first) and its numbers are doubles, which
 * nothing here can undo.
 */
export async function appendJsonTable(ctx: RequestContext, id: string, page: { rows?: unknown; rowsText?: string | null }) {
  const hasRows = page.rows !== undefined && page.rows !== null;
  const hasText = page.rowsText !== undefined && page.rowsText !== null;
  if (hasRows === hasText) {
    throw new ValidationError("Send the page as exactly one of rows (a JSON array) and rowsText (the array as JSON text)", { identifier: "rows", suggestedValues: ["rows", "rowsText"] });
  }
  if (hasText) return appendPage(ctx, id, pageElements(Readable.from([Buffer.from(page.rowsText!, "utf8")])));
  const body = page.rows;
  if (!Array.isArray(body)) throw notArray();
  if (body.length === 0) throw new ValidationError("A page needs at least one row", { identifier: "body" });
  return appendPage(ctx, id, body.map((row, index) => ({ index, text: JSON.stringify(row) })));
}

/**
 * REST: the page is the request body of POST /json-tables/{id}/append, staged in storage as it
 * arrived and read back here one row at a time, so a page of any size costs little memory.
 */
export async function appendJsonTableFromBody(ctx: RequestContext, id: string, pageId: string) {
  const staged = takeUpload(ctx, pageId, "page", `/json-tables/${id}/append`);
  return appendPage(ctx, id, pageElements(ctx.app.storage.read(staged.key)));
}

/**
 * All pages as CSV, streamed: the header is every key in order of first appearance; a row lacking
 * a key gets an empty value. Only the pages appended when the export began are read.
 *
 * Lines are read as text, not parsed: a number goes into the CSV as the token that was sent
 * (12345678901234567890 stays that, 1.10 stays 1.10), `true`/`false` as written, a string as its
 * content, null as an empty value, and a nested object or array as its JSON text.
 *
 * Each chunk read from a page is converted in one synchronous pass into one output buffer: rows
 * then die young, whereas handing every line through async generators kept enough of them alive
 * across scavenges to grow the old generation by ~50 MB over a million rows.
 */
export function jsonTableCsv(app: App, table: { id: string; headers: string[]; pageCount: number }): Readable {
  const { headers } = table;
  const position = new Map(headers.map((key, i) => [key, i]));
  const values: Array<string | undefined> = new Array(headers.length);
  const take = (key: string, raw: string, kind: JsonKind) => {
    const at = position.get(key);
    if (at !== undefined) values[at] = kind === JsonKind.String ? decodeJsonString(raw) : kind === JsonKind.Null ? undefined : raw;
  };
  const convert = (text: string): Buffer => {
    let out = "";
    let start = 0;
    while (start < text.length) {
      let end = text.indexOf("\n", start);
      if (end < 0) end = text.length;
      if (end > start) {
        values.fill(undefined);
        forEachMember(text.slice(start, end), take);
        out += csvLine(values);
      }
      start = end + 1;
    }
    return Buffer.from(out, "utf8");
  };
  async function* chunks() {
    yield Buffer.from(csvLine(headers), "utf8");
    for (let page = 0; page < table.pageCount; page++) {
      const decoder = new TextDecoder("utf-8");
      let rest = "";
      for await (const chunk of app.storage.read(jsonTablePageKey(table.id, page))) {
        const text = rest + decoder.decode(chunk as Buffer, { stream: true });
        const end = text.lastIndexOf("\n");
        if (end < 0) {
          rest = text;
          continue;
        }
        rest = text.slice(end + 1);
        yield convert(text.slice(0, end));
      }
      rest += decoder.decode();
      if (rest !== "") yield convert(rest);
    }
  }
  return Readable.from(chunks());
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
