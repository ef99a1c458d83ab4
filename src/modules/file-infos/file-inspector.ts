import type { Readable } from "node:stream";

/** What inspecting a file's content found (wire reference 8, File info). */
export interface FileInspection {
  type: "FILE_INFO" | "TABULAR_FILE_INFO";
  format?: string | null;
  formatDetected?: boolean;
  encoding?: string | null;
  delimiter?: string | null;
  firstLine?: string | null;
  headerRowIndex?: number | null;
  lastNonBlankRowIndex?: number | null;
  rowContentSnippets?: unknown[];
  columnData?: unknown[];
  tableMetadata?: Record<string, unknown>;
}

export interface InspectableFile {
  name: string;
  extension: string | null;
  size: number;
  /** A fresh stream of the bytes each call. */
  open(): Readable;
  signal: AbortSignal;
}

/**
 * Computes a file's info. The streaming tabular inspector lives in the ingestion engine
 * (src/ingestion); it plugs in here with `registerFileInspector`. Without one, files get a plain
 * FILE_INFO (name only): this module deliberately does not carry a second inspector.
 */
export type FileInspector = (file: InspectableFile) => Promise<FileInspection>;

let inspector: FileInspector | undefined;

export function registerFileInspector(next: FileInspector): void {
  inspector = next;
}

export async function inspectFile(file: InspectableFile): Promise<FileInspection> {
  if (inspector) return inspector(file);
  return { type: "FILE_INFO" };
}
