import { inspectFile, NotTabularFileError, type TabularFileInfo } from "../../ingestion/index.js";
import type { FileInspection, InspectableFile, TabularReading } from "./file-inspection.js";

/** Extensions that are never a table: not worth opening. */
export const NOT_TABULAR = new Set(["pdf", "zip", "gz", "png", "jpg", "jpeg", "gif", "docx", "doc"]);

/** A file info of the engine as the file manager stores it. */
export function inspectionOf(info: TabularFileInfo, staged?: TabularReading["staged"]): FileInspection {
  return {
    ...tabularInspection(info),
    tabularReading: {
      bom: info.bom,
      quote: info.quote,
      rowCount: info.rowCount,
      ...(info.workbook ? { encoding: info.encoding, delimiter: info.delimiter, workbook: info.workbook } : {}),
      ...(staged ? { staged } : {}),
    },
  };
}

/**
 * The ingestion engine's streaming inspector as the file manager's: every delimited text file and
 * workbook (.xlsx, .xls) gets a TABULAR_FILE_INFO on import (a workbook's describes the sheet its
 * rows are read from, with sheetMetrics naming all sheets); archives and other binary files a plain
 * FILE_INFO.
 */
export async function inspectTabularFile(file: InspectableFile): Promise<FileInspection> {
  if (file.size === 0 || (file.extension && NOT_TABULAR.has(file.extension.toLowerCase()))) return { type: "FILE_INFO" };
  try {
    return inspectionOf(await file.withLocalPath((path) => inspectFile(path, { name: file.name })));
  } catch (error) {
    if (error instanceof NotTabularFileError) return { type: "FILE_INFO" };
    throw error;
  }
}

/** The engine's TABULAR_FILE_INFO as a file info's fields (also an analysis source's own reading). */
export function tabularInspection(info: TabularFileInfo): FileInspection {
  return {
    type: "TABULAR_FILE_INFO",
    format: info.format,
    formatDetected: info.formatDetected,
    // A workbook has neither: its cells are read as they are typed.
    encoding: info.workbook ? null : info.encoding,
    delimiter: info.workbook ? null : info.delimiter,
    firstLine: info.firstLine,
    headerRowIndex: info.headerRowIndex,
    lastNonBlankRowIndex: info.lastNonBlankRowIndex,
    rowContentSnippets: info.rowContentSnippets,
    columnData: info.columnData,
    tableMetadata: info.tableMetadata,
  };
}
