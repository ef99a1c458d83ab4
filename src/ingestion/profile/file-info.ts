import type { EncodingInfo } from "../csv/encoding.js";
import type { ColumnData, DataPreview, GroupedFormat, Metric, MetricState, TabularFileInfo } from "../types.js";
import type { DetectedType } from "./classify.js";
import { twoDigitYearPosition } from "./date-shape.js";
import { NUMBER_FORMAT_COMMA, NUMBER_FORMAT_DOT } from "./number-shape.js";
import type { ColumnProfile, TableProfile } from "./profiler.js";

export interface FileContext {
  name?: string;
  encoding: EncodingInfo;
  delimiter: string;
  quote: string | null;
  firstLine: string;
  headerRowIndex: number | null;
  rowContentSnippets: string[];
  format: GroupedFormat | null;
  degrouped: boolean;
  invalidCharacters: number;
}

function metric(state: MetricState, count: number, dataPreviews: DataPreview[] = [], details: Record<string, unknown> = {}): Metric {
  return { state, count, dataPreviews, ...details };
}

export function dominantType(column: ColumnProfile): DetectedType {
  if (column.nonBlank === 0) return "UNKNOWN";
  if (column.compactDateCount > 0 && column.compactDateCount === column.nonBlank) return "DATE";
  const { dateCount, numberCount, textCount } = column;
  if (dateCount > numberCount && dateCount > textCount) return "DATE";
  if (numberCount > dateCount && numberCount > textCount) return "NUMBER";
  return "TEXT";
}

export interface FormatCandidates {
  detectedFormat: string | null;
  ambiguousFormats: string[];
  validCounts: Record<string, number>;
}

/** Candidate formats of a DATE or NUMBER column: one detected, or several equally valid (ambiguous). */
export function formatCandidates(column: ColumnProfile, type: DetectedType): FormatCandidates | null {
  if (type === "DATE") {
    const validCounts = { ...column.dateValid };
    const best = Math.max(0, ...Object.values(validCounts));
    const top = byYearSpread(
      Object.keys(validCounts).filter((f) => validCounts[f] === best),
      column.dateYears ?? {},
    );
    return top.length > 1 ? { detectedFormat: null, ambiguousFormats: top, validCounts } : { detectedFormat: top[0] ?? null, ambiguousFormats: [], validCounts };
  }
  if (type === "NUMBER") {
    const validCounts = { ...column.numberValid };
    const dot = validCounts[NUMBER_FORMAT_DOT];
    const comma = validCounts[NUMBER_FORMAT_COMMA];
    if (dot === comma && column.numberAmbiguous > 0) return { detectedFormat: null, ambiguousFormats: [NUMBER_FORMAT_DOT, NUMBER_FORMAT_COMMA], validCounts };
    return { detectedFormat: comma > dot ? NUMBER_FORMAT_COMMA : NUMBER_FORMAT_DOT, ambiguousFormats: [], validCounts };
  }
  return null;
}

/**
 * Among formats every value is equally valid under, a two-digit year written first (yy/MM/dd) or
 * last (MM/dd/yy, dd/MM/yy) is told by the years the whole column falls in under each reading: a
 * ledger covers one or two calendar years, so a reading that spreads the same values over three or
 * more years is dropped when the other keeps them within two. Month/day order is never decided here
 * (both readings give the same years): it stays ambiguous unless a value rules one out.
 */
function byYearSpread(formats: string[], years: Record<string, number>): string[] {
  const spread = (position: "first" | "last") => {
    const counts = formats.filter((f) => twoDigitYearPosition(f) === position).map((f) => years[f] ?? 0);
    return counts.length > 0 ? Math.max(...counts) : null;
  };
  const first = spread("first");
  const last = spread("last");
  if (first === null || last === null) return formats;
  if (last <= 2 && first >= 3) return formats.filter((f) => twoDigitYearPosition(f) !== "first");
  if (first <= 2 && last >= 3) return formats.filter((f) => twoDigitYearPosition(f) !== "last");
  return formats;
}

/** Values of the column that do not parse under `format` (its dominant type's format). */
export function unparseableCount(column: ColumnProfile, format: string, type: DetectedType): number {
  const valid = type === "DATE" ? column.dateValid[format] ?? 0 : column.numberValid[format] ?? 0;
  return Math.max(0, column.nonBlank - valid);
}

function unparseablePreviews(column: ColumnProfile, type: DetectedType): DataPreview[] {
  const others = type === "DATE" ? [...column.examples.TEXT, ...column.examples.NUMBER] : [...column.examples.TEXT, ...column.examples.DATE];
  return others
    .sort((a, b) => a[0] - b[0])
    .slice(0, 5)
    .map(([rowIndex, value]) => ({ rowIndex, position: column.position, value }));
}

function columnData(column: ColumnProfile, rowCount: number): ColumnData {
  const type = dominantType(column);
  const metadata: Record<string, Metric> = {
    dataType: metric("PASS", column.nonBlank, [], {
      dominantType: type,
      detectedTypes: { TEXT: column.textCount, NUMBER: column.numberCount, DATE: column.dateCount },
    }),
    blanks: metric(rowCount > 0 && column.blank === rowCount ? "WARN" : "PASS", column.blank, column.blankRows.map((rowIndex) => ({ rowIndex, position: column.position, value: "" }))),
    distinctValues: metric("PASS", column.distinct, [], { approximate: column.distinctApproximate }),
    samples: metric("PASS", column.samples.length, [], { values: column.samples }),
    padding: metric("PASS", column.padded),
  };
  const candidates = formatCandidates(column, type);
  if (candidates) {
    const reference = candidates.detectedFormat ?? candidates.ambiguousFormats[0];
    const bad = reference ? unparseableCount(column, reference, type) : 0;
    metadata.format = metric(candidates.ambiguousFormats.length > 0 ? "WARN" : "PASS", column.nonBlank, [], {
      detectedFormat: candidates.detectedFormat,
      ambiguousFormats: candidates.ambiguousFormats,
      validCounts: candidates.validCounts,
      ...(type === "NUMBER" ? { numberStyle: column.numberStyle } : {}),
    });
    metadata.unparseableValues = metric(bad === 0 ? "PASS" : bad <= column.nonBlank * 0.01 ? "WARN" : "FAIL", bad, bad > 0 ? unparseablePreviews(column, type) : []);
  }
  if (type === "NUMBER") {
    metadata.numberSummary = metric("PASS", column.numberCount, [], { sums: column.numberSums, negatives: column.negatives });
  }
  return {
    position: column.position,
    columnName: column.columnName,
    synthetic: column.synthetic,
    rowSample: column.rowSample,
    columnMetadata: metadata,
  };
}

/** The TABULAR_FILE_INFO read model from one pass of statistics. */
export function buildFileInfo(context: FileContext, profile: TableProfile): TabularFileInfo {
  const tableMetadata: Record<string, Metric> = {
    rowCount: metric(profile.rowCount > 0 ? "PASS" : "FAIL", profile.rowCount),
    blankRows: metric("PASS", profile.blankRows, profile.blankRowExamples.map((rowIndex) => ({ rowIndex }))),
    columnCountMismatch: metric(profile.columnCountMismatch > 0 ? "WARN" : "PASS", profile.columnCountMismatch, profile.columnCountExamples.map(([rowIndex, fields]) => ({ rowIndex, value: `${fields} fields` })), {
      expected: profile.columns.length,
    }),
    duplicateRows: metric(profile.duplicateRows > 0 ? "WARN" : "PASS", profile.duplicateRows, profile.duplicateExamples.map(([rowIndex, row]) => ({ rowIndex, row })), {
      approximate: !profile.duplicatesComplete,
    }),
    invalidCharacters: metric(context.invalidCharacters > 0 ? "WARN" : "PASS", context.invalidCharacters),
  };
  return {
    type: "TABULAR_FILE_INFO",
    ...(context.name ? { name: context.name } : {}),
    format: context.format,
    formatDetected: context.format !== null,
    degrouped: context.degrouped,
    encoding: context.encoding.encoding,
    bom: context.encoding.bom,
    delimiter: context.delimiter,
    quote: context.quote,
    firstLine: context.firstLine,
    headerRowIndex: context.headerRowIndex,
    lastNonBlankRowIndex: profile.lastNonBlankRowIndex,
    rowContentSnippets: context.rowContentSnippets,
    rowCount: profile.rowCount,
    columnData: profile.columns.map((c) => columnData(c, profile.rowCount)),
    tableMetadata,
  };
}
