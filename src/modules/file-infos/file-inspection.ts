import type { Readable } from "node:stream";
import type { ColumnData, FormatDetection, GroupedFormat, Metric, StagedColumn, WorkbookInfo } from "../../ingestion/index.js";

/** What inspecting a file's content found (wire reference 8, File info). */
export interface FileInspection {
  type: "FILE_INFO" | "TABULAR_FILE_INFO";
  format?: GroupedFormat | null;
  formatDetected?: boolean;
  encoding?: string | null;
  delimiter?: string | null;
  firstLine?: string | null;
  headerRowIndex?: number | null;
  lastNonBlankRowIndex?: number | null;
  rowContentSnippets?: string[][];
  columnData?: ColumnData[];
  tableMetadata?: Record<string, Metric>;
  /** Internal: what the read model lacks of the engine's reading, for ingestion to reuse it. */
  tabularReading?: TabularReading;
}

export interface TabularReading {
  bom: boolean;
  quote: string | null;
  rowCount: number;
  /** Workbooks: how staging writes the cells (the read model shows no encoding or delimiter), and the sheets. */
  encoding?: string;
  delimiter?: string;
  workbook?: WorkbookInfo;
  /**
   * The file's rows already in a staging table, loaded while the bytes arrived (file-arrival.ts):
   * the first analysis source of the file takes the table over instead of reading the file again.
   */
  staged?: ArrivalStaging;
}

export interface ArrivalStaging {
  table: string;
  rowCount: number;
  /** The staging table's columns. */
  columns: StagedColumn[];
  /** Wall time of the staging pass (later steps scale their progress estimates by it). */
  ms: number;
  /** The detection the rows were read with (the upload's bytes, default options); absent in older rows. */
  detection?: FormatDetection;
}

export interface InspectableFile {
  name: string;
  extension: string | null;
  size: number;
  /** A fresh stream of the bytes each call. */
  open(): Readable;
  /** Runs `work` with the bytes at a local path (the storage may have to copy them there first). */
  withLocalPath<T>(work: (path: string) => Promise<T>): Promise<T>;
  signal: AbortSignal;
}
