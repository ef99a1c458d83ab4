import type { Readable } from "node:stream";
import { ConflictError, NotFoundError, ValidationError } from "../../core/errors.js";
import { assertContent, createAudit, findEntity, queryEntities, relatedList, relatedOne, saveVersioned, type PageArgs, type RelatedListArgs } from "../../entity/index.js";
import { newId } from "../../core/ids.js";
import { inTransaction, type Emit, type Tx } from "../../events/outbox.js";
import { actorOf, type RequestContext } from "../../graphql/context.js";
import type { UploadObserver } from "../../app-types.js";
import { jobStarter, type JobStarter } from "../../jobs/index.js";
import type { App } from "../../app-types.js";
import { dropTables } from "../../ingestion/index.js";
import { takeUpload } from "../../requests/uploads.js";
import { openChunkedFile } from "../chunked-files/chunked-file.service.js";
import { receiveFile } from "../file-infos/file-arrival.js";
import { arrivalTablesOf } from "../file-infos/file-info.cleanup.js";
import { attachFileInfo } from "../file-infos/file-info.jobs.js";
import type { FileInspection } from "../file-infos/file-inspection.js";
import { fileManagerColumns } from "./file-manager.columns.js";
import type { CreateFileManagerDirectoryInput, FileManagerPlacementInput, UpdateFileManagerEntityInput } from "./file-manager.inputs.js";
import { fileDeleteBlockers } from "./file-manager.guards.js";
import { contentTypeFor, splitFileName } from "./file-names.js";

export const FILE_ENTITY = "FileManagerEntity";

/** Where a file's bytes live in storage. */
export function fileObjectKey(id: string): string {
  return `files/${id}`;
}

/** Where a new file goes and what it is called: the GraphQL FileManagerPlacementInput. */
export type PlacementInput = FileManagerPlacementInput;

/** 400 naming the field when the engagement or the parent directory does not fit. */
export async function checkPlacement(db: { prisma: App["prisma"] | Tx }, engagementId: string, parentId: string | null | undefined): Promise<void> {
  const engagement = await db.prisma.engagement.findUnique({ where: { id: engagementId }, select: { id: true } });
  if (!engagement) throw new ValidationError(`engagementId ${engagementId} refers to no engagement`, { identifier: "engagementId", values: [engagementId] });
  if (!parentId) return;
  const parent = await db.prisma.fileManagerEntity.findUnique({ where: { id: parentId }, select: { type: true, engagementId: true } });
  if (!parent) throw new ValidationError(`parentFileManagerEntityId ${parentId} refers to no directory`, { identifier: "parentFileManagerEntityId", values: [parentId] });
  if (parent.type !== "DIRECTORY") throw new ValidationError(`parentFileManagerEntityId ${parentId} is a file, not a directory`, { identifier: "parentFileManagerEntityId", values: [parentId] });
  if (parent.engagementId !== engagementId) throw new ValidationError(`Directory ${parentId} belongs to another engagement`, { identifier: "parentFileManagerEntityId", values: [parentId] });
}

export function getFileManagerEntity(ctx: RequestContext, id: string) {
  return findEntity(ctx.app, "fileManagerEntity", FILE_ENTITY, id);
}

const entityById = relatedOne("fileManagerEntity");
const infoById = relatedOne("fileInfo");
const entriesByDirectory = relatedList({ model: "fileManagerEntity", columns: fileManagerColumns, parentField: "parentFileManagerEntityId", defaultSort: [{ field: "name", direction: "ASC" }] });

/** `FileManagerNode.parent`: the directory holding an entry (batched per request). */
export function fileManagerEntityOf(ctx: RequestContext, id: string | null | undefined) {
  return entityById(ctx.app, ctx, id);
}

/** `FileManagerFile.fileInfo` (batched per request). */
export function fileInfoOf(ctx: RequestContext, id: string | null | undefined) {
  return infoById(ctx.app, ctx, id);
}

/** `FileManagerDirectory.children`: its files and directories with the /file-manager/query filter and sort (default by name). */
export function directoryChildren(ctx: RequestContext, directoryId: string, args: RelatedListArgs) {
  return entriesByDirectory(ctx.app, ctx, directoryId, args);
}

export function queryFileManagerEntities(ctx: RequestContext, args: PageArgs) {
  return queryEntities(ctx.app, { model: "fileManagerEntity", columns: fileManagerColumns }, args);
}

export async function createDirectory(ctx: RequestContext, input: CreateFileManagerDirectoryInput) {
  assertContent(input);
  await checkPlacement(ctx, input.engagementId, input.parentFileManagerEntityId);
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const directory = await tx.fileManagerEntity.create({
      data: { ...createAudit(actor), engagementId: input.engagementId, parentFileManagerEntityId: input.parentFileManagerEntityId ?? null, type: "DIRECTORY", name: input.name },
    });
    emitChange(emit, "file-manager.created", directory, actor.userId);
    return directory;
  });
}

function emitChange(emit: Emit, type: string, entity: { id: string; type: string; engagementId: string }, userId: string) {
  emit({
    type,
    entityType: entity.type === "FILE" ? "FILE_MANAGER_FILE" : "FILE_MANAGER_DIRECTORY",
    entityId: entity.id,
    userId,
    payload: { fileManagerEntityId: entity.id, engagementId: entity.engagementId, type: entity.type },
  });
}

export interface NewFile {
  engagementId: string;
  parentFileManagerEntityId?: string | null;
  name: string;
  extension: string | null;
  originalName: string;
  contentType?: string;
  /** False while a job is still producing the bytes (the file exists so callers can GET it). */
  ready?: boolean;
  size?: number;
  /** The file info, when the bytes were inspected as they arrived (else a job computes it). */
  inspection?: FileInspection | null;
}

/**
 * Creates a FILE row (and its file info, computed by an internal job once the bytes are ready).
 * For modules and jobs that produce files; the bytes go to `fileObjectKey(id)`.
 */
export async function createFileRow(tx: Tx, emit: Emit, file: NewFile & { id?: string }, startedBy: JobStarter) {
  const row = await tx.fileManagerEntity.create({
    data: {
      ...createAudit(startedBy),
      ...(file.id ? { id: file.id } : {}),
      engagementId: file.engagementId,
      parentFileManagerEntityId: file.parentFileManagerEntityId ?? null,
      type: "FILE",
      name: file.name,
      extension: file.extension,
      originalName: file.originalName,
      contentType: file.contentType ?? contentTypeFor(file.extension),
      ready: file.ready ?? true,
      size: file.size !== undefined ? BigInt(file.size) : null,
    },
  });
  emitChange(emit, "file-manager.created", row, startedBy.userId);
  if (row.ready) return fileWithInfo(tx, row, startedBy, file.inspection);
  return row;
}

/** Marks a job-produced file ready and starts computing its file info. */
export async function markFileReady(tx: Tx, id: string, size: number, startedBy: JobStarter) {
  const row = await tx.fileManagerEntity.update({ where: { id }, data: { ready: true, size: BigInt(size), lastModifiedDate: new Date() } });
  return fileWithInfo(tx, row, startedBy);
}

async function fileWithInfo<T extends { id: string; name: string; originalName: string | null }>(tx: Tx, row: T, startedBy: JobStarter, inspection?: FileInspection | null) {
  const fileInfoId = await attachFileInfo(tx, row, fileObjectKey(row.id), startedBy, inspection);
  return { ...row, fileInfoId };
}

/**
 * Stores a new file: checks where it goes, writes the bytes under the new id with `write`, then
 * creates the row. If anything fails after the bytes were written, they are removed again, with
 * what reading them on arrival made (`observer`).
 */
async function storeNewFile(ctx: RequestContext, file: NewFile, write: (key: string) => Promise<{ size: number }>, observer?: UploadObserver | null) {
  assertContent({ name: file.name });
  try {
    await checkPlacement(ctx, file.engagementId, file.parentFileManagerEntityId);
  } catch (error) {
    await observer?.discard();
    throw error;
  }
  const id = newId();
  const key = fileObjectKey(id);
  try {
    const { size } = await write(key);
    const row = observer?.early ? await createWithEarlyInspection(ctx, { ...file, id, size }, observer as UploadObserver<FileInspection | null>) : await createWithInspection(ctx, { ...file, id, size }, observer);
    observer?.keep();
    return row;
  } catch (error) {
    await Promise.all([ctx.app.storage.delete(key).catch(() => undefined), observer?.discard().catch(() => undefined)]);
    throw error;
  }
}

async function createWithInspection(ctx: RequestContext, file: NewFile & { id: string }, observer?: UploadObserver | null) {
  const inspection = observer ? ((await observer.result()) as FileInspection | null) : null;
  return inTransaction(ctx.app, (tx, emit) => createFileRow(tx, emit, { ...file, inspection }, jobStarter(ctx)));
}

/** The early inspection did not stand (the reading failed at its very end): nothing of it is kept. */
class InspectionChanged extends Error {}

/**
 * Creates the file's row with the inspection known before the reading's last writes settled (an
 * upload staged on arrival: its rows all handed to COPY, the server still reading them, then the
 * commit), and commits once the reading has ended with that same inspection; otherwise (the
 * staging failed at its end) creates it again with the final one. The row's statements then run
 * beside the staging's tail, where one core idled, instead of after it.
 */
export async function createWithEarlyInspection(ctx: RequestContext, file: NewFile & { id: string }, observer: UploadObserver<FileInspection | null>) {
  const early = await observer.early!();
  try {
    return await inTransaction(
      ctx.app,
      async (tx, emit) => {
        const row = await createFileRow(tx, emit, { ...file, inspection: early }, jobStarter(ctx));
        if ((await observer.result()) !== early) throw new InspectionChanged();
        return row;
      },
      // The transaction waits for the staging's commit: longer than a plain one under load.
      { timeout: 60_000 },
    );
  } catch (error) {
    if (!(error instanceof InspectionChanged)) throw error;
    return createWithInspection(ctx, file, observer);
  }
}

/** Reads a new file's bytes as they are written (file-arrival.ts), when the file is worth it. */
function arriving(ctx: RequestContext, fileName: string, size: number | null): UploadObserver<FileInspection | null> | null {
  return receiveFile(ctx.app, { name: fileName, extension: splitFileName(fileName).extension, size });
}

/** POST /file-manager/import: the multipart `file` part (already staged) becomes a FILE. */
export async function importFile(ctx: RequestContext, input: PlacementInput, uploadId: string) {
  const upload = takeUpload(ctx, uploadId, "file", "/file-manager/import");
  const { stem, extension } = splitFileName(upload.fileName);
  const name = input.name ?? stem;
  if (!upload.fileName) throw new ValidationError("The file part needs a filename, e.g. ledger.csv", { identifier: "file" });
  return storeNewFile(
    ctx,
    { ...input, name, extension, originalName: upload.fileName, contentType: contentTypeFor(extension, upload.contentType) },
    async (key) => {
      await ctx.app.storage.move(upload.key, key);
      return { size: upload.size };
    },
    upload.observer,
  );
}

/** Assembles a complete chunked file into a new FILE (streamed part after part). */
export async function createFileFromChunkedFile(ctx: RequestContext, chunkedFileId: string, input: PlacementInput) {
  const chunked = await openChunkedFile(ctx, chunkedFileId);
  const { stem, extension } = splitFileName(chunked.name);
  const observer = arriving(ctx, chunked.name, chunked.size);
  return storeNewFile(ctx, { ...input, name: input.name ?? stem, extension, originalName: chunked.name }, (key) => ctx.app.storage.write(key, observer ? observer.through(chunked.stream()) : chunked.stream()), observer);
}

/** Stores bytes produced by the server itself (e.g. the CSV of a JSON table) as a new FILE. */
export function createFileFromStream(ctx: RequestContext, input: PlacementInput & { fileName: string }, source: () => Readable | AsyncIterable<Uint8Array>) {
  const { stem, extension } = splitFileName(input.fileName);
  const observer = arriving(ctx, input.fileName, null);
  return storeNewFile(ctx, { ...input, name: input.name ?? stem, extension, originalName: input.fileName }, (key) => ctx.app.storage.write(key, observer ? observer.through(source()) : source()), observer);
}

/** Rename and move (with the latest `version`); the type of an entity never changes. */
export async function updateFileManagerEntity(ctx: RequestContext, id: string, input: UpdateFileManagerEntityInput) {
  assertContent(input);
  const current = await getFileManagerEntity(ctx, id);
  if (input.type && input.type !== current.type) {
    throw new ValidationError(`type cannot change: this entity is a ${current.type}`, { identifier: "type", values: [input.type], suggestedValues: [current.type] });
  }
  const moving = input.parentFileManagerEntityId !== undefined && input.parentFileManagerEntityId !== current.parentFileManagerEntityId;
  if (moving && input.parentFileManagerEntityId) {
    await checkPlacement(ctx, current.engagementId, input.parentFileManagerEntityId);
    if (current.type === "DIRECTORY") {
      const { rows } = await ctx.app.pool.query(
        `WITH RECURSIVE up AS (SELECT id, parent_file_manager_entity_id FROM file_manager_entity WHERE id = $1
           UNION ALL SELECT p.id, p.parent_file_manager_entity_id FROM file_manager_entity p JOIN up ON p.id = up.parent_file_manager_entity_id)
         SELECT 1 FROM up WHERE id = $2`,
        [input.parentFileManagerEntityId, id],
      );
      if (rows.length > 0) throw new ValidationError("A directory cannot be moved into itself or one of its subdirectories", { identifier: "parentFileManagerEntityId", values: [input.parentFileManagerEntityId] });
    }
  }
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const saved = await saveVersioned(
      tx.fileManagerEntity,
      FILE_ENTITY,
      id,
      input.version,
      {
        ...(input.name != null ? { name: input.name } : {}),
        ...(moving ? { parentFileManagerEntityId: input.parentFileManagerEntityId ?? null } : {}),
        ...(current.type === "FILE" && (input.name != null || moving) ? { status: addStatus(current.status, "MODIFIED") } : {}),
      },
      actor,
    );
    emitChange(emit, "file-manager.updated", saved, actor.userId);
    return saved;
  });
}

function addStatus(status: string[], value: string): string[] {
  return status.includes(value) ? status : [...status, value];
}

/**
 * Deletes a file, or a directory with everything under it. Refused (409) while a job is still
 * producing one of the files or another module reports a file in use (a running analysis source).
 */
export async function deleteFileManagerEntity(ctx: RequestContext, id: string) {
  const actor = actorOf(ctx);
  let arrivalTables: string[] = [];
  const removedFiles = await inTransaction(ctx.app, async (tx, emit) => {
    const root = await tx.$queryRaw<Array<{ id: string }>>`SELECT id FROM file_manager_entity WHERE id = ${id} FOR UPDATE`;
    if (root.length === 0) throw new NotFoundError(FILE_ENTITY, id);
    const tree = await tx.$queryRaw<Array<{ id: string; type: string; ready: boolean; name: string; engagement_id: string }>>`
      WITH RECURSIVE tree AS (
        SELECT id, type, ready, name, engagement_id FROM file_manager_entity WHERE id = ${id}
        UNION ALL
        SELECT c.id, c.type, c.ready, c.name, c.engagement_id FROM file_manager_entity c JOIN tree t ON c.parent_file_manager_entity_id = t.id)
      SELECT * FROM tree`;
    if (tree.length === 0) throw new NotFoundError(FILE_ENTITY, id);
    const files = tree.filter((e) => e.type === "FILE");
    const producing = files.find((f) => !f.ready);
    if (producing) {
      throw new ConflictError(`File ${producing.id} (${producing.name}) is still being produced by a running job; delete it once the job has finished`, {
        problemType: "CANNOT_DELETE",
        entityId: producing.id,
        entityType: FILE_ENTITY,
      });
    }
    const blocked = await fileDeleteBlockers(tx, files.map((f) => f.id));
    if (blocked.size > 0) {
      const [fileId, reason] = [...blocked][0];
      throw new ConflictError(`File ${fileId} cannot be deleted: ${reason}`, { problemType: "CANNOT_DELETE", entityId: fileId, entityType: FILE_ENTITY, values: [...blocked.keys()] });
    }
    arrivalTables = await arrivalTablesOf(ctx.app, files.map((f) => f.id));
    await tx.fileInfo.deleteMany({ where: { fileManagerFileId: { in: files.map((f) => f.id) } } });
    await tx.fileManagerEntity.delete({ where: { id } }); // children go with it (ON DELETE CASCADE)
    for (const entity of tree) emitChange(emit, "file-manager.deleted", { id: entity.id, type: entity.type, engagementId: entity.engagement_id }, actor.userId);
    return files.map((f) => f.id);
  });
  await Promise.all(removedFiles.map((fileId) => ctx.app.storage.delete(fileObjectKey(fileId)).catch((error) => ctx.app.logger.warn("could not delete file bytes", { error, fileId }))));
  // Staging tables no source took over (a leftover is dropped by the arrival-table cleanup).
  await dropTables(ctx.app.pool, arrivalTables).catch((error) => ctx.app.logger.warn("could not drop staging tables of deleted files", { error: String(error) }));
  return { id };
}

/** GET /file-manager/{id}/export: the file's description; the REST layer streams its bytes. */
export async function getFileDownload(ctx: RequestContext, id: string) {
  const file = await getFileManagerEntity(ctx, id);
  if (file.type !== "FILE") throw new ValidationError(`${id} is a directory; only files can be exported`, { identifier: "fileManagerEntityId", values: [id] });
  if (!file.ready) throw new ConflictError(`File ${id} is still being produced by a running job`, { entityId: id, entityType: FILE_ENTITY });
  return {
    id,
    fileName: file.originalName ?? (file.extension ? `${file.name}.${file.extension}` : file.name),
    size: file.size ?? 0n,
    contentType: file.contentType ?? "application/octet-stream",
    url: `/file-manager/${id}/export`,
  };
}

/** Files that no longer belong to an existing engagement (deleted engagements), with their bytes. */
export async function deleteOrphanedFiles(app: App): Promise<number> {
  const { rows } = await app.pool.query<{ id: string; type: string }>(
    `DELETE FROM file_manager_entity f WHERE NOT EXISTS (SELECT 1 FROM engagement e WHERE e.id = f.engagement_id) RETURNING id, type`,
  );
  const files = rows.filter((r) => r.type === "FILE").map((r) => r.id);
  const arrivalTables = await arrivalTablesOf(app, files);
  if (files.length > 0) await app.pool.query("DELETE FROM file_info WHERE file_manager_file_id = ANY($1)", [files]);
  await dropTables(app.pool, arrivalTables);
  for (const fileId of files) await app.storage.delete(fileObjectKey(fileId));
  return rows.length;
}
