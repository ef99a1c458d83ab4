/**
 * Shapes the engine returns. They follow the wire reference's read models (section 8) where one
 * exists: TABULAR_FILE_INFO, column mapping, ambiguous resolution, virtual column, transaction id
 * selection and preview, effective date metrics. Extra keys are documented where they are added.
 */

import type { FileEncoding } from "./csv/encoding.js";
import type { DetectedType } from "./profile/classify.js";

export type MetricState = "PASS" | "WARN" | "FAIL";

/** One row shown as evidence for an effective date metric. `row` is the whole data row when useful. */
export interface DataPreview {
  /** Zero-based record index in the file (degrouped files: index of the flattened row). */
  rowIndex: number;
  /** Column position the preview is about, when it is about one value. */
  position?: number;
  value?: string;
  row?: string[];
}

/** Evidence of a file info metric, as the wire reference gives it: `{row, column, data}`. */
export interface FilePreview {
  /** Zero-based record index in the file (degrouped files: the record the flattened row came from). */
  row: number;
  /** Column position, when the preview is about one value. */
  column?: number;
  /** The value (or a description of the row, e.g. "14 fields"). */
  data?: string;
  /** Ours, beside the wire keys: every field of the row (duplicate rows). */
  values?: string[];
}

/**
 * A named metric of a file info (wire reference 8, "File info metrics"): `state` and
 * `dataPreviews` always, `count` for count metrics, and the metric's own keys.
 */
export interface Metric {
  state: MetricState;
  count?: number;
  dataPreviews: FilePreview[];
  [detail: string]: unknown;
}

export interface ColumnData {
  position: number;
  columnName: string;
  /** True when the file gave no name (no header row, or a blank header cell). */
  synthetic: boolean;
  /** The column's values in the first data rows (blank as ""). */
  rowSample: string[];
  /**
   * The wire's column metrics (cellLengthMetrics, dataTypeMetrics, densityMetrics,
   * distinctValueMetrics, nullValueMetrics, scientificNotationMetrics, specialCharacterMetrics) and
   * ours beside them: `format` {detectedFormat, ambiguousFormats, validCounts, numberStyle},
   * `unparseableValues`, `samples` {values}, `padding` (values with spaces around them) and
   * `numberSummary` {sums in MONEY_100 per number format, negatives}.
   */
  columnMetadata: Record<string, Metric>;
}

/** Every grouped format of the wire enum (wire reference 7); SUPPORTED_GROUPED_FORMATS are those detected here. */
export const ALL_GROUPED_FORMATS = [
  "QUICKBOOKS_JOURNAL",
  "QUICKBOOKS_JOURNAL_2024",
  "QUICKBOOKS_TRANSACTION_DETAIL_BY_ACCOUNT",
  "SAGE50_LEDGER",
  "SAGE50_TRANSACTIONS",
  "CCH_ACCOUNT_LIST",
  "MS_DYNAMICS_JOURNAL",
  "SAGE50_UK",
] as const;
export type GroupedFormat = (typeof ALL_GROUPED_FORMATS)[number];

/** The wire's TABULAR_FILE_INFO read model plus `encoding`, `quote`, `rowCount` and `degrouped`. */
export interface TabularFileInfo {
  type: "TABULAR_FILE_INFO";
  name?: string;
  /** Grouped layout detected in the file, or null. */
  format: GroupedFormat | null;
  formatDetected: boolean;
  /** True when the columns and metrics describe the degrouped (flattened) rows. */
  degrouped: boolean;
  encoding: FileEncoding;
  bom: boolean;
  delimiter: string;
  quote: string | null;
  firstLine: string;
  headerRowIndex: number | null;
  lastNonBlankRowIndex: number;
  /** The first lines of the file, each a list of its cells. */
  rowContentSnippets: string[][];
  /** Data rows (after the header, blank rows and, when degrouped, report lines left out). */
  rowCount: number;
  columnData: ColumnData[];
  tableMetadata: Record<string, Metric>;
  /** Set for workbooks: the sheets, and which one the rows come from. */
  workbook?: WorkbookInfo;
}

/** What a workbook file info adds (`sheetMetrics` shows it on the wire). */
export interface WorkbookInfo {
  kind: "XLSX" | "XLS";
  sheetNames: string[];
  /** Sheets holding a table (a header row and data rows below it). */
  validSheets: string[];
  /** The sheet the rows are read from: the first valid one. */
  sheet: string;
}

export type { DetectedType };

/** A platform field of a source type (the catalogue's column definition, reduced to what the engine needs). */
export interface ColumnDefinition {
  platformFieldName: string;
  /** TEXT, NUMBER (whole numbers, stored as double), DATE, FLOAT64 (amounts, stored as MONEY_100), UNKNOWN (treated as TEXT). */
  type: DetectedType | "FLOAT64";
  required: boolean;
  /** Platform fields that may be mapped instead of this one (debit/credit versus amount). */
  alternativeMappings?: string[];
  allowBlanks?: boolean;
}
