import type { Readable } from "node:stream";
import { ConflictError, NotFoundError } from "../../core/errors.js";
import { createAudit, queryEntities, relatedOne, type PageArgs } from "../../entity/index.js";
import { fileResultColumns } from "./file-result.columns.js";
import type { Tx } from "../../events/outbox.js";
import type { RequestContext } from "../../graphql/context.js";
import { startJob, type JobContext, type JobDefinition, type JobStarter } from "../../jobs/index.js";

const ENTITY = "FileResult";

export function fileResultKey(id: string): string {
  return `file-results/${id}`;
}

/** Spec 5.6: only the token that started the job sees its file result; anyone else gets 404. */
export async function getFileResult(ctx: RequestContext, id: string) {
  const row = await ctx.prisma.fileResult.findUnique({ where: { id } });
  if (!row || row.tokenId !== ctx.auth?.tokenId) throw new NotFoundError(ENTITY, id);
  return row;
}

/** POST /file-results/query: the calling token's own file results. */
export function queryFileResults(ctx: RequestContext, args: PageArgs) {
  const owner = ctx.auth!.tokenId;
  return queryEntities(ctx.app, { model: "fileResult", columns: fileResultColumns, scope: (params) => `t.token_id = ${params.add(owner, "text")}` }, args);
}

export async function getFileResultDownload(ctx: RequestContext, id: string) {
  const row = await getFileResult(ctx, id);
  if (!row.ready) throw new ConflictError(`File result ${id} is still being produced; poll its async result until COMPLETE`, { entityId: id, entityType: ENTITY });
  return { id, fileName: row.fileName, size: row.size ?? 0, contentType: row.contentType ?? "application/octet-stream", url: `/file-results/${id}/export` };
}

/**
 * For modules with file-producing jobs (exports, reports): creates the file result (owned by the
 * starting token) and starts `job` targeting it, in the caller's transaction. Returns the async
 * result, which is the start call's response. The job writes its bytes with `writeFileResult`.
 */
export async function startFileResultJob<P>(tx: Tx, spec: { job: JobDefinition<P>; payload: P; fileName: string; contentType?: string; startedBy: JobStarter }) {
  const fileResult = await tx.fileResult.create({
    data: {
      ...createAudit(spec.startedBy),
      fileName: spec.fileName,
      contentType: spec.contentType ?? null,
      tokenId: spec.startedBy.tokenId ?? null,
    },
  });
  return startJob(tx, { job: spec.job, payload: spec.payload, entityType: "FILE_RESULT", entityId: fileResult.id, startedBy: spec.startedBy });
}

/**
 * Inside a job started by `startFileResultJob`: streams the bytes into the file result and
 * completes the job in the same step (ready + COMPLETE commit together). Safe to repeat on retry.
 */
export async function writeFileResult(ctx: JobContext, source: Readable | AsyncIterable<Uint8Array>): Promise<void> {
  const id = ctx.entityId!;
  const { size } = await ctx.app.storage.write(fileResultKey(id), source, { signal: ctx.signal });
  await ctx.finish(async (tx, emit) => {
    await tx.fileResult.update({ where: { id }, data: { ready: true, size, lastModifiedDate: new Date() } });
    emit({ type: "export.ready", entityType: "FILE_RESULT", entityId: id, userId: ctx.startedBy.userId, payload: { fileExportId: id } });
  });
}

const fileResultById = relatedOne("fileResult");

/** `AsyncResult.fileResult` (batched per request): only the token that started the export sees it, as with `fileResult(id)`. */
export async function fileResultOf(ctx: RequestContext, id: string | null | undefined) {
  const row = await fileResultById(ctx.app, ctx, id);
  return row && row.tokenId === ctx.auth?.tokenId ? row : null;
}

