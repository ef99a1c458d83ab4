import { builder } from "../../graphql/builder.js";
import "../common/long.js";

/**
 * The file info metrics as typed objects (wire reference 8, "File info metrics"): the wire's names
 * and shapes, every metric with `state` and `dataPreviews` [{row, column, data}], and our own facts
 * beside them (never instead). Every field is nullable: file infos stored before these names were
 * used still read (their metrics then come out empty).
 */

type Row = Record<string, unknown>;

export const MetricState = builder.enumType("MetricState", {
  description: "Validation state of a file info metric",
  values: ["PASS", "WARN", "FAIL"] as const,
});

const Preview = builder.objectRef<Row>("FileInfoDataPreview").implement({
  description: "A value within the table relevant to a metric",
  fields: (t) => ({
    row: t.field({ type: "Long", nullable: true, description: "The row (record index in the file, from 0)", resolve: (p) => num(p.row) }),
    column: t.int({ nullable: true, description: "The column index within the row", resolve: (p) => num(p.column) }),
    data: t.string({ nullable: true, description: "The value within the target row", resolve: (p) => str(p.data) }),
    values: t.stringList({ nullable: true, description: "Ours: every field of the row (duplicate rows)", resolve: (p) => strings(p.values) }),
  }),
});

const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : null);
const str = (v: unknown) => (typeof v === "string" ? v : v === null || v === undefined ? null : String(v));
const bool = (v: unknown) => (typeof v === "boolean" ? v : null);
const strings = (v: unknown) => (Array.isArray(v) ? v.map(String) : null);
const obj = (v: unknown) => (v && typeof v === "object" && !Array.isArray(v) ? (v as Row) : null);
/** A {key: integer} map as stored. */
const counts = (v: unknown) => obj(v) as Record<string, number> | null;

type Fields = PothosSchemaTypes.ObjectFieldBuilder<typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never, Row>;

/** A metric object type: `state` and `dataPreviews`, which every metric has, and its own fields. */
function metricType(name: string, description: string, own: (t: Fields) => Record<string, unknown> = () => ({})) {
  return builder.objectRef<Row>(name).implement({
    description,
    fields: (t) =>
      ({
        state: t.field({ type: MetricState, nullable: true, resolve: (m) => (m.state as "PASS" | "WARN" | "FAIL" | undefined) ?? null }),
        dataPreviews: t.field({ type: [Preview], nullable: true, resolve: (m) => (Array.isArray(m.dataPreviews) ? (m.dataPreviews as Row[]) : []) }),
        ...own(t),
      }) as never,
  });
}

const CountMetric = metricType("FileInfoCountMetric", "A count metric", (t) => ({
  count: t.field({ type: "Long", nullable: true, description: "The amount of a given metric", resolve: (m) => num(m.count) }),
}));

const CellLengthMetric = metricType("FileInfoCellLengthMetric", "Cells longer than `limit` characters", (t) => ({
  count: t.field({ type: "Long", nullable: true, resolve: (m) => num(m.count) }),
  limit: t.int({ nullable: true, description: "Ours: the length above which a cell is counted", resolve: (m) => num(m.limit) }),
  maxLength: t.int({ nullable: true, description: "Ours: the longest value of the column, in characters", resolve: (m) => num(m.maxLength) }),
}));

const DensityMetric = metricType("FileInfoDensityMetric", "Values against blanks: count = cells, blanks = blank cells", (t) => ({
  count: t.field({ type: "Long", nullable: true, resolve: (m) => num(m.count) }),
  blanks: t.field({ type: "Long", nullable: true, description: "The number of blank values", resolve: (m) => num(m.blanks) }),
  density: t.float({ nullable: true, description: "Share of non-blank values, between 0 and 1", resolve: (m) => num(m.density) }),
}));

const DistinctValueMetric = metricType("FileInfoDistinctValueMetric", "Distinct values of a column", (t) => ({
  count: t.field({ type: "Long", nullable: true, resolve: (m) => num(m.count) }),
  approximate: t.boolean({ nullable: true, description: "Ours: counted with HyperLogLog past 10,000 distinct values", resolve: (m) => bool(m.approximate) }),
}));

const HistogramMetric = metricType("FileInfoHistogramMetric", "Rows whose number of fields differs from the header's", (t) => ({
  count: t.field({ type: "Long", nullable: true, resolve: (m) => num(m.count) }),
  histogram: t.field({ type: "JSON", nullable: true, description: "Number of fields -> rows with that many", resolve: (m) => counts(m.histogram) }),
  expected: t.int({ nullable: true, description: "Ours: the number of columns", resolve: (m) => num(m.expected) }),
}));

const StateMetric = metricType("FileInfoStateMetric", "A metric that is only a state with its previews");

const SpecialCharacterMetric = metricType("FileInfoSpecialCharacterMetric", "Values with control characters, plus characters that were not valid text", (t) => ({
  count: t.field({ type: "Long", nullable: true, resolve: (m) => num(m.count) }),
  invalidCharacters: t.field({ type: "Long", nullable: true, description: "Ours: invalid byte sequences and NUL bytes in the file", resolve: (m) => num(m.invalidCharacters) }),
}));

const OverallDataTypeMetrics = metricType("FileInfoOverallDataTypeMetrics", "Types of the table's cells and columns", (t) => ({
  blankRecords: t.field({ type: "Long", nullable: true, description: "Blank rows", resolve: (m) => num(m.blankRecords) }),
  cellTypeCounts: t.field({ type: "JSON", nullable: true, description: "Type -> cells of that type", resolve: (m) => counts(m.cellTypeCounts) }),
  columnCount: t.int({ nullable: true, resolve: (m) => num(m.columnCount) }),
  columnTypeCounts: t.field({ type: "JSON", nullable: true, description: "Type -> columns of that dominant type", resolve: (m) => counts(m.columnTypeCounts) }),
  totalRecords: t.field({ type: "Long", nullable: true, description: "Data rows", resolve: (m) => num(m.totalRecords) }),
  totalRows: t.field({ type: "Long", nullable: true, description: "Rows of the file up to its last non-blank one", resolve: (m) => num(m.totalRows) }),
}));

const SheetMetrics = metricType("FileInfoSheetMetrics", "Sheets of a workbook (count 0 for delimited text)", (t) => ({
  count: t.int({ nullable: true, resolve: (m) => num(m.count) }),
  sheetNames: t.stringList({ nullable: true, resolve: (m) => strings(m.sheetNames) }),
  validSheets: t.stringList({ nullable: true, description: "Sheets holding a table", resolve: (m) => strings(m.validSheets) }),
  selectedSheet: t.string({ nullable: true, description: "Ours: the sheet the rows are read from (the first valid one)", resolve: (m) => str(m.selectedSheet) }),
  ignoredSheets: t.stringList({ nullable: true, description: "Ours: valid sheets that are not read (the reason for WARN)", resolve: (m) => strings(m.ignoredSheets) }),
}));

const DuplicateRowsMetric = metricType("FileInfoDuplicateRowsMetric", "Ours: rows equal to an earlier row", (t) => ({
  count: t.field({ type: "Long", nullable: true, resolve: (m) => num(m.count) }),
  approximate: t.boolean({ nullable: true, resolve: (m) => bool(m.approximate) }),
}));

const DateRange = builder.objectRef<Row>("FileInfoDateRange").implement({
  fields: (t) => ({ min: t.string({ nullable: true, resolve: (r) => str(r.min) }), max: t.string({ nullable: true, resolve: (r) => str(r.max) }) }),
});
const NumberRange = builder.objectRef<Row>("FileInfoNumberRange").implement({
  fields: (t) => ({ min: t.float({ nullable: true, resolve: (r) => num(r.min) }), max: t.float({ nullable: true, resolve: (r) => num(r.max) }) }),
});
const LengthRange = builder.objectRef<Row>("FileInfoLengthRange").implement({
  fields: (t) => ({ min: t.int({ nullable: true, resolve: (r) => num(r.min) }), max: t.int({ nullable: true, resolve: (r) => num(r.max) }) }),
});

const DateTypeDetails = builder.objectRef<Row>("FileInfoDateTypeDetails").implement({
  fields: (t) => ({
    ambiguousDateTimeFormats: t.stringList({ nullable: true, resolve: (d) => strings(d.ambiguousDateTimeFormats) }),
    unambiguousDateTimeFormats: t.stringList({ nullable: true, resolve: (d) => strings(d.unambiguousDateTimeFormats) }),
    range: t.field({ type: DateRange, nullable: true, description: "Earliest and latest date (ISO) under the column's format", resolve: (d) => obj(d.range) }),
  }),
});

const CurrencyFormat = builder.objectRef<Row>("FileInfoCurrencyFormat").implement({
  fields: (t) => ({
    ambiguousDelimiters: t.stringList({ nullable: true, resolve: (c) => strings(c.ambiguousDelimiters) }),
    decimalCharacter: t.string({ nullable: true, resolve: (c) => str(c.decimalCharacter) }),
    example: t.string({ nullable: true, resolve: (c) => str(c.example) }),
    nonDecimalDelimiters: t.stringList({ nullable: true, resolve: (c) => strings(c.nonDecimalDelimiters) }),
  }),
});

const NumericTypeDetails = builder.objectRef<Row>("FileInfoNumericTypeDetails").implement({
  fields: (t) => ({
    cappedMax: t.boolean({ nullable: true, description: "The largest value is beyond what is summed exactly", resolve: (d) => bool(d.cappedMax) }),
    cappedSum: t.boolean({ nullable: true, description: "The sum is beyond what is summed exactly", resolve: (d) => bool(d.cappedSum) }),
    currencyFormat: t.field({ type: CurrencyFormat, nullable: true, resolve: (d) => obj(d.currencyFormat) }),
    examplePairFromCurrencyFormatter: t.stringList({ nullable: true, description: "A value as written and as read", resolve: (d) => strings(d.examplePairFromCurrencyFormatter) }),
    range: t.field({ type: NumberRange, nullable: true, resolve: (d) => obj(d.range) }),
    sum: t.float({ nullable: true, resolve: (d) => num(d.sum) }),
  }),
});

const TextTypeDetails = builder.objectRef<Row>("FileInfoTextTypeDetails").implement({
  fields: (t) => ({ range: t.field({ type: LengthRange, nullable: true, description: "Shortest and longest value, in characters", resolve: (d) => obj(d.range) }) }),
});

const DataTypeMetrics = metricType("FileInfoDataTypeMetrics", "Types found in a column", (t) => ({
  count: t.field({ type: "Long", nullable: true, description: "Ours: non-blank values (as nonNullValueCount)", resolve: (m) => num(m.count) }),
  detectedTypes: t.stringList({ nullable: true, resolve: (m) => (Array.isArray(m.detectedTypes) ? strings(m.detectedTypes) : null) }),
  dominantType: t.string({ nullable: true, description: "TEXT, NUMBER, DATE or UNKNOWN", resolve: (m) => str(m.dominantType) }),
  nonNullValueCount: t.field({ type: "Long", nullable: true, resolve: (m) => num(m.nonNullValueCount) }),
  typeCounts: t.field({ type: "JSON", nullable: true, description: "Type -> values of that type", resolve: (m) => counts(m.typeCounts) }),
  dateTypeDetails: t.field({ type: DateTypeDetails, nullable: true, resolve: (m) => obj(m.dateTypeDetails) }),
  numericTypeDetails: t.field({ type: NumericTypeDetails, nullable: true, resolve: (m) => obj(m.numericTypeDetails) }),
  textTypeDetails: t.field({ type: TextTypeDetails, nullable: true, resolve: (m) => obj(m.textTypeDetails) }),
}));

const FormatMetric = metricType("FileInfoFormatMetric", "Ours: the column's date or number format, or its ambiguous candidates", (t) => ({
  count: t.field({ type: "Long", nullable: true, resolve: (m) => num(m.count) }),
  detectedFormat: t.string({ nullable: true, resolve: (m) => str(m.detectedFormat) }),
  ambiguousFormats: t.stringList({ nullable: true, resolve: (m) => strings(m.ambiguousFormats) }),
  validCounts: t.field({ type: "JSON", nullable: true, description: "Format -> values valid under it", resolve: (m) => counts(m.validCounts) }),
  numberStyle: t.field({ type: "JSON", nullable: true, resolve: (m) => obj(m.numberStyle) }),
}));

const SamplesMetric = metricType("FileInfoSamplesMetric", "Ours: the first distinct values", (t) => ({
  count: t.int({ nullable: true, resolve: (m) => num(m.count) }),
  values: t.stringList({ nullable: true, resolve: (m) => strings(m.values) }),
}));

const NumberSummaryMetric = metricType("FileInfoNumberSummaryMetric", "Ours: sums (MONEY_100) per number format and negatives", (t) => ({
  count: t.field({ type: "Long", nullable: true, resolve: (m) => num(m.count) }),
  sums: t.field({ type: "JSON", nullable: true, resolve: (m) => counts(m.sums) }),
  negatives: t.field({ type: "Long", nullable: true, resolve: (m) => num(m.negatives) }),
}));

const metric = (m: Row, key: string) => obj(m[key]);

export const TableMetadata = builder.objectRef<Row>("FileInfoTableMetadata").implement({
  description: "Whole-file metrics (wire reference 8), and ours beside them",
  fields: (t) => ({
    cellLengthMetrics: t.field({ type: CellLengthMetric, nullable: true, resolve: (m) => metric(m, "cellLengthMetrics") }),
    densityMetrics: t.field({ type: DensityMetric, nullable: true, resolve: (m) => metric(m, "densityMetrics") }),
    inconsistentDateMetrics: t.field({ type: CountMetric, nullable: true, description: "Dates written in another format than their column's", resolve: (m) => metric(m, "inconsistentDateMetrics") }),
    nullValueMetrics: t.field({ type: CountMetric, nullable: true, description: "Values such as NULL, N/A, #N/A, None", resolve: (m) => metric(m, "nullValueMetrics") }),
    numericColumnMetrics: t.field({ type: StateMetric, nullable: true, description: "WARN when a number column holds values that are not numbers", resolve: (m) => metric(m, "numericColumnMetrics") }),
    overallDataTypeMetrics: t.field({ type: OverallDataTypeMetrics, nullable: true, resolve: (m) => metric(m, "overallDataTypeMetrics") }),
    scientificNotationMetrics: t.field({ type: CountMetric, nullable: true, description: "Numbers written with an exponent (1.5E+07)", resolve: (m) => metric(m, "scientificNotationMetrics") }),
    sheetMetrics: t.field({ type: SheetMetrics, nullable: true, resolve: (m) => metric(m, "sheetMetrics") }),
    specialCharacterMetrics: t.field({ type: SpecialCharacterMetric, nullable: true, resolve: (m) => metric(m, "specialCharacterMetrics") }),
    unevenColumnsMetrics: t.field({ type: HistogramMetric, nullable: true, resolve: (m) => metric(m, "unevenColumnsMetrics") }),
    duplicateRows: t.field({ type: DuplicateRowsMetric, nullable: true, description: "Ours", resolve: (m) => metric(m, "duplicateRows") }),
  }),
});

export const ColumnMetadata = builder.objectRef<Row>("FileInfoColumnMetadata").implement({
  description: "Metrics of one column (wire reference 8), and ours beside them",
  fields: (t) => ({
    cellLengthMetrics: t.field({ type: CellLengthMetric, nullable: true, resolve: (m) => metric(m, "cellLengthMetrics") }),
    dataTypeMetrics: t.field({ type: DataTypeMetrics, nullable: true, resolve: (m) => metric(m, "dataTypeMetrics") }),
    densityMetrics: t.field({ type: DensityMetric, nullable: true, resolve: (m) => metric(m, "densityMetrics") }),
    distinctValueMetrics: t.field({ type: DistinctValueMetric, nullable: true, resolve: (m) => metric(m, "distinctValueMetrics") }),
    nullValueMetrics: t.field({ type: CountMetric, nullable: true, resolve: (m) => metric(m, "nullValueMetrics") }),
    scientificNotationMetrics: t.field({ type: CountMetric, nullable: true, resolve: (m) => metric(m, "scientificNotationMetrics") }),
    specialCharacterMetrics: t.field({ type: CountMetric, nullable: true, resolve: (m) => metric(m, "specialCharacterMetrics") }),
    format: t.field({ type: FormatMetric, nullable: true, description: "Ours", resolve: (m) => metric(m, "format") }),
    unparseableValues: t.field({ type: CountMetric, nullable: true, description: "Ours: values that do not read under the column's format", resolve: (m) => metric(m, "unparseableValues") }),
    samples: t.field({ type: SamplesMetric, nullable: true, description: "Ours", resolve: (m) => metric(m, "samples") }),
    padding: t.field({ type: CountMetric, nullable: true, description: "Ours: values with spaces around them", resolve: (m) => metric(m, "padding") }),
    numberSummary: t.field({ type: NumberSummaryMetric, nullable: true, description: "Ours", resolve: (m) => metric(m, "numberSummary") }),
  }),
});
