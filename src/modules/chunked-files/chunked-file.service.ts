import { Readable } from "node:stream";
import { ConflictError, NotFoundError, PayloadTooLargeError, ValidationError } from "../../core/errors.js";
import { assertContent, createAudit, queryEntities, touchAudit, type PageArgs } from "../../entity/index.js";
import { chunkedFileColumns } from "./chunked-file.columns.js";
import { actorOf, type RequestContext } from "../../graphql/context.js";
import type { App } from "../../app-types.js";
import { inTransaction } from "../../events/outbox.js";
import { takeUpload } from "../../requests/uploads.js";

const ENTITY = "ChunkedFile";
/** Spec 8: a chunked import must be completed within 7 days; older chunked files are removed. */
export const CHUNKED_FILE_RETENTION_DAYS = 7;

export function chunkedPartKey(chunkedFileId: string, offset: number | bigint): string {
  return `chunked/${chunkedFileId}/${offset}`;
}

function expired(creationDate: Date): boolean {
  return creationDate.getTime() < Date.now() - CHUNKED_FILE_RETENTION_DAYS * 24 * 3600 * 1000;
}

/**
 * A chunked file with its parts in offset order; 404 once it is past its 7 days, and for any
 * token but the one that declared it (its API token user): like file results, an upload in
 * progress belongs to whoever started it, and nobody else may read, extend, use or delete it.
 */
export async function getChunkedFile(ctx: RequestContext, id: string) {
  const row = await ctx.prisma.chunkedFile.findUnique({ where: { id }, include: { parts: { orderBy: { offset: "asc" } } } });
  if (!row || expired(row.creationDate) || row.createdUserId !== ctx.auth?.userId) throw new NotFoundError(ENTITY, id);
  return row;
}

/** POST /chunked-files/query: the caller's own chunked files still within their 7 days. */
export function queryChunkedFiles(ctx: RequestContext, args: PageArgs) {
  const owner = ctx.auth!.userId;
  return queryEntities(ctx.app, {
    model: "chunkedFile",
    columns: chunkedFileColumns,
    scope: (params) => `t.created_user_id = ${params.add(owner, "text")} AND t.creation_date >= now() - ${params.add(`${CHUNKED_FILE_RETENTION_DAYS} days`, "interval")}`,
  }, args);
}

/**
 * DELETE /chunked-files/{id}: gives up an upload (its parts' bytes go with it). The row goes first,
 * in a transaction that waits for a part being stored, so no part can land after the bytes are removed.
 */
export async function deleteChunkedFile(ctx: RequestContext, id: string) {
  await getChunkedFile(ctx, id);
  await inTransaction(ctx.app, async (tx) => {
    await tx.$queryRaw`SELECT id FROM chunked_file WHERE id = ${id} FOR UPDATE`;
    await tx.chunkedFile.deleteMany({ where: { id } });
  });
  await ctx.app.storage.deletePrefix(`chunked/${id}`);
  return { id };
}

export async function createChunkedFile(ctx: RequestContext, input: { name: string; size: number }) {
  assertContent(input);
  if (!Number.isSafeInteger(input.size) || input.size < 1) throw new ValidationError("size must be the total number of bytes, at least 1", { identifier: "size", values: [input.size], problemType: "GREATER_VALUE_REQUIRED" });
  if (!/\.[^./\\]+$/.test(input.name)) throw new ValidationError("name must include the file extension, e.g. ledger.csv", { identifier: "name", values: [input.name] });
  const row = await ctx.prisma.chunkedFile.create({ data: { ...createAudit(actorOf(ctx)), name: input.name, size: BigInt(input.size) } });
  return { ...row, parts: [] };
}

function beyondDeclaredSize(id: string, total: number, offset: number, end: number): PayloadTooLargeError {
  return new PayloadTooLargeError(`The part [${offset}, ${end}) goes beyond the chunked file's declared size of ${total} bytes`, {
    identifier: "chunkedFilePart",
    values: [offset, end - offset],
    entityId: id,
    entityType: ENTITY,
  });
}

/**
 * How many bytes the REST part route may stage for a part of this chunked file before refusing it
 * (413), so that a part running past the declared size is cut off instead of being stored whole
 * first: what is left after the part's offset when its JSON part came first, else the declared
 * size. 404 for an unknown or expired chunked file, before any byte is read.
 */
export async function chunkedPartByteLimit(ctx: RequestContext, id: string): Promise<(part: unknown) => { maxBytes: number; tooLarge: () => Error }> {
  const file = await getChunkedFile(ctx, id);
  const total = Number(file.size);
  return (part) => {
    const offset = part && typeof part === "object" ? (part as { offset?: unknown }).offset : undefined;
    if (typeof offset !== "number" || !Number.isSafeInteger(offset) || offset < 0) {
      // No usable offset yet (the JSON part comes later, or is wrong and will be refused): no part can exceed the total.
      return {
        maxBytes: total,
        tooLarge: () => new PayloadTooLargeError(`fileChunk carries more than the chunked file's declared size of ${total} bytes`, { identifier: "fileChunk", entityId: id, entityType: ENTITY }),
      };
    }
    const left = Math.max(0, total - offset);
    return {
      maxBytes: left,
      tooLarge: () =>
        new PayloadTooLargeError(`The part at offset ${offset} carries more than the ${left} bytes left: it goes beyond the chunked file's declared size of ${total} bytes`, {
          identifier: "fileChunk",
          values: [offset],
          entityId: id,
          entityType: ENTITY,
        }),
    };
  };
}

/**
 * Stores one part. Parts may come in any order and be resent: the same offset replaces the earlier
 * bytes. A part must fit inside the declared size, by its declared size and by the bytes it carried
 * (413 otherwise), and must not overlap another part.
 */
export async function uploadChunkedFilePart(ctx: RequestContext, id: string, part: { offset: number; size: number }, chunkId: string) {
  const chunk = takeUpload(ctx, chunkId, "fileChunk", `/chunked-files/${id}/part`);
  const file = await getChunkedFile(ctx, id);
  const total = Number(file.size);
  if (!Number.isSafeInteger(part.offset) || part.offset < 0) throw new ValidationError("chunkedFilePart.offset must be a whole number of at least 0", { identifier: "chunkedFilePart.offset", values: [part.offset], problemType: "GREATER_VALUE_REQUIRED" });
  if (!Number.isSafeInteger(part.size) || part.size < 1) throw new ValidationError("chunkedFilePart.size must be at least 1", { identifier: "chunkedFilePart.size", values: [part.size], problemType: "GREATER_VALUE_REQUIRED" });
  // The bytes carried count as much as the size declared: either running past the end is a 413 (wire reference 3).
  const end = part.offset + Math.max(part.size, chunk.size);
  if (end > total) throw beyondDeclaredSize(id, total, part.offset, end);
  if (chunk.size !== part.size) {
    throw new ValidationError(`chunkedFilePart.size says ${part.size} bytes but fileChunk carried ${chunk.size}`, { identifier: "chunkedFilePart.size", values: [part.size, chunk.size] });
  }
  await inTransaction(ctx.app, async (tx) => {
    // One part at a time per chunked file, so the overlap check sees every committed part.
    const held = await tx.$queryRaw<Array<{ id: string }>>`SELECT id FROM chunked_file WHERE id = ${id} FOR UPDATE`;
    // Deleted while this part was arriving: its bytes must not land beside nothing.
    if (held.length === 0) throw new NotFoundError(ENTITY, id);
    const start = BigInt(part.offset);
    const end = BigInt(part.offset + part.size);
    const overlapping = await tx.chunkedFilePart.findFirst({ where: { chunkedFileId: id, offset: { not: start, lt: end } }, orderBy: { offset: "desc" } });
    if (overlapping && overlapping.offset + overlapping.size > start) {
      throw new ValidationError(`The part [${start}, ${end}) overlaps the part already received at offset ${overlapping.offset} (${overlapping.size} bytes); resend a part with its original offset to replace it`, {
        identifier: "chunkedFilePart.offset",
        values: [part.offset],
        entityId: id,
        entityType: ENTITY,
      });
    }
    await ctx.app.storage.move(chunk.key, chunkedPartKey(id, part.offset));
    await tx.chunkedFilePart.upsert({
      where: { chunkedFileId_offset: { chunkedFileId: id, offset: start } },
      create: { chunkedFileId: id, offset: start, size: BigInt(part.size) },
      update: { size: BigInt(part.size), receivedAt: new Date() },
    });
    // A part is a save of the chunked file: its version counts them (spec 2.1), its audit says who.
    await tx.chunkedFile.update({ where: { id }, data: { ...touchAudit(actorOf(ctx)), version: { increment: 1 } } });
  });
  return getChunkedFile(ctx, id);
}

export interface CompleteChunkedFile {
  id: string;
  name: string;
  size: number;
  /** Storage keys of the parts in order; together exactly [0, size). */
  partKeys: string[];
  /** The whole file, read part after part. */
  stream(): Readable;
}

/**
 * For consumers of chunked files (file manager, account grouping import): the assembled content,
 * streamed. 409 while bytes are missing, naming the gaps.
 */
export async function openChunkedFile(ctx: RequestContext, id: string): Promise<CompleteChunkedFile> {
  const app = ctx.app;
  const file = await getChunkedFile(ctx, id);
  const gaps: string[] = [];
  let position = 0n;
  for (const part of file.parts) {
    if (part.offset > position) gaps.push(`${position}-${part.offset - 1n}`);
    if (part.offset + part.size > position) position = part.offset + part.size;
  }
  if (position < file.size) gaps.push(`${position}-${file.size - 1n}`);
  if (gaps.length > 0) {
    throw new ConflictError(`Chunked file ${id} is not complete: bytes ${gaps.slice(0, 5).join(", ")}${gaps.length > 5 ? ", ..." : ""} have not been uploaded`, {
      identifier: "chunkedFileId",
      values: [id],
      entityId: id,
      entityType: ENTITY,
    });
  }
  const partKeys = file.parts.map((p) => chunkedPartKey(id, p.offset));
  return {
    id,
    name: file.name,
    size: Number(file.size),
    partKeys,
    stream: () =>
      Readable.from(
        (async function* () {
          for (const key of partKeys) yield* app.storage.read(key);
        })(),
      ),
  };
}

/** Removes chunked files past their 7 days, with their bytes. */
export async function deleteExpiredChunkedFiles(app: App): Promise<number> {
  const cutoff = new Date(Date.now() - CHUNKED_FILE_RETENTION_DAYS * 24 * 3600 * 1000);
  const expiredFiles = await app.prisma.chunkedFile.findMany({ where: { creationDate: { lt: cutoff } }, select: { id: true } });
  for (const { id } of expiredFiles) {
    // Bytes first: once the row is gone, nothing of the chunked file is left.
    await app.storage.deletePrefix(`chunked/${id}`);
    await app.prisma.chunkedFile.deleteMany({ where: { id } });
  }
  return expiredFiles.length;
}
