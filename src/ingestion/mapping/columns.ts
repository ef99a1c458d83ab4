import type { DetectedType } from "../profile/classify.js";
import type { ColumnData, Metric, TabularFileInfo } from "../types.js";
import type { NumberStyle } from "../sql/value-expressions.js";

/** What the mapping steps need to know of a column (file column or virtual column). */
export interface ColumnSummary {
  position: number;
  name: string;
  type: DetectedType;
  detectedFormat: string | null;
  ambiguousFormats: string[];
  /** Valid values per candidate format. */
  validCounts: Record<string, number>;
  numberStyle: NumberStyle;
  nonBlank: number;
  blank: number;
  distinct: number;
  samples: string[];
  /** Sum of the column in MONEY_100 per number format (amount columns). */
  sums: Record<string, number>;
}

function get<T>(metric: Metric | undefined, key: string, fallback: T): T {
  const value = metric?.[key];
  return value === undefined || value === null ? fallback : (value as T);
}

export function summarizeColumn(column: ColumnData, rowCount: number): ColumnSummary {
  const m = column.columnMetadata;
  // File infos stored before the wire's metric names (dataType, blanks, distinctValues) still read.
  const nonBlank = get<number>(m.dataTypeMetrics, "nonNullValueCount", m.dataType?.count ?? 0);
  return {
    position: column.position,
    name: column.columnName,
    type: get<DetectedType>(m.dataTypeMetrics ?? m.dataType, "dominantType", "UNKNOWN"),
    detectedFormat: get<string | null>(m.format, "detectedFormat", null),
    ambiguousFormats: get<string[]>(m.format, "ambiguousFormats", []),
    validCounts: get<Record<string, number>>(m.format, "validCounts", {}),
    numberStyle: get<NumberStyle>(m.format, "numberStyle", {}),
    nonBlank,
    blank: get<number>(m.densityMetrics, "blanks", m.blanks?.count ?? Math.max(0, rowCount - nonBlank)),
    distinct: (m.distinctValueMetrics ?? m.distinctValues)?.count ?? 0,
    samples: get<string[]>(m.samples, "values", []),
    sums: get<Record<string, number>>(m.numberSummary, "sums", {}),
  };
}

export function summarizeColumns(fileInfo: TabularFileInfo, virtualColumnData: ColumnData[] = []): ColumnSummary[] {
  return [...fileInfo.columnData, ...virtualColumnData].map((c) => summarizeColumn(c, fileInfo.rowCount));
}
