import type { EncodingInfo } from "../csv/encoding.js";
import type { ColumnData, FilePreview, GroupedFormat, Metric, MetricState, TabularFileInfo, WorkbookInfo } from "../types.js";
import type { DetectedType } from "./classify.js";
import { dateOrderOf, parseDateText, twoDigitYearPosition } from "./date-shape.js";
import { NUMBER_FORMAT_COMMA, NUMBER_FORMAT_DOT } from "./number-shape.js";
import { LONG_CELL, type ColumnProfile, type QualityKind, type TableProfile } from "./profiler.js";

export interface FileContext {
  name?: string;
  encoding: EncodingInfo;
  delimiter: string;
  quote: string | null;
  firstLine: string;
  headerRowIndex: number | null;
  rowContentSnippets: string[][];
  format: GroupedFormat | null;
  degrouped: boolean;
  invalidCharacters: number;
  workbook?: WorkbookInfo;
}

const PREVIEWS = 5;

function metric(state: MetricState, count: number, dataPreviews: FilePreview[] = [], details: Record<string, unknown> = {}): Metric {
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

function unparseablePreviews(column: ColumnProfile, type: DetectedType): FilePreview[] {
  const others = type === "DATE" ? [...column.examples.TEXT, ...column.examples.NUMBER] : [...column.examples.TEXT, ...column.examples.DATE];
  return others
    .sort((a, b) => a[0] - b[0])
    .slice(0, PREVIEWS)
    .map(([row, data]) => ({ row, column: column.position, data }));
}

const preview = (column: number) => ([row, data]: [number, string]): FilePreview => ({ row, column, data });

/** MONEY_100 as the decimal number it stands for. */
const decimal = (cents: number) => cents / 100;

const EPOCH_2000 = Date.UTC(2000, 0, 1);
const isoDay = (days: number) => new Date(EPOCH_2000 + days * 86_400_000).toISOString().slice(0, 10);

/** Dates of the column written in another date format than its own (detected, else the first candidate). */
function inconsistentDates(column: ColumnProfile, format: string | null): { count: number; previews: FilePreview[] } {
  if (!format) return { count: 0, previews: [] };
  const dates = column.dateCount + column.compactDateCount;
  const count = Math.max(0, dates - (column.dateValid[format] ?? 0));
  const previews = count > 0 ? column.examples.DATE.filter(([, v]) => parseDateText(v, format) === null).map(preview(column.position)) : [];
  return { count, previews };
}

/** The wire's dataTypeMetrics of a column, with the details of its dominant type. */
function dataTypeMetrics(column: ColumnProfile, type: DetectedType, candidates: FormatCandidates | null): Metric {
  const typeCounts = { TEXT: column.textCount, NUMBER: column.numberCount, DATE: column.dateCount };
  const details: Record<string, unknown> = {
    detectedTypes: (Object.keys(typeCounts) as (keyof typeof typeCounts)[]).filter((t) => typeCounts[t] > 0),
    dominantType: type,
    nonNullValueCount: column.nonBlank,
    typeCounts,
  };
  if (type === "DATE" && candidates) {
    const format = candidates.detectedFormat ?? candidates.ambiguousFormats[0];
    const range = format ? column.dayRange[dateOrderOf(format)] : undefined;
    details.dateTypeDetails = {
      ambiguousDateTimeFormats: candidates.ambiguousFormats,
      unambiguousDateTimeFormats: candidates.detectedFormat ? [candidates.detectedFormat] : [],
      range: range ? { min: isoDay(range[0]), max: isoDay(range[1]) } : null,
    };
  }
  if (type === "NUMBER" && candidates) {
    const format = candidates.detectedFormat ?? candidates.ambiguousFormats[0] ?? NUMBER_FORMAT_DOT;
    const range = column.numberRange[format];
    const sum = column.numberSums[format] ?? 0;
    const comma = format === NUMBER_FORMAT_COMMA;
    const example = column.examples.NUMBER[0]?.[1];
    details.numericTypeDetails = {
      // Sums and extremes beyond what a double holds exactly in cents are capped (reported as not exact).
      cappedMax: range ? Math.abs(range[1]) > Number.MAX_SAFE_INTEGER : false,
      cappedSum: Math.abs(sum) > Number.MAX_SAFE_INTEGER,
      currencyFormat: {
        ambiguousDelimiters: candidates.ambiguousFormats.length > 1 ? [".", ","] : [],
        decimalCharacter: comma ? "," : ".",
        example: example ?? null,
        nonDecimalDelimiters: [comma ? "." : ",", ...(column.numberStyle.currency ? ["$", "€", "£", "¥"] : [])],
      },
      examplePairFromCurrencyFormatter: example !== undefined ? [example, String(decimal(column.examples.NUMBER.length > 0 ? exampleCents(example, comma) : 0))] : [],
      range: range ? { min: decimal(range[0]), max: decimal(range[1]) } : null,
      sum: decimal(sum),
    };
  }
  if (type === "TEXT") details.textTypeDetails = { range: column.nonBlank > 0 ? { min: column.minLength, max: column.maxLength } : null };
  return metric("PASS", column.nonBlank, [], details);
}

/** The cents of an example value (its sign, digits and decimal mark; for the formatter example only). */
function exampleCents(value: string, comma: boolean): number {
  const negative = /^\s*[-(]|-\s*$|\bCR\b/i.test(value);
  const cleaned = value.replace(comma ? /[^0-9,]/g : /[^0-9.]/g, "").replace(",", ".");
  const number = Number(cleaned);
  return Number.isFinite(number) ? Math.round(number * 100) * (negative ? -1 : 1) : 0;
}

function qualityMetric(column: ColumnProfile, kind: QualityKind, count: number): Metric {
  return metric(count > 0 ? "WARN" : "PASS", count, column.qualityExamples[kind].map(preview(column.position)));
}

function columnData(column: ColumnProfile, rowCount: number): ColumnData {
  const type = dominantType(column);
  const candidates = formatCandidates(column, type);
  const blankPreviews = column.blankRows.map((row) => ({ row, column: column.position, data: "" }));
  const metadata: Record<string, Metric> = {
    cellLengthMetrics: { ...qualityMetric(column, "long", column.longCells), maxLength: column.maxLength, limit: LONG_CELL },
    dataTypeMetrics: dataTypeMetrics(column, type, candidates),
    densityMetrics: metric(rowCount > 0 && column.blank === rowCount ? "WARN" : "PASS", rowCount, blankPreviews, {
      blanks: column.blank,
      density: rowCount > 0 ? column.nonBlank / rowCount : 0,
    }),
    distinctValueMetrics: metric("PASS", column.distinct, [], { approximate: column.distinctApproximate }),
    nullValueMetrics: qualityMetric(column, "nullLike", column.nullLike),
    scientificNotationMetrics: qualityMetric(column, "scientific", column.scientific),
    specialCharacterMetrics: qualityMetric(column, "special", column.special),
    samples: metric("PASS", column.samples.length, [], { values: column.samples }),
    padding: metric("PASS", column.padded),
  };
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

/** Adds up one count over the columns, with the first previews of all of them. */
function tableCount(columns: ColumnData[], name: string): { count: number; previews: FilePreview[] } {
  let count = 0;
  const previews: FilePreview[] = [];
  for (const c of columns) {
    const m = c.columnMetadata[name];
    count += m?.count ?? 0;
    for (const p of m?.dataPreviews ?? []) if (previews.length < PREVIEWS) previews.push(p);
  }
  return { count, previews };
}

const warnIf = (count: number): MetricState => (count > 0 ? "WARN" : "PASS");

/** The TABULAR_FILE_INFO read model from one pass of statistics. */
export function buildFileInfo(context: FileContext, profile: TableProfile): TabularFileInfo {
  const rows = profile.rowCount;
  const width = profile.columns.length;
  const columns = profile.columns.map((c) => columnData(c, rows));
  const types = columns.map((c) => c.columnMetadata.dataTypeMetrics.dominantType as DetectedType);
  const blanks = profile.columns.reduce((n, c) => n + c.blank, 0);
  const cells = rows * width;
  const inconsistent = profile.columns.map((c, i) => {
    if (types[i] !== "DATE") return { count: 0, previews: [] };
    const format = (columns[i].columnMetadata.format?.detectedFormat as string | null) ?? (columns[i].columnMetadata.format?.ambiguousFormats as string[] | undefined)?.[0] ?? null;
    return inconsistentDates(c, format);
  });
  const numericProblems = columns.filter((c, i) => types[i] === "NUMBER" && (c.columnMetadata.unparseableValues?.count ?? 0) > 0);
  const special = tableCount(columns, "specialCharacterMetrics");
  const specialCount = special.count + context.invalidCharacters;
  const sheets = context.workbook;
  const tableMetadata: Record<string, Metric> = {
    cellLengthMetrics: (() => {
      const t = tableCount(columns, "cellLengthMetrics");
      return metric(warnIf(t.count), t.count, t.previews, { limit: LONG_CELL });
    })(),
    densityMetrics: metric(rows === 0 ? "FAIL" : cells > 0 && blanks / cells > 0.75 ? "WARN" : "PASS", cells, [], { blanks, density: cells > 0 ? (cells - blanks) / cells : 0 }),
    inconsistentDateMetrics: metric(
      warnIf(inconsistent.reduce((n, x) => n + x.count, 0)),
      inconsistent.reduce((n, x) => n + x.count, 0),
      inconsistent.flatMap((x) => x.previews).slice(0, PREVIEWS),
    ),
    nullValueMetrics: (() => {
      const t = tableCount(columns, "nullValueMetrics");
      return metric(warnIf(t.count), t.count, t.previews);
    })(),
    numericColumnMetrics: {
      state: numericProblems.length > 0 ? "WARN" : "PASS",
      dataPreviews: numericProblems.flatMap((c) => c.columnMetadata.unparseableValues.dataPreviews).slice(0, PREVIEWS),
    },
    overallDataTypeMetrics: {
      state: rows > 0 ? "PASS" : "FAIL",
      dataPreviews: profile.blankRowExamples.map((row) => ({ row })),
      blankRecords: profile.blankRows,
      cellTypeCounts: {
        TEXT: profile.columns.reduce((n, c) => n + c.textCount, 0),
        NUMBER: profile.columns.reduce((n, c) => n + c.numberCount, 0),
        DATE: profile.columns.reduce((n, c) => n + c.dateCount, 0),
      },
      columnCount: width,
      columnTypeCounts: types.reduce<Record<string, number>>((counts, t) => ({ ...counts, [t]: (counts[t] ?? 0) + 1 }), {}),
      totalRecords: rows,
      totalRows: profile.lastNonBlankRowIndex + 1,
    },
    scientificNotationMetrics: (() => {
      const t = tableCount(columns, "scientificNotationMetrics");
      return metric(warnIf(t.count), t.count, t.previews);
    })(),
    sheetMetrics: metric(sheets && sheets.validSheets.length > 1 ? "WARN" : "PASS", sheets ? sheets.sheetNames.length : 0, [], {
      sheetNames: sheets?.sheetNames ?? [],
      validSheets: sheets?.validSheets ?? [],
      // The warning of a workbook with several usable sheets: which ones were not read.
      ...(sheets ? { selectedSheet: sheets.sheet, ignoredSheets: sheets.validSheets.filter((name) => name !== sheets.sheet) } : {}),
    }),
    specialCharacterMetrics: metric(warnIf(specialCount), specialCount, special.previews, { invalidCharacters: context.invalidCharacters }),
    unevenColumnsMetrics: metric(
      warnIf(profile.columnCountMismatch),
      profile.columnCountMismatch,
      profile.columnCountExamples.map(([row, fields]) => ({ row, data: `${fields} fields` })),
      { histogram: profile.fieldCounts, expected: width },
    ),
    duplicateRows: metric(profile.duplicateRows > 0 ? "WARN" : "PASS", profile.duplicateRows, profile.duplicateExamples.map(([row, values]) => ({ row, values })), {
      approximate: !profile.duplicatesComplete,
    }),
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
    rowCount: rows,
    columnData: columns,
    tableMetadata,
    ...(sheets ? { workbook: sheets } : {}),
  };
}
