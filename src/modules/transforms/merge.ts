import { Readable } from "node:stream";
import { ValidationError, type Problem } from "../../core/errors.js";
import { assertContent } from "../../entity/index.js";
import { isObjectId } from "../../core/ids.js";
import { inTransaction } from "../../events/outbox.js";
import type { RequestContext } from "../../graphql/context.js";
import { defineJob, JobError, jobStarter, startJob } from "../../jobs/index.js";
import { batched, csvLine } from "../../tabular/csv-writer.js";
import { checkPlacement, createFileRow, fileObjectKey, markFileReady } from "../file-manager/file-manager.service.js";
import { splitFileName } from "../file-manager/file-names.js";
import { isBlankRecord, readRecords, tabularLayout } from "./tabular-source.js";
import type { MergeFilesInput } from "./transforms.inputs.js";

interface MergePayload {
  outputFileId: string;
  sources: Array<{ fileId: string; columns: number[] }>;
}

/**
 * Stacks the chosen columns of several tabular files into one CSV: the header comes from the
 * first file, the rows of every file follow in the order given. Re-running rewrites the output.
 */
export const mergeJob = defineJob<MergePayload>({
  name: "file-manager.merge",
  type: "DATA_TRANSFORMATION_JOB",
  retry: { attempts: 3, backoffSeconds: 5 },
  async run(ctx, payload) {
    const app = ctx.app;
    const files = await app.prisma.fileManagerEntity.findMany({ where: { id: { in: payload.sources.map((s) => s.fileId) } } });
    const byId = new Map(files.map((f) => [f.id, f]));
    const total = files.reduce((sum, f) => sum + Number(f.size ?? 0), 0) || 1;
    let read = 0;
    const layouts: Array<{ source: MergePayload["sources"][number]; file: (typeof files)[number]; layout: Awaited<ReturnType<typeof tabularLayout>> }> = [];
    for (const source of payload.sources) {
      const file = byId.get(source.fileId);
      if (!file) throw new JobError(`File ${source.fileId} was deleted before the merge ran`);
      layouts.push({ source, file, layout: await tabularLayout(app, file.id) });
    }

    async function* lines() {
      for (const [index, { source, file, layout }] of layouts.entries()) {
        let row = 0;
        let width = 0;
        for await (const record of readRecords(app, file.id, layout, (bytes) => {
          read += bytes;
          ctx.progress((read / total) * 99);
        })) {
          if (ctx.signal.aborted) throw ctx.signal.reason;
          const position = row++;
          if (position < layout.headerRowIndex) continue;
          if (position === layout.headerRowIndex) {
            width = record.length;
            const missing = source.columns.find((column) => column >= width);
            if (missing !== undefined) throw new JobError(`File ${file.originalName ?? file.name} (${file.id}) has ${width} column(s); column index ${missing} does not exist`);
            if (index === 0) yield csvLine(source.columns.map((column) => record[column]));
            continue;
          }
          if (isBlankRecord(record)) continue;
          yield csvLine(source.columns.map((column) => record[column] ?? ""));
        }
        if (row <= layout.headerRowIndex) throw new JobError(`File ${file.originalName ?? file.name} (${file.id}) has no header row`);
      }
    }

    const { size } = await app.storage.write(fileObjectKey(payload.outputFileId), Readable.from(batched(lines())), { signal: ctx.signal });
    await ctx.finish(async (tx) => {
      const output = await tx.fileManagerEntity.findUnique({ where: { id: payload.outputFileId }, select: { id: true } });
      if (!output) throw new JobError("The output file was deleted while the merge ran");
      await markFileReady(tx, payload.outputFileId, size, ctx.startedBy);
    });
  },
  async onFailure(ctx, payload) {
    // The output never became usable: remove it rather than leave a file that cannot be read.
    await ctx.app.prisma.fileManagerEntity.deleteMany({ where: { id: payload.outputFileId, ready: false } });
    await ctx.app.storage.delete(fileObjectKey(payload.outputFileId));
  },
});

function parseMappings(value: unknown): Array<{ fileId: string; columns: number[] }> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ValidationError("fileColumnMappings must be an object of file id to column indexes, e.g. {\"<fileId>\": [0, 2]}", { identifier: "fileColumnMappings", problemType: "INCORRECT_DATA_TYPE" });
  }
  const entries = Object.entries(value as Record<string, unknown>);
  const problems: Problem[] = [];
  if (entries.length < 2) problems.push({ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier: "fileColumnMappings", reason: "A merge needs at least two files" });
  const sources: Array<{ fileId: string; columns: number[] }> = [];
  for (const [fileId, columns] of entries) {
    const identifier = `fileColumnMappings.${fileId}`;
    if (!isObjectId(fileId)) problems.push({ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier, reason: `${fileId} is not a file id`, values: [fileId] });
    if (!Array.isArray(columns) || columns.length === 0 || !columns.every((c) => Number.isInteger(c) && c >= 0)) {
      problems.push({ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier, reason: `${identifier} must be a non-empty array of column indexes (0, 1, ...)` });
      continue;
    }
    sources.push({ fileId, columns: columns as number[] });
  }
  const widths = new Set(sources.map((s) => s.columns.length));
  if (widths.size > 1) problems.push({ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier: "fileColumnMappings", reason: `Every file must contribute the same number of columns; got ${[...widths].join(", ")}` });
  if (problems.length > 0) throw ValidationError.of(problems);
  return sources;
}

/** POST /file-manager/transform/merge: validates, creates the (not yet ready) output file and starts the job. */
export async function startMerge(ctx: RequestContext, input: MergeFilesInput) {
  assertContent({ outputFileName: input.outputFileName });
  const sources = parseMappings(input.fileColumnMappings);
  const { stem, extension } = splitFileName(input.outputFileName);
  if (!extension) throw new ValidationError("outputFileName needs an extension, e.g. merged.csv", { identifier: "outputFileName", values: [input.outputFileName] });
  await checkPlacement(ctx, input.engagementId, input.parentFileManagerEntityId);
  const files = await ctx.prisma.fileManagerEntity.findMany({ where: { id: { in: sources.map((s) => s.fileId) } } });
  const problems: Problem[] = [];
  for (const { fileId } of sources) {
    const file = files.find((f) => f.id === fileId);
    const identifier = `fileColumnMappings.${fileId}`;
    if (!file || file.type !== "FILE") problems.push({ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier, reason: `${fileId} refers to no file`, values: [fileId] });
    else if (file.engagementId !== input.engagementId) problems.push({ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier, reason: `File ${fileId} belongs to another engagement`, values: [fileId] });
    else if (!file.ready) problems.push({ problemType: "INVALID_STATE", severity: "ERROR", identifier, reason: `File ${fileId} is still being produced`, values: [fileId] });
  }
  if (problems.length > 0) throw ValidationError.of(problems);
  const startedBy = jobStarter(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const output = await createFileRow(
      tx,
      emit,
      { engagementId: input.engagementId, parentFileManagerEntityId: input.parentFileManagerEntityId, name: stem, extension, originalName: input.outputFileName, ready: false },
      startedBy,
    );
    return startJob(tx, { job: mergeJob, payload: { outputFileId: output.id, sources }, entityType: "FILE_MANAGER_FILE", entityId: output.id, startedBy });
  });
}
