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
    rowContentSnippets: (found.rowContentSnippets ?? []) as Prisma.InputJsonValue,
    columnData: (found.columnData ?? []) as Prisma.InputJsonValue,
    tableMetadata: (found.tableMetadata ?? {}) as Prisma.InputJsonValue,
  };
}

/** A failure is a change clients polling the file info must see, like completion: a new version. */
const failed = (): Prisma.FileInfoUpdateManyMutationInput => ({ state: "FAILED", lastModifiedDate: new Date(), version: { increment: 1 } });

/** Internal job: inspect a newly stored file and fill its file info. Idempotent (overwrites). */
export const computeFileInfoJob = defineJob<{ fileInfoId: string; fileId: string; storageKey: string }>({
  name: "file-info.compute",
  type: null,
  retry: { attempts: 3, backoffSeconds: 5 },
  async run(ctx, payload) {
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
    await ctx.finish((tx) =>
      tx.fileInfo.updateMany({
        where: { id: payload.fileInfoId },
        data: {
          ...inspectionColumns(found),
          tabularReading: (found.tabularReading ?? undefined) as Prisma.InputJsonValue | undefined,
          state: "COMPLETE",
          lastModifiedDate: new Date(),
          version: { increment: 1 },
        },
      }),
    );
  },
  async onFailure(ctx, payload) {
    await ctx.app.prisma.fileInfo.updateMany({ where: { id: payload.fileInfoId }, data: failed() });
  },
});

/**
 * Gives a new file its file info: the row exists at once (so `fileInfoId` can be read immediately)
 * and an internal job fills it in. Call inside the transaction that creates the file.
 */
export async function attachFileInfo(tx: Tx, file: { id: string; name: string; originalName: string | null }, storageKey: string, startedBy: JobStarter): Promise<string> {
  const info = await tx.fileInfo.create({ data: { ...createAudit(startedBy), fileManagerFileId: file.id, name: file.originalName ?? file.name } });
  await tx.fileManagerEntity.update({ where: { id: file.id }, data: { fileInfoId: info.id } });
  await startJob(tx, { job: computeFileInfoJob, payload: { fileInfoId: info.id, fileId: file.id, storageKey }, entityType: "FILE_INFO", entityId: info.id, startedBy });
  return info.id;
}
