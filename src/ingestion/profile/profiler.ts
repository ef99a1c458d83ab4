import type { RecordView } from "../csv/tokenizer.js";
import { DateShape, dateFormatOf, daysSince2000, ORDER_MDY, ORDER_DMY, ORDER_YMD } from "./date-shape.js";
import { DistinctCounter } from "./distinct.js";
import { DuplicateRows } from "./duplicate-rows.js";
import { NumberShape, NUMBER_FORMAT_COMMA, NUMBER_FORMAT_DOT } from "./number-shape.js";

/** Raw statistics of one column, gathered in one pass in bounded memory. */
export interface ColumnProfile {
  position: number;
  columnName: string;
  synthetic: boolean;
  rowSample: string[];
  samples: string[];
  nonBlank: number;
  blank: number;
  padded: number;
  blankRows: number[];
  textCount: number;
  numberCount: number;
  dateCount: number;
  /** Values that are eight-digit yyyyMMdd dates (counted as numbers too). */
  compactDateCount: number;
  distinct: number;
  distinctApproximate: boolean;
  /** Shortest and longest value in characters (0 when the column is blank). */
  minLength: number;
  maxLength: number;
  /** Values longer than LONG_CELL characters, null-like text (NULL, N/A, ...), numbers in scientific notation, text with control characters. */
  longCells: number;
  nullLike: number;
  scientific: number;
  special: number;
  /** First examples of each of those: [rowIndex, value]. */
  qualityExamples: Record<QualityKind, [number, string][]>;
  /** Smallest and largest valid number in MONEY_100 per number format. */
  numberRange: Record<string, [number, number]>;
  /** Earliest and latest date (days since 2000-01-01) per field order the values are valid under. */
  dayRange: Partial<Record<"MDY" | "DMY" | "YMD", [number, number]>>;
  /** Valid values per number format and their sum in MONEY_100. */
  numberValid: Record<string, number>;
  numberSums: Record<string, number>;
  /** Values read differently by the two number formats ("1,234"). */
  numberAmbiguous: number;
  negatives: number;
  /**
   * Every non-blank value is an integer of 1-15 digits written plainly (`-?[0-9]{1,15}`, no negative
   * zero): `(text)::bigint::double precision` then reads each as `(text)::double precision` does,
   * bit for bit (exact below 2^53; "-0", which float8 input reads as -0.0, is left out), for less
   * (the staging's `StagedColumn.integers`). False for a blank column.
   */
  integers: boolean;
  numberStyle: { parentheses: boolean; trailingMinus: boolean; currency: boolean; letters: boolean; plain: boolean };
  /** Valid values per date pattern (every order a value is valid under counts). */
  dateValid: Record<string, number>;
  /**
   * For patterns with a two-digit year: how many distinct years the column's values fall in when
   * read under that pattern (a ledger spans one or two; read the wrong way round, many).
   */
  dateYears: Record<string, number>;
  /** First values of each kind, for previews: kind -> [rowIndex, value]. */
  examples: Record<"TEXT" | "NUMBER" | "DATE", [number, string][]>;
}

export interface TableProfile {
  rowCount: number;
  blankRows: number;
  blankRowExamples: number[];
  columnCountMismatch: number;
  columnCountExamples: [number, number][];
  duplicateRows: number;
  duplicateExamples: [number, string[]][];
  duplicatesComplete: boolean;
  lastNonBlankRowIndex: number;
  /** Data rows per number of fields (fields past the width count only when they hold something). */
  fieldCounts: Record<string, number>;
  columns: ColumnProfile[];
  /** Facts of the staged MONEY_100 shadows over every data row (also with `shadowsOnly`). */
  moneyShadows: MoneyShadowFacts[];
}

/**
 * What the rows say of a MONEY_100 shadow: whether a value was below zero, and which other money
 * shadows (by position) were set in a row where it was set too. A ledger's debit and credit
 * columns, never both filled and never negative, then fold without arithmetic (`parseEntries`).
 */
export interface MoneyShadowFacts {
  position: number;
  negatives: boolean;
  sharesRowsWith: number[];
}

export type QualityKind = "long" | "nullLike" | "scientific" | "special";
/** Cells longer than this many characters are reported (cellLengthMetrics). */
export const LONG_CELL = 255;
const Q_LONG = 1;
const Q_NULL_LIKE = 2;
const Q_SCIENTIFIC = 4;
const Q_SPECIAL = 8;
/** Text that stands for "no value" in exports (compared case-insensitively, trimmed). */
const NULL_LIKE = new Set(["null", "nul", "none", "nil", "n/a", "#n/a", "nan", "#null!", "(null)", "<null>"]);
/** First bytes of NULL_LIKE (ASCII, lower-cased by `| 0x20`, which leaves # ( < as they are). */
const NULL_LIKE_FIRST = new Set([...NULL_LIKE].map((v) => v.charCodeAt(0) | 0x20));

/**
 * A typed copy of a column computed while profiling (the value is parsed here anyway): amounts as
 * MONEY_100 under one number format, dates as days since 2000-01-01 under one date format.
 */
export type ShadowSpec = { kind: "MONEY_100"; format: string } | { kind: "DATE"; format: string; order: number } | null;

export { daysSince2000 };

const ROW_SAMPLE = 10;
const SAMPLES = 5;
const EXAMPLES = 5;
const PREVIEWS = 5;

class ColumnAccumulator {
  nonBlank = 0;
  blank = 0;
  /** Values with spaces around them (or only spaces): staged text is trimmed by expressions then. */
  padded = 0;
  blankRows: number[] = [];
  textCount = 0;
  numberCount = 0;
  dateCount = 0;
  compactDateCount = 0;
  maxLength = 0;
  dotValid = 0;
  commaValid = 0;
  dotSum = 0;
  commaSum = 0;
  numberAmbiguous = 0;
  negatives = 0;
  /** A value other than a plain integer (ColumnProfile.integers) was met: checked for each value new to the cache. */
  notInteger = false;
  parentheses = false;
  trailingMinus = false;
  currency = false;
  letters = false;
  /** A number was written otherwise than plainly (grouping, symbols, spaces, exponent...). */
  decorated = false;
  /** shape -> counts per order [MDY, DMY, YMD]. */
  dateShapes = new Map<number, Int32Array>();
  minLength = Infinity;
  longCells = 0;
  nullLike = 0;
  scientific = 0;
  special = 0;
  qualityExamples: Record<QualityKind, [number, string][]> = { long: [], nullLike: [], scientific: [], special: [] };
  dotMin = Infinity;
  dotMax = -Infinity;
  commaMin = Infinity;
  commaMax = -Infinity;
  /** Earliest and latest day per order [MDY, DMY, YMD]. */
  readonly dayMin = new Int32Array([0x7fffffff, 0x7fffffff, 0x7fffffff]);
  readonly dayMax = new Int32Array([-0x80000000, -0x80000000, -0x80000000]);
  distinct = new DistinctCounter();
  rowSample: string[] = [];
  samples: string[] = [];
  examples: Record<"TEXT" | "NUMBER" | "DATE", [number, string][]> = { TEXT: [], NUMBER: [], DATE: [] };
  // Classification cache (direct-mapped by value hash): repeated values (dates, accounts, ids on
  // every line of a transaction) are classified once.
  readonly cacheH1 = new Int32Array(CACHE_SIZE);
  readonly cacheH2 = new Int32Array(CACHE_SIZE);
  /** KIND_* in bits 0-2 (0: an empty slot), the Q_* quality bits from bit 3 (KIND_BITS): one load on a hit. */
  readonly cacheKind = new Uint8Array(CACHE_SIZE);
  readonly cacheShape = new Int32Array(CACHE_SIZE);
  readonly cacheFlags = new Uint8Array(CACHE_SIZE);
  readonly cacheDot = new Float64Array(CACHE_SIZE);
  readonly cacheComma = new Float64Array(CACHE_SIZE);
  /** Days since 2000-01-01 under the column's shadow date order (-2^31: not valid under it). */
  readonly cacheDays = new Int32Array(CACHE_SIZE);
  /** Per cached value: length in characters, days under each order [MDY, DMY, YMD]. */
  readonly cacheLength = new Int32Array(CACHE_SIZE);
  readonly cacheDays3 = new Int32Array(CACHE_SIZE * 3);
  /** Two-digit year fields of a cached date (DateShape.twoDigitYears), -1 when none. */
  readonly cacheYearLast = new Int8Array(CACHE_SIZE);
  readonly cacheYearFirst = new Int8Array(CACHE_SIZE);
  /** Per two-digit-year shape: the years seen as the last field (bits 0-127), then as the first field (bits 128-255). */
  yearSets = new Map<number, Uint32Array>();
  shadowMoney = 0; // 0 none, F_DOT or F_COMMA
  shadowOrder = 0; // ORDER_* bit, 0 none
}

const NO_DAYS = -2147483648;

const CACHE_SIZE = 512;
const KIND_TEXT = 1;
const KIND_NUMBER = 2;
const KIND_DATE = 3;
const KIND_COMPACT = 4;
/** cacheKind holds the kind in its low KIND_BITS bits, the quality bits above. */
const KIND_BITS = 3;
const KIND_MASK = (1 << KIND_BITS) - 1;
const F_DOT = 1;
const F_COMMA = 2;
const F_NEGATIVE = 4;
const F_PARENS = 8;
const F_TRAILING = 16;
const F_CURRENCY = 32;
const F_LETTERS = 64;
/** Only digits, a leading minus and one decimal point: numeric input reads it as it is. */
const F_PLAIN = 128;
const SAMPLE_SCAN_LIMIT = 1000;
/** Rows whose length estimates the file's row count (see Profiler.sizeRowTable). */
const SIZING_ROWS = 1000;

/**
 * Column and table statistics over data rows, fed record by record (bytes, no strings except for
 * the few samples kept). Every structure is bounded: samples and examples are capped, distinct
 * counts switch to HyperLogLog, the duplicate-row table stops growing at 32 MiB.
 */
export class Profiler {
  private readonly columns: ColumnAccumulator[];
  private readonly number = new NumberShape();
  private readonly date = new DateShape();
  private readonly duplicates = new DuplicateRows(PREVIEWS);
  private rowCount = 0;
  private blankRows = 0;
  private readonly blankRowExamples: number[] = [];
  private columnCountMismatch = 0;
  private readonly columnCountExamples: [number, number][] = [];
  private lastNonBlankRowIndex = -1;
  /** Data rows per number of fields other than the width (a Map lookup per row costs more than the rest of the row's bookkeeping), and rows of the width. */
  private readonly fieldCounts = new Map<number, number>();
  private regularRows = 0;

  /** Per field of the last row added: 1 when its shadow value is set, and the value. */
  readonly shadowSet: Uint8Array;
  readonly shadowValue: Float64Array;

  /** Fields with a shadow; with `shadowsOnly` the only fields looked at. */
  private readonly shadowFields: number[] = [];
  /** Fields with a MONEY_100 shadow (at most 31), and per field (by index there) its MoneyShadowFacts as bits. */
  private readonly moneyFields: number[] = [];
  private moneyNegative = 0;
  private readonly moneyTogether: Int32Array;

  constructor(
    private readonly columnNames: string[],
    private readonly synthetic: boolean[],
    shadows: ShadowSpec[] = [],
    /** Compute the shadows only (no statistics): the staging thread does this while a worker profiles. */
    private readonly shadowsOnly = false,
  ) {
    this.columns = columnNames.map(() => new ColumnAccumulator());
    this.shadowSet = new Uint8Array(columnNames.length);
    this.shadowValue = new Float64Array(columnNames.length);
    shadows.forEach((spec, f) => {
      if (!spec || !this.columns[f]) return;
      if (spec.kind === "MONEY_100") {
        this.columns[f].shadowMoney = spec.format === NUMBER_FORMAT_COMMA ? F_COMMA : F_DOT;
        if (this.moneyFields.length < 31) this.moneyFields.push(f);
      } else this.columns[f].shadowOrder = spec.order;
      this.shadowFields.push(f);
    });
    this.moneyTogether = new Int32Array(this.moneyFields.length);
  }

  /** Notes the money shadows of the row just added (a ledger row sets one: a test and a branch each). */
  private noteMoney(): void {
    const fields = this.moneyFields;
    let mask = 0;
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i];
      if (this.shadowSet[f] === 1) {
        mask |= 1 << i;
        if (this.shadowValue[f] < 0) this.moneyNegative |= 1 << i;
      }
    }
    if ((mask & (mask - 1)) !== 0) {
      for (let i = 0; i < fields.length; i++) if (mask & (1 << i)) this.moneyTogether[i] |= mask & ~(1 << i);
    }
  }

  /** Bytes of the whole file when known: the duplicate-row table is sized from it once some rows were seen. */
  private expectedBytes = 0;
  private sampledBytes = 0;

  expectBytes(bytes: number | null | undefined): void {
    this.expectedBytes = bytes ?? 0;
  }

  /** Records a blank line (not a data row, but counted and previewed). */
  addBlank(index: number): void {
    this.blankRows++;
    if (this.blankRowExamples.length < PREVIEWS) this.blankRowExamples.push(index);
  }

  /** Notes a non-blank line that is not data (preamble, header, report lines) for lastNonBlankRowIndex. */
  noteNonBlank(index: number): void {
    if (index > this.lastNonBlankRowIndex) this.lastNonBlankRowIndex = index;
  }

  /** Adds one data row. Returns false (and counts it) when every field is blank. */
  add(record: RecordView): boolean {
    const { buf, starts, ends } = record;
    const width = this.columns.length;
    const count = record.count;
    if (!hasContent(record, 0)) {
      this.addBlank(record.index);
      return false;
    }
    if (this.shadowsOnly) {
      for (const f of this.shadowFields) this.shadowOnly(record, f);
      if (this.moneyFields.length > 0) this.noteMoney();
      this.rowCount++;
      return true;
    }
    let rowH1 = 0x811c9dc5;
    let rowH2 = 0x12345679;
    let anyValue = false;
    for (let f = 0; f < width; f++) {
      const column = this.columns[f];
      let s = 0;
      let e = 0;
      if (f < count) {
        s = starts[f];
        e = ends[f];
        while (s < e && (buf[s] === 0x20 || buf[s] === 0x09)) s++;
        while (e > s && (buf[e - 1] === 0x20 || buf[e - 1] === 0x09)) e--;
        if (s !== starts[f] || e !== ends[f]) column.padded++;
      }
      this.shadowSet[f] = 0;
      if (s === e) {
        column.blank++;
        if (column.blankRows.length < PREVIEWS) column.blankRows.push(record.index);
        if (column.rowSample.length < ROW_SAMPLE) column.rowSample.push("");
        rowH1 = Math.imul(rowH1 ^ 0xff, 0x01000193);
        rowH2 = Math.imul(rowH2 + 0xff, 0x5bd1e995);
        continue;
      }
      anyValue = true;
      column.nonBlank++;
      let h1 = 0x811c9dc5;
      let h2 = 0x9747b28c;
      for (let k = s; k < e; k++) {
        const b = buf[k];
        h1 = Math.imul(h1 ^ b, 0x01000193);
        h2 = ((h2 << 5) - h2 + b) | 0;
      }
      rowH1 = Math.imul(rowH1 ^ h1, 0x01000193) ^ f;
      rowH2 = Math.imul(rowH2 + h2, 0x5bd1e995);
      // (Past the first SAMPLE_SCAN_LIMIT values of a column, one comparison for both previews.)
      if (column.nonBlank <= SAMPLE_SCAN_LIMIT) {
        if (column.rowSample.length < ROW_SAMPLE) column.rowSample.push(text(buf, s, e));
        if (column.samples.length < SAMPLES) {
          const value = text(buf, s, e);
          if (!column.samples.includes(value)) column.samples.push(value);
        }
      }
      const slot = h1 & (CACHE_SIZE - 1);
      let cached = column.cacheKind[slot];
      if (cached !== 0 && column.cacheH1[slot] === h1 && column.cacheH2[slot] === h2) {
        this.replay(column, slot, cached & KIND_MASK, buf, s, e, record.index);
      } else {
        column.distinct.add(h1 ^ Math.imul(h2, 0x27d4eb2d));
        column.cacheH1[slot] = h1;
        column.cacheH2[slot] = h2;
        cached = this.classify(column, slot, buf, s, e, record.index);
        column.cacheKind[slot] = cached;
        // A value found in the cache was checked when it was classified (in this column).
        if (!column.notInteger && ((cached & KIND_MASK) !== KIND_NUMBER || !plainInteger(buf, s, e))) column.notInteger = true;
        // The shortest and longest value are those of the distinct values: a value found in the
        // cache was counted when it was classified (in this column), so only new ones are measured.
        const length = column.cacheLength[slot];
        if (length > column.maxLength) column.maxLength = length;
        if (length < column.minLength) column.minLength = length;
      }
      const cachedKind = cached & KIND_MASK;
      const quality = cached >>> KIND_BITS;
      if (quality !== 0) countQuality(column, quality, buf, s, e, record.index);
      if (column.shadowMoney !== 0 || column.shadowOrder !== 0) this.setShadow(column, f, slot, cachedKind);
    }
    if (!anyValue) {
      this.addBlank(record.index);
      return false;
    }
    if (this.moneyFields.length > 0) this.noteMoney();
    this.rowCount++;
    this.noteNonBlank(record.index);
    if (this.rowCount <= SIZING_ROWS && this.expectedBytes > 0) this.sizeRowTable(record);
    const fields = count > width && !hasContent(record, width) ? width : count;
    if (fields === width) {
      this.regularRows++;
    } else {
      this.fieldCounts.set(fields, (this.fieldCounts.get(fields) ?? 0) + 1);
      this.columnCountMismatch++;
      if (this.columnCountExamples.length < PREVIEWS) this.columnCountExamples.push([record.index, count]);
    }
    this.duplicates.add(rowH1, rowH2, record, width);
    return true;
  }

  /**
   * Over the first SIZING_ROWS rows, their bytes; then the duplicate-row table is sized for the rows
   * the whole file holds at that width (with a tenth to spare) instead of doubling its way there,
   * rehashing every row at each step.
   */
  private sizeRowTable(record: RecordView): void {
    this.sampledBytes += record.end - record.start + 1;
    if (this.rowCount === SIZING_ROWS) this.duplicates.reserve(Math.ceil(((this.expectedBytes / this.sampledBytes) * SIZING_ROWS) * 1.1));
  }

  /** The shadow value of one field, through the same classification cache as a full profile. */
  private shadowOnly(record: RecordView, f: number): void {
    const column = this.columns[f];
    const { buf } = record;
    this.shadowSet[f] = 0;
    if (f >= record.count) return;
    let s = record.starts[f];
    let e = record.ends[f];
    while (s < e && (buf[s] === 0x20 || buf[s] === 0x09)) s++;
    while (e > s && (buf[e - 1] === 0x20 || buf[e - 1] === 0x09)) e--;
    if (s === e) return;
    let h1 = 0x811c9dc5;
    let h2 = 0x9747b28c;
    for (let k = s; k < e; k++) {
      const b = buf[k];
      h1 = Math.imul(h1 ^ b, 0x01000193);
      h2 = ((h2 << 5) - h2 + b) | 0;
    }
    const slot = h1 & (CACHE_SIZE - 1);
    let cached = column.cacheKind[slot];
    if (cached === 0 || column.cacheH1[slot] !== h1 || column.cacheH2[slot] !== h2) {
      column.cacheH1[slot] = h1;
      column.cacheH2[slot] = h2;
      cached = this.classify(column, slot, buf, s, e, record.index);
      column.cacheKind[slot] = cached;
    }
    this.setShadow(column, f, slot, cached & KIND_MASK);
  }

  private setShadow(column: ColumnAccumulator, f: number, slot: number, kind: number): void {
    if (column.shadowMoney !== 0) {
      if ((kind === KIND_NUMBER || kind === KIND_COMPACT) && column.cacheFlags[slot] & column.shadowMoney) {
        this.shadowSet[f] = 1;
        this.shadowValue[f] = column.shadowMoney === F_DOT ? column.cacheDot[slot] : column.cacheComma[slot];
      }
    } else if (column.shadowOrder !== 0 && (kind === KIND_DATE || kind === KIND_COMPACT) && column.cacheDays[slot] !== NO_DAYS) {
      this.shadowSet[f] = 1;
      this.shadowValue[f] = column.cacheDays[slot];
    }
  }

  /** Classifies a value met for the first time (in this cache slot) and records it in the slot; returns its cacheKind byte. */
  private classify(column: ColumnAccumulator, slot: number, buf: Uint8Array, s: number, e: number, index: number): number {
    // Amounts and account numbers first (most of a ledger's new values): ASCII, at most 40
    // characters, no exponent, no control character, never null-like, never a date.
    const simple = this.number.parseSimple(buf, s, e);
    if (simple >= 0) {
      column.cacheLength[slot] = e - s;
      // (Quality 0: the kind alone is the cacheKind byte.)
      if (simple === 0) return this.classifyText(column, buf, s, e, index);
      return this.classifyNumber(column, slot, this.number.plain, buf, s, e, index);
    }
    let chars = 0;
    let quality = 0;
    for (let k = s; k < e; k++) {
      const b = buf[k];
      if ((b & 0xc0) !== 0x80) chars++;
      // Control characters (a tab inside a value, line breaks in memos) and U+FFFD (bytes that were not text).
      if (b < 0x20 || (b === 0xef && buf[k + 1] === 0xbf && buf[k + 2] === 0xbd && k + 2 < e)) quality |= Q_SPECIAL;
    }
    if (chars > LONG_CELL) quality |= Q_LONG;
    // Only text starting as one of NULL_LIKE can be one: amounts and codes are not decoded.
    if (chars <= 6 && NULL_LIKE_FIRST.has(buf[s] | 0x20) && NULL_LIKE.has(text(buf, s, e).toLowerCase())) quality |= Q_NULL_LIKE;
    column.cacheLength[slot] = chars;
    const kind = this.classifyValue(column, slot, buf, s, e, index);
    if (kind === KIND_NUMBER && hasExponent(buf, s, e)) quality |= Q_SCIENTIFIC;
    return kind | (quality << KIND_BITS);
  }

  private classifyValue(column: ColumnAccumulator, slot: number, buf: Uint8Array, s: number, e: number, index: number): number {
    const date = this.date;
    if (date.parse(buf, s, e)) {
      if (date.compact) {
        // yyyyMMdd is also a plain number; the column decides which at the end.
        column.compactDateCount++;
        let value = 0;
        for (let k = s; k < s + 8; k++) value = value * 10 + (buf[k] - 0x30);
        column.cacheFlags[slot] = F_DOT | F_COMMA;
        column.cacheDot[slot] = column.cacheComma[slot] = value * 100;
        const days = date.days(ORDER_YMD);
        column.cacheDays3[slot * 3 + 2] = days;
        countDay(column, 2, days);
        column.cacheDays[slot] = column.shadowOrder !== 0 ? days : NO_DAYS;
        return KIND_COMPACT;
      }
      column.cacheShape[slot] = date.shape;
      column.cacheFlags[slot] = date.mask;
      column.cacheDays[slot] = column.shadowOrder !== 0 && date.mask & column.shadowOrder ? date.days(column.shadowOrder) : NO_DAYS;
      // (Indexed loops and no [y, m, d] triples: a value met for the first time allocates nothing.)
      for (let i = 0; i < 3; i++) {
        const bit = ORDER_BITS[i];
        if (date.mask & bit) column.cacheDays3[slot * 3 + i] = date.days(bit);
      }
      column.cacheYearLast[slot] = date.twoDigitYearLast;
      column.cacheYearFirst[slot] = date.twoDigitYearFirst;
      this.countDate(column, slot, date.shape, date.mask, buf, s, e, index);
      return KIND_DATE;
    }
    if (this.number.parse(buf, s, e)) return this.classifyNumber(column, slot, plainNumber(buf, s, e), buf, s, e, index);
    return this.classifyText(column, buf, s, e, index);
  }

  /** A value `this.number` just parsed as valid. */
  private classifyNumber(column: ColumnAccumulator, slot: number, plain: boolean, buf: Uint8Array, s: number, e: number, index: number): number {
    const number = this.number;
    let flags = 0;
    if (number.dotOk) flags |= F_DOT;
    if (number.commaOk) flags |= F_COMMA;
    if (number.negative) flags |= F_NEGATIVE;
    if (number.parentheses) flags |= F_PARENS;
    if (number.trailingMinus) flags |= F_TRAILING;
    if (number.currency) flags |= F_CURRENCY;
    if (number.letters) flags |= F_LETTERS;
    if (plain) flags |= F_PLAIN;
    column.cacheFlags[slot] = flags;
    column.cacheDot[slot] = number.dotCents;
    column.cacheComma[slot] = number.commaCents;
    this.countNumber(column, flags, number.dotCents, number.commaCents, buf, s, e, index);
    return KIND_NUMBER;
  }

  private classifyText(column: ColumnAccumulator, buf: Uint8Array, s: number, e: number, index: number): number {
    column.textCount++;
    if (column.examples.TEXT.length < EXAMPLES) column.examples.TEXT.push([index, text(buf, s, e)]);
    return KIND_TEXT;
  }

  /** Counts a value whose classification is cached. */
  private replay(column: ColumnAccumulator, slot: number, kind: number, buf: Uint8Array, s: number, e: number, index: number): void {
    if (kind === KIND_TEXT) {
      column.textCount++;
      if (column.examples.TEXT.length < EXAMPLES) column.examples.TEXT.push([index, text(buf, s, e)]);
    } else if (kind === KIND_NUMBER) {
      this.countNumber(column, column.cacheFlags[slot], column.cacheDot[slot], column.cacheComma[slot], buf, s, e, index);
    } else if (kind === KIND_DATE) {
      this.countDate(column, slot, column.cacheShape[slot], column.cacheFlags[slot], buf, s, e, index);
    } else {
      column.compactDateCount++;
      countDay(column, 2, column.cacheDays3[slot * 3 + 2]);
    }
  }

  private countDate(column: ColumnAccumulator, slot: number, shape: number, mask: number, buf: Uint8Array, s: number, e: number, index: number): void {
    column.dateCount++;
    let counts = column.dateShapes.get(shape);
    if (!counts) {
      counts = new Int32Array(3);
      column.dateShapes.set(shape, counts);
    }
    if (mask & ORDER_MDY) {
      counts[0]++;
      countDay(column, 0, column.cacheDays3[slot * 3]);
    }
    if (mask & ORDER_DMY) {
      counts[1]++;
      countDay(column, 1, column.cacheDays3[slot * 3 + 1]);
    }
    if (mask & ORDER_YMD) {
      counts[2]++;
      countDay(column, 2, column.cacheDays3[slot * 3 + 2]);
    }
    const last = column.cacheYearLast[slot];
    if (last >= 0) {
      let years = column.yearSets.get(shape);
      if (!years) {
        years = new Uint32Array(8);
        column.yearSets.set(shape, years);
      }
      if (mask & (ORDER_MDY | ORDER_DMY)) years[last >> 5] |= 1 << (last & 31);
      const first = column.cacheYearFirst[slot];
      if (first >= 0) years[4 + (first >> 5)] |= 1 << (first & 31);
    }
    if (column.examples.DATE.length < EXAMPLES) column.examples.DATE.push([index, text(buf, s, e)]);
  }

  private countNumber(column: ColumnAccumulator, flags: number, dot: number, comma: number, buf: Uint8Array, s: number, e: number, index: number): void {
    column.numberCount++;
    if (flags & F_DOT) {
      column.dotValid++;
      column.dotSum += dot;
      if (dot < column.dotMin) column.dotMin = dot;
      if (dot > column.dotMax) column.dotMax = dot;
    }
    if (flags & F_COMMA) {
      column.commaValid++;
      column.commaSum += comma;
      if (comma < column.commaMin) column.commaMin = comma;
      if (comma > column.commaMax) column.commaMax = comma;
    }
    if (flags & F_DOT && flags & F_COMMA && dot !== comma) column.numberAmbiguous++;
    if (flags & F_NEGATIVE) column.negatives++;
    if (flags & F_PARENS) column.parentheses = true;
    if (flags & F_TRAILING) column.trailingMinus = true;
    if (flags & F_CURRENCY) column.currency = true;
    if (flags & F_LETTERS) column.letters = true;
    if (!(flags & F_PLAIN)) column.decorated = true;
    if (column.examples.NUMBER.length < EXAMPLES) column.examples.NUMBER.push([index, text(buf, s, e)]);
  }

  finish(): TableProfile {
    this.duplicates.flush();
    return {
      rowCount: this.rowCount,
      blankRows: this.blankRows,
      blankRowExamples: this.blankRowExamples,
      columnCountMismatch: this.columnCountMismatch,
      columnCountExamples: this.columnCountExamples,
      duplicateRows: this.duplicates.count,
      duplicateExamples: this.duplicates.examples,
      duplicatesComplete: this.duplicates.complete,
      lastNonBlankRowIndex: this.lastNonBlankRowIndex,
      moneyShadows: this.moneyFields.map((position, i) => ({
        position,
        negatives: (this.moneyNegative & (1 << i)) !== 0,
        sharesRowsWith: this.moneyFields.filter((_, j) => (this.moneyTogether[i] & (1 << j)) !== 0),
      })),
      fieldCounts: Object.fromEntries(
        [...this.fieldCounts, ...(this.regularRows > 0 ? [[this.columns.length, this.regularRows] as const] : [])].sort((a, b) => a[0] - b[0]).map(([n, rows]) => [String(n), rows]),
      ),
      columns: this.columns.map((c, position) => {
        const dateValid: Record<string, number> = {};
        for (const [shape, counts] of c.dateShapes) {
          for (const [i, bit] of [ORDER_MDY, ORDER_DMY, ORDER_YMD].entries()) {
            if (counts[i] === 0) continue;
            const format = dateFormatOf(shape, bit);
            dateValid[format] = (dateValid[format] ?? 0) + counts[i];
          }
        }
        if (c.compactDateCount > 0) dateValid.yyyyMMdd = (dateValid.yyyyMMdd ?? 0) + c.compactDateCount;
        const dateYears: Record<string, number> = {};
        for (const [shape, years] of c.yearSets) {
          const counts = c.dateShapes.get(shape)!;
          if (counts[0] > 0) dateYears[dateFormatOf(shape, ORDER_MDY)] = bitCount(years, 0);
          if (counts[1] > 0) dateYears[dateFormatOf(shape, ORDER_DMY)] = bitCount(years, 0);
          if (counts[2] > 0) dateYears[dateFormatOf(shape, ORDER_YMD)] = bitCount(years, 4);
        }
        return {
          position,
          columnName: this.columnNames[position],
          synthetic: this.synthetic[position],
          rowSample: c.rowSample,
          samples: c.samples,
          nonBlank: c.nonBlank,
          blank: c.blank,
          padded: c.padded,
          blankRows: c.blankRows,
          textCount: c.textCount,
          numberCount: c.numberCount + c.compactDateCount,
          dateCount: c.dateCount,
          compactDateCount: c.compactDateCount,
          distinct: c.distinct.count(),
          distinctApproximate: c.distinct.approximate,
          minLength: c.nonBlank > 0 ? c.minLength : 0,
          maxLength: c.maxLength,
          longCells: c.longCells,
          nullLike: c.nullLike,
          scientific: c.scientific,
          special: c.special,
          qualityExamples: c.qualityExamples,
          numberRange: {
            ...(c.dotMin <= c.dotMax ? { [NUMBER_FORMAT_DOT]: [c.dotMin, c.dotMax] as [number, number] } : {}),
            ...(c.commaMin <= c.commaMax ? { [NUMBER_FORMAT_COMMA]: [c.commaMin, c.commaMax] as [number, number] } : {}),
          },
          dayRange: Object.fromEntries(
            (["MDY", "DMY", "YMD"] as const).flatMap((order, i) => (c.dayMin[i] <= c.dayMax[i] ? [[order, [c.dayMin[i], c.dayMax[i]]]] : [])),
          ),
          numberValid: { [NUMBER_FORMAT_DOT]: c.dotValid + c.compactDateCount, [NUMBER_FORMAT_COMMA]: c.commaValid + c.compactDateCount },
          numberSums: { [NUMBER_FORMAT_DOT]: c.dotSum, [NUMBER_FORMAT_COMMA]: c.commaSum },
          numberAmbiguous: c.numberAmbiguous,
          negatives: c.negatives,
          integers: c.nonBlank > 0 && !c.notInteger,
          numberStyle: { parentheses: c.parentheses, trailingMinus: c.trailingMinus, currency: c.currency, letters: c.letters, plain: c.numberCount > 0 && !c.decorated },
          dateValid,
          dateYears,
          examples: c.examples,
        };
      }),
    };
  }
}

/** `-?digits(.digits)?`, nothing else. */
function plainNumber(buf: Uint8Array, s: number, e: number): boolean {
  if (s < e && buf[s] === 0x2d) s++;
  let digits = 0;
  let point = false;
  for (let k = s; k < e; k++) {
    const b = buf[k];
    if (b >= 0x30 && b <= 0x39) digits++;
    else if (b === 0x2e && !point && digits > 0) point = true;
    else return false;
  }
  return digits > 0 && buf[e - 1] !== 0x2e;
}

/** `-?[0-9]{1,15}` and not a negative zero ("-0", "-00"): float8 input reads it as the integer it writes. */
function plainInteger(buf: Uint8Array, s: number, e: number): boolean {
  const negative = s < e && buf[s] === 0x2d;
  if (negative) s++;
  if (s >= e || e - s > 15) return false;
  let nonZero = false;
  for (let k = s; k < e; k++) {
    const b = buf[k];
    if (b < 0x30 || b > 0x39) return false;
    if (b !== 0x30) nonZero = true;
  }
  return nonZero || !negative;
}

function hasContent(record: RecordView, from: number): boolean {
  for (let f = from; f < record.count; f++) {
    for (let k = record.starts[f]; k < record.ends[f]; k++) if (record.buf[k] !== 0x20 && record.buf[k] !== 0x09) return true;
  }
  return false;
}

const ORDER_BITS = [ORDER_MDY, ORDER_DMY, ORDER_YMD];

function countDay(column: ColumnAccumulator, order: number, day: number): void {
  if (day < column.dayMin[order]) column.dayMin[order] = day;
  if (day > column.dayMax[order]) column.dayMax[order] = day;
}

function countQuality(column: ColumnAccumulator, quality: number, buf: Uint8Array, s: number, e: number, index: number): void {
  const note = (kind: QualityKind) => {
    if (column.qualityExamples[kind].length < EXAMPLES) column.qualityExamples[kind].push([index, text(buf, s, Math.min(e, s + 1000))]);
  };
  if (quality & Q_LONG) {
    column.longCells++;
    note("long");
  }
  if (quality & Q_NULL_LIKE) {
    column.nullLike++;
    note("nullLike");
  }
  if (quality & Q_SCIENTIFIC) {
    column.scientific++;
    note("scientific");
  }
  if (quality & Q_SPECIAL) {
    column.special++;
    note("special");
  }
}

/** A digit, then e or E, then an optional sign and a digit: 1.5E+07. */
function hasExponent(buf: Uint8Array, s: number, e: number): boolean {
  for (let k = s + 1; k < e - 1; k++) {
    const b = buf[k];
    if ((b === 0x65 || b === 0x45) && buf[k - 1] >= 0x30 && buf[k - 1] <= 0x39) {
      const at = buf[k + 1] === 0x2b || buf[k + 1] === 0x2d ? k + 2 : k + 1;
      if (at < e && buf[at] >= 0x30 && buf[at] <= 0x39) return true;
    }
  }
  return false;
}

/** Set bits in words [from, from + 4) of a 256-bit set. */
function bitCount(words: Uint32Array, from: number): number {
  let n = 0;
  for (let i = from; i < from + 4; i++) {
    let v = words[i];
    while (v !== 0) {
      v &= v - 1;
      n++;
    }
  }
  return n;
}

const decoder = new TextDecoder("utf-8");
function text(buf: Uint8Array, s: number, e: number): string {
  return decoder.decode(buf.subarray(s, e));
}

