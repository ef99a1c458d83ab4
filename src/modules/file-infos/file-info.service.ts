import type { App } from "../../app-types.js";
import { createAudit, findEntity, queryEntities, touchAudit, type Actor, type PageArgs } from "../../entity/index.js";
import type { Tx } from "../../events/outbox.js";
import type { StagedColumn, TabularFileInfo } from "../../ingestion/index.js";
import type { RequestContext } from "../../graphql/context.js";
import { fileInfoColumns } from "./file-info.columns.js";
import { inspectionColumns } from "./file-info.jobs.js";
import { tabularInspection } from "./tabular-inspector.js";

export function getFileInfo(ctx: RequestContext, id: string) {
  return findEntity(ctx.app, "fileInfo", "FileInfo", id);
}

export function queryFileInfos(ctx: RequestContext, args: PageArgs) {
  return queryEntities(ctx.app, { model: "fileInfo", columns: fileInfoColumns }, args);
}

/** What the file's import learnt, for ingestion to build on (`fileReadingOf`). */
export interface FileReading {
  fileInfoId: string;
  /** PENDING while the file info job inspects the file. */
  state: string;
  /** The engine's reading of the file (its file info plus what the read model lacks); null unless COMPLETE and tabular. */
  info: TabularFileInfo | null;
  /** The file's rows in a staging table loaded as it arrived, unless an analysis source took it already. */
  staged: { table: string; rowCount: number; columns: StagedColumn[]; ms: number } | null;
}

/**
 * The ingestion engine's reading of a file as its import computed it, or null when the file has
 * no file info. Ingestion stages such a file without profiling it again.
 */
export async function fileReadingOf(app: Pick<App, "prisma">, fileManagerFileId: string): Promise<FileReading | null> {
  const info = await app.prisma.fileInfo.findFirst({ where: { fileManagerFileId, analysisSourceId: null }, orderBy: { creationDate: "desc" } });
  if (!info) return null;
  const reading = info.tabularReading;
  const tabular = info.state === "COMPLETE" && info.type === "TABULAR_FILE_INFO" && reading;
  return {
    fileInfoId: info.id,
    state: info.state,
    staged: tabular && reading.staged ? (reading.staged as FileReading["staged"]) : null,
    info: tabular
      ? {
          type: "TABULAR_FILE_INFO",
          name: info.name,
          format: info.format as TabularFileInfo["format"],
          formatDetected: info.formatDetected,
          degrouped: false,
          encoding: (reading.encoding ?? info.encoding) as TabularFileInfo["encoding"],
          bom: reading.bom,
          delimiter: reading.delimiter ?? info.delimiter ?? "",
          quote: reading.quote,
          firstLine: info.firstLine ?? "",
          headerRowIndex: info.headerRowIndex,
          lastNonBlankRowIndex: info.lastNonBlankRowIndex ?? -1,
          rowContentSnippets: snippetRows(info.rowContentSnippets),
          rowCount: reading.rowCount,
          columnData: info.columnData,
          tableMetadata: info.tableMetadata,
          ...(reading.workbook ? { workbook: reading.workbook } : {}),
        }
      : null,
  };
}

/**
 * The ingestion engine's reading of a file as its import computed it (the file info plus what
 * the read model lacks), or null while it is being computed or when the file is not tabular.
 */
export async function tabularReadingOf(app: Pick<App, "prisma">, fileManagerFileId: string): Promise<TabularFileInfo | null> {
  return (await fileReadingOf(app, fileManagerFileId))?.info ?? null;
}

/**
 * An analysis source's own file info (the reading its column positions refer to: its header row,
 * its degrouped rows) as a file info entity, created or brought up to date whenever the source
 * stores a new reading. Returns its id. Removed with the source (ON DELETE CASCADE).
 */
export async function saveSourceFileInfo(tx: Tx, source: { id: string; fileManagerFileId: string }, info: TabularFileInfo, actor: Actor): Promise<string> {
  const columns = { ...inspectionColumns(tabularInspection(info)), name: info.name ?? "", fileManagerFileId: source.fileManagerFileId, state: "COMPLETE" as const };
  const existing = await tx.fileInfo.findUnique({ where: { analysisSourceId: source.id }, select: { id: true } });
  if (existing) {
    await tx.fileInfo.update({ where: { id: existing.id }, data: { ...columns, ...touchAudit(actor), version: { increment: 1 } } });
    return existing.id;
  }
  const created = await tx.fileInfo.create({ data: { ...createAudit(actor), ...columns, analysisSourceId: source.id } });
  return created.id;
}

/** Snippets as rows of cells; file infos stored before they were split keep each line as one cell. */
export function snippetRows(stored: unknown): string[][] {
  if (!Array.isArray(stored)) return [];
  return stored.map((line) => (Array.isArray(line) ? line.map(String) : [String(line)]));
}
