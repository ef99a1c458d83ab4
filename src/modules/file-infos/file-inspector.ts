import type { FileInspection, InspectableFile } from "./file-inspection.js";
import { inspectTabularFile } from "./tabular-inspector.js";

export type { FileInspection, InspectableFile, TabularReading, ArrivalStaging } from "./file-inspection.js";

/**
 * Computes a file's info. The default is the ingestion engine's streaming inspector
 * (tabular-inspector.ts); `registerFileInspector` replaces it (a deployment without tabular
 * inspection, or a test exercising failures).
 */
export type FileInspector = (file: InspectableFile) => Promise<FileInspection>;

let inspector: FileInspector = inspectTabularFile;

export function registerFileInspector(next: FileInspector): void {
  inspector = next;
}

/** Whether files are inspected by the engine's own inspector (which can also read bytes as they arrive). */
export function engineInspection(): boolean {
  return inspector === inspectTabularFile;
}

export async function inspectFile(file: InspectableFile): Promise<FileInspection> {
  return inspector(file);
}
