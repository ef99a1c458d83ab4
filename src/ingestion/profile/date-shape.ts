/**
 * Recognises dates (optionally with a time) straight from UTF-8 bytes and tells which field orders
 * they are valid under. "03/04/2023" is valid as MM/dd and as dd/MM: the column stays ambiguous
 * until a value such as "13/04/2023" rules one reading out, or the user picks a `selectedFormat`.
 *
 * Formats are reported as Java-style patterns (MM/dd/yyyy, dd.MM.yy, yyyy-MM-dd HH:mm:ss,
 * dd-MMM-yyyy, MMM dd, yyyy, yyyyMMdd); the SQL side reads the field order back from the pattern.
 */

export type DateOrder = "MDY" | "DMY" | "YMD";
export const ORDER_MDY = 1;
export const ORDER_DMY = 2;
export const ORDER_YMD = 4;
const ORDERS: [number, DateOrder][] = [
  [ORDER_MDY, "MDY"],
  [ORDER_DMY, "DMY"],
  [ORDER_YMD, "YMD"],
];

const KIND_NUMERIC = 1;
const KIND_DAY_MONTHNAME = 2;
const KIND_MONTHNAME_DAY = 3;
const KIND_COMPACT = 4;

const SEPARATORS = ["", "/", "-", ".", " "];
const TIME_SUFFIX = ["", " HH:mm:ss", "'T'HH:mm:ss"];

const MONTHS: Record<string, number> = {
  jan: 1, january: 1, feb: 2, february: 2, mar: 3, march: 3, apr: 4, april: 4, may: 5, jun: 6, june: 6,
  jul: 7, july: 7, aug: 8, august: 8, sep: 9, sept: 9, september: 9, oct: 10, october: 10, nov: 11, november: 11, dec: 12, december: 12,
};

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Two-digit years as PostgreSQL reads them: 00-69 are 2000-2069, 70-99 are 1970-1999. */
const EPOCH_2000 = Date.UTC(2000, 0, 1);
export function daysSince2000(y: number, m: number, d: number): number {
  return Math.round((Date.UTC(y, m - 1, d) - EPOCH_2000) / 86_400_000);
}

export function fullYear(value: number, digits: number): number {
  if (digits === 4) return value;
  return value < 70 ? 2000 + value : 1900 + value;
}

function validDate(year: number, month: number, day: number): boolean {
  return year >= 1000 && year <= 9999 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

export class DateShape {
  /** Shape key: kind, separator, year digits and time suffix packed in one small integer. */
  shape = 0;
  /** Field orders the value is valid under (ORDER_* bits). */
  mask = 0;
  private y = 0;
  private m = 0;
  private d = 0;

  /** Parses buf[s, e) (already trimmed); true when the value is a date under at least one order. */
  parse(buf: Uint8Array, s: number, e: number): boolean {
    this.shape = 0;
    this.mask = 0;
    this.numeric3 = false;
    if (e - s < 6 || e - s > 40) return false;
    const first = buf[s];
    if (first >= 0x30 && first <= 0x39) return this.numericStart(buf, s, e);
    return this.monthNameFirst(buf, s, e);
  }

  /** The year, month and day under one order (valid only after `parse` said that order is valid). */
  ymd(order: number): [number, number, number] {
    if (!this.numeric3) return [this.y, this.m, this.d];
    const [a, b, c] = this.fields;
    if (this.firstIsYear) return [a, b, c];
    if (order === ORDER_MDY) return [fullYear(c, this.yearDigits), a, b];
    if (order === ORDER_DMY) return [fullYear(c, this.yearDigits), b, a];
    return [fullYear(a, 2), b, c];
  }

  /** `ymd(order)` as days since 2000-01-01, without building the triple (the profiler's per-value path). */
  days(order: number): number {
    if (!this.numeric3) return daysSince2000(this.y, this.m, this.d);
    const fields = this.fields;
    if (this.firstIsYear) return daysSince2000(fields[0], fields[1], fields[2]);
    if (order === ORDER_MDY) return daysSince2000(fullYear(fields[2], this.yearDigits), fields[0], fields[1]);
    if (order === ORDER_DMY) return daysSince2000(fullYear(fields[2], this.yearDigits), fields[1], fields[0]);
    return daysSince2000(fullYear(fields[0], 2), fields[1], fields[2]);
  }

  /** The two-digit year written last (see `twoDigitYears`), or -1. */
  get twoDigitYearLast(): number {
    return this.numeric3 && this.yearDigits === 2 ? this.fields[2] : -1;
  }

  /** The two-digit year written first when year-first is a valid order (see `twoDigitYears`), or -1. */
  get twoDigitYearFirst(): number {
    return this.numeric3 && this.yearDigits === 2 && this.mask & ORDER_YMD ? this.fields[0] : -1;
  }

  /** True for yyyyMMdd (eight digits, optionally with a time): also a plain number. */
  get compact(): boolean {
    return (this.shape & 15) === KIND_COMPACT;
  }

  /**
   * The two-digit year fields of a numeric date written with a two-digit year: the last field (the
   * year under MM/dd/yy and dd/MM/yy) and the first (the year under yy/MM/dd, or -1 when that order
   * is not valid). Null for other shapes. The profiler collects them over the whole column to tell
   * a year-first column from a year-last one when every value is valid both ways.
   */
  twoDigitYears(): [last: number, first: number] | null {
    if (!this.numeric3 || this.yearDigits !== 2) return null;
    return [this.fields[2], this.mask & ORDER_YMD ? this.fields[0] : -1];
  }

  private numeric3 = false;
  private firstIsYear = false;
  private yearDigits = 4;
  private readonly fields: [number, number, number] = [0, 0, 0];

  private numericStart(buf: Uint8Array, s: number, e: number): boolean {
    let k = s;
    let n1 = 0;
    while (k < e && isDigit(buf[k])) n1 = n1 * 10 + (buf[k++] - 0x30);
    const l1 = k - s;
    if (l1 === 8) {
      const time = this.time(buf, k, e);
      if (time < 0) return false;
      const year = Math.floor(n1 / 10000);
      const month = Math.floor(n1 / 100) % 100;
      const day = n1 % 100;
      if (year < 1900 || year > 2100 || !validDate(year, month, day)) return false;
      this.y = year;
      this.m = month;
      this.d = day;
      this.shape = pack(KIND_COMPACT, 0, 4, time);
      this.mask = ORDER_YMD;
      return true;
    }
    if (k >= e || (l1 !== 1 && l1 !== 2 && l1 !== 4)) return false;
    const sepByte = buf[k];
    const sep = separatorCode(sepByte);
    if (sep === 0) return false;
    k++;
    if (k < e && isLetter(buf[k])) {
      // dd-MMM-yyyy, dd MMM yyyy, dd.MMM.yy
      if (l1 > 2) return false;
      const nameStart = k;
      while (k < e && isLetter(buf[k])) k++;
      const month = monthNumber(buf, nameStart, k);
      if (month === 0) return false;
      if (k < e && buf[k] === 0x2e && sepByte !== 0x2e) k++; // "Jan."
      if (k >= e || buf[k] !== sepByte) return false;
      k++;
      const yStart = k;
      let year = 0;
      while (k < e && isDigit(buf[k])) year = year * 10 + (buf[k++] - 0x30);
      const yl = k - yStart;
      if (yl !== 2 && yl !== 4) return false;
      const time = this.time(buf, k, e);
      if (time < 0) return false;
      const full = fullYear(year, yl);
      if (!validDate(full, month, n1)) return false;
      this.y = full;
      this.m = month;
      this.d = n1;
      this.shape = pack(KIND_DAY_MONTHNAME, sep, yl, time);
      this.mask = ORDER_DMY;
      return true;
    }
    const s2 = k;
    let n2 = 0;
    while (k < e && isDigit(buf[k])) n2 = n2 * 10 + (buf[k++] - 0x30);
    const l2 = k - s2;
    if (l2 < 1 || l2 > 2 || k >= e || buf[k] !== sepByte) return false;
    k++;
    const s3 = k;
    let n3 = 0;
    while (k < e && isDigit(buf[k])) n3 = n3 * 10 + (buf[k++] - 0x30);
    const l3 = k - s3;
    const time = this.time(buf, k, e);
    if (time < 0) return false;
    let mask = 0;
    let yearDigits: number;
    this.fields[0] = n1;
    this.fields[1] = n2;
    this.fields[2] = n3;
    if (l1 === 4) {
      if (l3 < 1 || l3 > 2 || !validDate(n1, n2, n3)) return false;
      mask = ORDER_YMD;
      yearDigits = 4;
      this.firstIsYear = true;
    } else {
      if (l3 !== 2 && l3 !== 4) return false;
      yearDigits = l3;
      this.firstIsYear = false;
      const year = fullYear(n3, l3);
      if (validDate(year, n1, n2)) mask |= ORDER_MDY;
      if (validDate(year, n2, n1)) mask |= ORDER_DMY;
      // yy/MM/dd: only when all three fields are two digits.
      if (l1 === 2 && l3 === 2 && validDate(fullYear(n1, 2), n2, n3)) mask |= ORDER_YMD;
      if (mask === 0) return false;
    }
    this.numeric3 = true;
    this.yearDigits = yearDigits;
    this.shape = pack(KIND_NUMERIC, sep, yearDigits, time);
    this.mask = mask;
    return true;
  }

  /** MMM dd, yyyy / MMMM d yyyy / MMM-dd-yyyy */
  private monthNameFirst(buf: Uint8Array, s: number, e: number): boolean {
    let k = s;
    while (k < e && k - s < 10 && isLetter(buf[k])) k++;
    if (k - s < 3 || k - s > 9) return false;
    const month = monthNumber(buf, s, k);
    if (month === 0) return false;
    if (k < e && buf[k] === 0x2e) k++;
    if (k >= e || (buf[k] !== 0x20 && buf[k] !== 0x2d)) return false;
    k++;
    const ds = k;
    let day = 0;
    while (k < e && isDigit(buf[k])) day = day * 10 + (buf[k++] - 0x30);
    if (k - ds < 1 || k - ds > 2) return false;
    if (k < e && buf[k] === 0x2c) k++;
    if (k >= e || (buf[k] !== 0x20 && buf[k] !== 0x2d)) return false;
    k++;
    const ys = k;
    let year = 0;
    while (k < e && isDigit(buf[k])) year = year * 10 + (buf[k++] - 0x30);
    const yl = k - ys;
    if (yl !== 4) return false;
    const time = this.time(buf, k, e);
    if (time < 0 || !validDate(year, month, day)) return false;
    this.y = year;
    this.m = month;
    this.d = day;
    this.shape = pack(KIND_MONTHNAME_DAY, 4, 4, time);
    this.mask = ORDER_MDY;
    return true;
  }

  /** Optional time after the date: 0 none, 1 after a space, 2 after 'T'; -1 when something else follows. */
  private time(buf: Uint8Array, k: number, e: number): number {
    if (k === e) return 0;
    const lead = buf[k];
    if (lead !== 0x20 && lead !== 0x54) return -1;
    k++;
    let hours = 0;
    const hs = k;
    while (k < e && isDigit(buf[k])) hours = hours * 10 + (buf[k++] - 0x30);
    if (k - hs < 1 || k - hs > 2 || k >= e || buf[k] !== 0x3a) return -1;
    k++;
    const ms = k;
    let minutes = 0;
    while (k < e && isDigit(buf[k])) minutes = minutes * 10 + (buf[k++] - 0x30);
    if (k - ms !== 2 || minutes > 59) return -1;
    if (k < e && buf[k] === 0x3a) {
      k++;
      const ss = k;
      while (k < e && isDigit(buf[k])) k++;
      if (k - ss !== 2) return -1;
      if (k < e && buf[k] === 0x2e) {
        k++;
        while (k < e && isDigit(buf[k])) k++;
      }
    }
    let maxHours = 23;
    if (k < e && buf[k] === 0x20) k++;
    if (k + 1 < e && (buf[k] | 0x20) === 0x61 || k + 1 < e && (buf[k] | 0x20) === 0x70) {
      if ((buf[k + 1] | 0x20) !== 0x6d) return -1;
      k += 2;
      maxHours = 12;
    }
    if (k < e && (buf[k] === 0x5a || buf[k] === 0x2b || buf[k] === 0x2d)) {
      k++;
      while (k < e && (isDigit(buf[k]) || buf[k] === 0x3a)) k++;
    }
    if (k !== e || hours > maxHours) return -1;
    return lead === 0x54 ? 2 : 1;
  }
}

function pack(kind: number, sep: number, yearDigits: number, time: number): number {
  return kind | (sep << 4) | (yearDigits << 8) | (time << 12);
}

function unpack(shape: number): { kind: number; sep: number; yearDigits: number; time: number } {
  return { kind: shape & 15, sep: (shape >> 4) & 15, yearDigits: (shape >> 8) & 15, time: (shape >> 12) & 15 };
}

function separatorCode(b: number): number {
  if (b === 0x2f) return 1;
  if (b === 0x2d) return 2;
  if (b === 0x2e) return 3;
  if (b === 0x20) return 4;
  return 0;
}

function isDigit(b: number): boolean {
  return b >= 0x30 && b <= 0x39;
}

function isLetter(b: number): boolean {
  return (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7a;
}

/** Month names keyed by a base-32 code of their lower-case letters (no string is built per value). */
const MONTH_CODES = new Map<number, number>(Object.entries(MONTHS).map(([name, month]) => [nameCode(name), month]));

function nameCode(name: string): number {
  let code = 0;
  for (let i = 0; i < name.length; i++) code = code * 32 + (name.charCodeAt(i) - 0x60);
  return code;
}

function monthNumber(buf: Uint8Array, s: number, e: number): number {
  if (e - s < 3 || e - s > 9) return 0;
  let code = 0;
  for (let k = s; k < e; k++) code = code * 32 + ((buf[k] | 0x20) - 0x60);
  return MONTH_CODES.get(code) ?? 0;
}

/** The Java-style pattern of a shape read under one order, e.g. (numeric, "/", 4 digits) + MDY = MM/dd/yyyy. */
export function dateFormatOf(shape: number, order: number): string {
  const { kind, sep, yearDigits, time } = unpack(shape);
  const s = SEPARATORS[sep];
  const yy = yearDigits === 2 ? "yy" : "yyyy";
  const suffix = TIME_SUFFIX[time];
  switch (kind) {
    case KIND_COMPACT:
      return `yyyyMMdd${suffix}`;
    case KIND_DAY_MONTHNAME:
      return `dd${s}MMM${s}${yy}${suffix}`;
    case KIND_MONTHNAME_DAY:
      return `MMM dd, yyyy${suffix}`;
    default:
      if (order === ORDER_MDY) return `MM${s}dd${s}${yy}${suffix}`;
      if (order === ORDER_DMY) return `dd${s}MM${s}${yy}${suffix}`;
      return `${yy}${s}MM${s}dd${suffix}`;
  }
}

/** Whether a pattern writes its year with two digits first (yy/MM/dd) or last (MM/dd/yy, dd/MM/yy); null otherwise. */
export function twoDigitYearPosition(format: string): "first" | "last" | null {
  if (format.includes("yyyy") || !format.includes("yy") || format.includes("MMM")) return null;
  return format.startsWith("yy") ? "first" : "last";
}

/** Field order of a pattern: the order in which y, M and d first appear. */
export function dateOrderOf(format: string): DateOrder {
  const y = format.indexOf("y");
  const m = format.indexOf("M");
  const d = format.indexOf("d");
  if (y >= 0 && y < m && y < d) return "YMD";
  if (d >= 0 && d < m) return "DMY";
  return "MDY";
}

export function orderBits(order: DateOrder): number {
  return order === "MDY" ? ORDER_MDY : order === "DMY" ? ORDER_DMY : ORDER_YMD;
}

export function ordersOf(mask: number): number[] {
  return ORDERS.filter(([bit]) => mask & bit).map(([bit]) => bit);
}

/** Parses a string under a pattern's order, the way the profiler does. ISO date text, or null. */
export function parseDateText(text: string, format: string): string | null {
  const shape = new DateShape();
  const bytes = new TextEncoder().encode(text.trim());
  if (!shape.parse(bytes, 0, bytes.length)) return null;
  const bit = orderBits(dateOrderOf(format));
  if (!(shape.mask & bit)) return null;
  const [y, m, d] = shape.ymd(bit);
  return `${String(y).padStart(4, "0")}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`;
}
