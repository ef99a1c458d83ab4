import { Readable } from "node:stream";
import iconv from "iconv-lite";
import { newId } from "../../core/ids.js";
import { createAudit } from "../../entity/index.js";
import { defineJob, JobError } from "../../jobs/index.js";
import { batched, csvLine } from "../../tabular/csv-writer.js";
import { byteOrderMark } from "../../tabular/bytes.js";
import { createFileRow, fileObjectKey } from "../file-manager/file-manager.service.js";
import { GdpduFormatError, parseGdpduIndex } from "./gdpdu-index.js";
import type { UnpackedTable } from "./gdpdu.json-columns.js";
import { readGdpduTable } from "./gdpdu-table.js";
import { openZip, resolveEntryPath } from "../../core/zip.js";

export interface UnpackPayload {
  unpackJobId: string;
  archiveFileId: string;
  engagementId: string;
  parentFileManagerEntityId: string | null;
  directoryName: string;
}

const MAX_INDEX_BYTES = 16 * 1024 * 1024;
/**
 * Zip bombs are refused from the central directory, before a byte is inflated: yauzl checks while
 * reading that an entry inflates to exactly its declared size, so the declared sizes bound the work.
 * Deflate reaches about 1,000:1 on a run of one byte; real exports (CSV, fixed-length text) compress
 * 5 to 50:1. Above MAX_RATIO (for entries of more than a mebibyte) the archive is refused, and the
 * tables together may inflate to at most MAX_UNPACKED_FACTOR times the largest upload.
 */
const MAX_RATIO = 200;
const MAX_UNPACKED_FACTOR = 10;
const MAX_ENTRIES = 65_535;

async function readAll(stream: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new JobError(`index.xml is larger than ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** index.xml in the encoding its XML declaration names (often ISO-8859-1 in German exports). */
function decodeIndex(bytes: Buffer): string {
  if (byteOrderMark(bytes)?.encoding === "UTF-8") return bytes.subarray(3).toString("utf8");
  const declared = /^<\?xml[^>]*encoding=["']([A-Za-z0-9._-]+)["']/.exec(bytes.subarray(0, 200).toString("latin1"))?.[1];
  return declared && iconv.encodingExists(declared) ? iconv.decode(bytes, declared) : bytes.toString("utf8");
}

function uniqueNames(names: string[]): string[] {
  const seen = new Map<string, number>();
  return names.map((raw) => {
    const base = raw.replace(/[\\/]/g, "_").trim() || "table";
    const count = (seen.get(base.toLowerCase()) ?? 0) + 1;
    seen.set(base.toLowerCase(), count);
    return count === 1 ? base : `${base} (${count})`;
  });
}

interface StagedTable {
  name: string;
  description?: string;
  url: string;
  key: string;
  size: number;
  rowCount: number;
  columnCount: number;
}

/**
 * GDPDU_UNPACK_JOB: reads the archive's index.xml, converts every table into a UTF-8 CSV with a
 * header row (staged under gdpdu/<job>/), and only when all tables succeeded creates the directory
 * and its files, in the transaction that completes the job. A malformed archive fails the job with
 * the reason and leaves nothing in the file manager.
 */
export const gdpduUnpackJob = defineJob<UnpackPayload>({
  name: "gdpdu.unpack",
  type: "GDPDU_UNPACK_JOB",
  retry: { attempts: 2, backoffSeconds: 5 },
  async run(ctx, payload) {
    const { app } = ctx;
    const staging = `gdpdu/${ctx.asyncResultId}`;
    await app.storage.deletePrefix(staging);
    const archiveKey = fileObjectKey(payload.archiveFileId);
    if ((await app.storage.size(archiveKey)) === undefined) throw new JobError(`The archive file ${payload.archiveFileId} no longer exists`);

    const staged: StagedTable[] = await app.storage.withLocalPath(archiveKey, async (path) => {
      const zip = await openZip(path).catch((error: Error) => {
        throw new JobError(`The file is not a readable zip archive: ${error.message}`);
      });
      try {
        if (zip.entries.length > MAX_ENTRIES) throw new JobError(`The archive has ${zip.entries.length} entries; at most ${MAX_ENTRIES} are read`);
        const files = zip.entries.filter((e) => !e.fileName.endsWith("/"));
        const indexEntry = files
          .filter((e) => e.fileName.split("/").pop()!.toLowerCase() === "index.xml")
          .sort((a, b) => a.fileName.split("/").length - b.fileName.split("/").length)[0];
        if (!indexEntry) throw new JobError("The archive has no index.xml (the GDPdU description of its tables)");
        let tables;
        try {
          tables = parseGdpduIndex(decodeIndex(await readAll(await zip.open(indexEntry), MAX_INDEX_BYTES)));
        } catch (error) {
          if (error instanceof GdpduFormatError) throw new JobError(error.message);
          throw error;
        }
        const byPath = new Map(files.map((e) => [e.fileName, e]));
        const byLowerPath = new Map(files.map((e) => [e.fileName.toLowerCase(), e]));
        const names = uniqueNames(tables.map((t) => t.name));
        const referenced = tables.map((t) => byLowerPath.get(resolveEntryPath(indexEntry.fileName, t.url).toLowerCase()));
        for (const entry of referenced) {
          if (entry && entry.uncompressedSize > 1024 * 1024 && entry.uncompressedSize > MAX_RATIO * Math.max(1, entry.compressedSize)) {
            throw new JobError(`${entry.fileName} inflates ${Math.round(entry.uncompressedSize / Math.max(1, entry.compressedSize))} times (${entry.compressedSize} to ${entry.uncompressedSize} bytes); more than ${MAX_RATIO} times is refused as a zip bomb`);
          }
        }
        const total = referenced.reduce((sum, e) => sum + (e?.uncompressedSize ?? 0), 0) || 1;
        const unpackLimit = MAX_UNPACKED_FACTOR * app.config.maxUploadBytes;
        if (total > unpackLimit) throw new JobError(`The tables inflate to ${total} bytes; at most ${unpackLimit} (${MAX_UNPACKED_FACTOR} times MAX_UPLOAD_BYTES) are unpacked`);
        let done = 0;
        const out: StagedTable[] = [];
        for (const [index, table] of tables.entries()) {
          const path = resolveEntryPath(indexEntry.fileName, table.url);
          const entry = byPath.get(path) ?? byLowerPath.get(path.toLowerCase());
          if (!entry) throw new JobError(`Table "${table.name}": its file ${table.url} is not in the archive`);
          let rowCount = 0;
          const rows = readGdpduTable(await zip.open(entry), table);
          async function* lines() {
            yield csvLine(table.columns.map((c) => c.name));
            for await (const row of rows) {
              if (ctx.signal.aborted) throw ctx.signal.reason;
              rowCount++;
              yield csvLine(row);
            }
          }
          const key = `${staging}/${index}.csv`;
          let size: number;
          try {
            size = (await app.storage.write(key, Readable.from(batched(lines())), { signal: ctx.signal })).size;
          } catch (error) {
            if (error instanceof GdpduFormatError) throw new JobError(error.message);
            throw error;
          }
          out.push({ name: names[index], description: table.description, url: table.url, key, size, rowCount, columnCount: table.columns.length });
          done += entry.uncompressedSize;
          ctx.progress((done / total) * 95, `unpacked ${table.name}`);
        }
        return out;
      } finally {
        zip.close();
      }
    });

    const moved: string[] = [];
    try {
      await ctx.finish(async (tx, emit) => {
        const job = await tx.gdpduUnpackJob.findUnique({ where: { id: payload.unpackJobId } });
        if (!job) throw new JobError("The unpack job record was deleted while it ran");
        const directory = await tx.fileManagerEntity.create({
          data: {
            ...createAudit(ctx.startedBy),
            engagementId: payload.engagementId,
            parentFileManagerEntityId: payload.parentFileManagerEntityId,
            type: "DIRECTORY",
            name: payload.directoryName,
          },
        });
        emit({ type: "file-manager.created", entityType: "FILE_MANAGER_DIRECTORY", entityId: directory.id, userId: ctx.startedBy.userId, payload: { fileManagerEntityId: directory.id, engagementId: payload.engagementId, type: "DIRECTORY" } });
        const tables: UnpackedTable[] = [];
        for (const table of staged) {
          const fileId = newId();
          await app.storage.move(table.key, fileObjectKey(fileId));
          moved.push(fileObjectKey(fileId));
          await createFileRow(
            tx,
            emit,
            { id: fileId, engagementId: payload.engagementId, parentFileManagerEntityId: directory.id, name: table.name, extension: "csv", originalName: `${table.name}.csv`, contentType: "text/csv", size: table.size },
            ctx.startedBy,
          );
          tables.push({ name: table.name, description: table.description ?? null, url: table.url, fileManagerFileId: fileId, rowCount: table.rowCount, columnCount: table.columnCount });
        }
        await tx.gdpduUnpackJob.update({
          where: { id: payload.unpackJobId },
          data: {
            status: "UNPACK_COMPLETE",
            directoryId: directory.id,
            fileManagerDirectoryIds: [directory.id],
            fileManagerFileIds: tables.map((t) => t.fileManagerFileId),
            tables,
            error: null,
            version: { increment: 1 },
            lastModifiedDate: new Date(),
          },
        });
      });
    } catch (error) {
      await Promise.all(moved.map((key) => app.storage.delete(key).catch(() => undefined)));
      throw error;
    }
    await app.storage.deletePrefix(staging);
  },
  async onFailure(ctx, payload, error) {
    await ctx.app.storage.deletePrefix(`gdpdu/${ctx.asyncResultId}`);
    await ctx.app.prisma.gdpduUnpackJob.updateMany({ where: { id: payload.unpackJobId }, data: { status: "FAILED", error, version: { increment: 1 }, lastModifiedDate: new Date() } });
  },
});
