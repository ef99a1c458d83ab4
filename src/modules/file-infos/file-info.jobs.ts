import type { App } from "../../app-types.js";
import type { Prisma } from "../../generated/prisma/client.js";
import { createAudit } from "../../entity/index.js";
import type { Tx } from "../../events/outbox.js";
import { defineJob, startJob, type JobStarter } from "../../jobs/index.js";
import { inspectFile, type FileInspection } from "./file-inspector.js";

/** What an inspection found, as the file info's columns. */
export function inspectionColumns(found: FileInspection) {
  return {
    type: found.type,
    format: found.format ?? null,
    formatDetected: found.formatDetected ?? false,
    encoding: found.encoding ?? null,
    delimiter: found.delimiter ?? null,
    firstLine: found.firstLine ?? null,
    headerRowIndex: found.headerRowIndex ?? null,
    lastNonBlankRowIndex: found.lastNonBlankRowIndex ?? null,
    rowContentSnippets: found.rowContentSnippets ?? [],
    columnData: found.columnData ?? [],
    tableMetadata: found.tableMetadata ?? {},
  };
}

/** A failure is a change clients polling the file info must see, like completion: a new version. */
const failed = (): Prisma.FileInfoUpdateManyMutationInput => ({ state: "FAILED", lastModifiedDate: new Date(), version: { increment: 1 } });

/** The columns of a computed file info. */
function inspectedColumns(found: FileInspection) {
  return {
    ...inspectionColumns(found),
    tabularReading: found.tabularReading,
    state: "COMPLETE" as const,
  };
}

/**
 * Completes a PENDING file info with what an inspection found (a new version). False when it was
 * no longer PENDING (completed by whoever profiled the file first).
 */
export async function completeFileInfo(db: Pick<Tx, "fileInfo">, fileInfoId: string, found: FileInspection): Promise<boolean> {
  const { count } = await db.fileInfo.updateMany({
    where: { id: fileInfoId, state: "PENDING" },
    data: { ...inspectedColumns(found), lastModifiedDate: new Date(), version: { increment: 1 } },
  });
  return count > 0;
}

/**
 * Runs `work` holding the lock of the file's profile, so a file is profiled once: the file info
 * job holds it while it inspects, and an analysis source that finds the info PENDING takes it
 * too, so it either waits for the running inspection (and uses its result) or profiles the file
 * itself while staging it and completes the info, which the job then finds done. A PostgreSQL
 * advisory lock: it holds across processes and dies with its connection.
 */
export async function withProfileLock<T>(app: Pick<App, "pool">, fileInfoId: string, work: () => Promise<T>): Promise<T> {
  const client = await app.pool.connect();
  const key = `file-info.profile:${fileInfoId}`;
  let locked = false;
  try {
    await client.query("SELECT pg_advisory_lock(hashtextextended($1, 0))", [key]);
    locked = true;
    return await work();
  } finally {
    const unlocked = locked ? client.query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [key]).then(() => true, () => false) : Promise.resolve(true);
    // A connection whose unlock failed would keep the lock: it is closed instead of reused.
    client.release(!(await unlocked));
  }
}

/** Internal job: inspect a newly stored file and fill its file info. Idempotent (overwrites). */
export const computeFileInfoJob = defineJob<{ fileInfoId: string; fileId: string; storageKey: string }>({
  name: "file-info.compute",
  type: null,
  retry: { attempts: 3, backoffSeconds: 5 },
  async run(ctx, payload) {
    await withProfileLock(ctx.app, payload.fileInfoId, async () => {
      const info = await ctx.app.prisma.fileInfo.findUnique({ where: { id: payload.fileInfoId }, select: { state: true } });
      // Computed meanwhile by an analysis source that profiled the file while staging it.
      if (info && info.state !== "PENDING") return ctx.finish(async () => undefined);
      const file = await ctx.app.prisma.fileManagerEntity.findUnique({ where: { id: payload.fileId } });
      const size = await ctx.app.storage.size(payload.storageKey);
      if (!file || size === undefined) {
        // The file was deleted before its info was computed: nothing left to describe.
        await ctx.finish((tx) => tx.fileInfo.updateMany({ where: { id: payload.fileInfoId }, data: failed() }));
        return;
      }
      const found = await inspectFile({
        name: file.originalName ?? file.name,
        extension: file.extension,
        size,
        open: () => ctx.app.storage.read(payload.storageKey),
        withLocalPath: (work) => ctx.app.storage.withLocalPath(payload.storageKey, work),
        signal: ctx.signal,
      });
      await ctx.finish((tx) => completeFileInfo(tx, payload.fileInfoId, found));
    });
  },
  async onFailure(ctx, payload) {
    await ctx.app.prisma.fileInfo.updateMany({ where: { id: payload.fileInfoId, state: "PENDING" }, data: failed() });
  },
});

/**
 * Gives a new file its file info: the row exists at once (so `fileInfoId` can be read immediately).
 * An inspection made while the bytes arrived completes it in the same transaction; otherwise an
 * internal job fills it in. Call inside the transaction that creates the file.
 */
export async function attachFileInfo(
  tx: Tx,
  file: { id: string; name: string; originalName: string | null },
  storageKey: string,
  startedBy: JobStarter,
  inspected?: FileInspection | null,
): Promise<string> {
  const base = { ...createAudit(startedBy), fileManagerFileId: file.id, name: file.originalName ?? file.name };
  const info = await tx.fileInfo.create({ data: inspected ? { ...base, ...inspectedColumns(inspected) } : base });
  await tx.fileManagerEntity.update({ where: { id: file.id }, data: { fileInfoId: info.id } });
  if (!inspected) await startJob(tx, { job: computeFileInfoJob, payload: { fileInfoId: info.id, fileId: file.id, storageKey }, entityType: "FILE_INFO", entityId: info.id, startedBy });
  return info.id;
}
