import { basename } from "node:path";
import type { ByteSource } from "./byte-source.js";
import { detectFormat, type DetectOptions, type FormatDetection } from "./detect.js";
import { buildFileInfo } from "./profile/file-info.js";
import { withRecommendedMetrics } from "./profile/mapped-metrics.js";
import { scanFile, type ScanResult } from "./scan.js";
import type { ColumnDefinition, TabularFileInfo } from "./types.js";

export interface InspectOptions extends DetectOptions {
  /** Shown as the file info's `name` (default: the file's base name). */
  name?: string;
  /** Describe the degrouped rows when a grouped layout is detected (default: the file as it is). */
  degroup?: boolean;
  /** A source type's fields: adds blank required values, unparseable dates/amounts, debits vs credits for the recommended mapping. */
  columnDefinitions?: ColumnDefinition[];
  /** A detection made earlier, to avoid reading the head twice. */
  detection?: FormatDetection;
}

/** The file info a detection and a scan of the file describe (inspection and staging alike). */
export function fileInfoOfScan(detection: FormatDetection, scan: Pick<ScanResult, "profile" | "invalidCharacters">, file: { name?: string; degrouped: boolean }): TabularFileInfo {
  return buildFileInfo(
    {
      name: file.name,
      encoding: detection.encoding,
      delimiter: detection.delimiter,
      quote: detection.quote,
      firstLine: detection.firstLine,
      headerRowIndex: detection.headerRowIndex,
      rowContentSnippets: detection.rowContentSnippets,
      format: detection.groupedFormat,
      degrouped: file.degrouped,
      invalidCharacters: scan.invalidCharacters,
      ...(detection.workbook ? { workbook: { kind: detection.workbook.kind, sheetNames: detection.workbook.sheetNames, validSheets: detection.workbook.validSheets, sheet: detection.workbook.sheet } } : {}),
    },
    scan.profile,
  );
}

/**
 * The TABULAR_FILE_INFO of any delimited text file or workbook sheet, in one streaming pass: encoding, delimiter,
 * header row, first line, snippets, per-column data and PASS/WARN/FAIL metrics. Memory does not
 * grow with the file. The files engineer calls this on import; ingestion gets the same result
 * from `stageFile`, which profiles while staging.
 */
export async function inspectFile(file: string | ByteSource, options: InspectOptions = {}): Promise<TabularFileInfo> {
  const detection = options.detection ?? (await detectFormat(file, options));
  const degroup = options.degroup && detection.groupedFormat ? detection.groupedFormat : null;
  const scan = await scanFile(file, detection, { degroup });
  const info = fileInfoOfScan(detection, scan, { name: options.name ?? (typeof file === "string" ? basename(file) : undefined), degrouped: degroup !== null });
  return options.columnDefinitions ? withRecommendedMetrics(info, options.columnDefinitions) : info;
}
