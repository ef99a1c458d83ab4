/**
 * Recognises amounts as accounting packages write them, straight from UTF-8 bytes: signs, parentheses
 * and trailing minus for negatives, currency symbols or ISO codes, thousands separators (comma, dot,
 * space, no-break space, apostrophe), decimal point or decimal comma, exponents. A value can be
 * valid under the decimal-point reading, the decimal-comma reading, or both ("1,234").
 */

export const NUMBER_FORMAT_DOT = "#,##0.00";
export const NUMBER_FORMAT_COMMA = "#.##0,00";
export type NumberFormat = typeof NUMBER_FORMAT_DOT | typeof NUMBER_FORMAT_COMMA;

const MAX_RUNS = 12;
const SEP_COMMA = 1;
const SEP_DOT = 2;
const SEP_SPACE = 3; // space, no-break space, narrow no-break space
const SEP_APOSTROPHE = 4;

export class NumberShape {
  /** Valid under the decimal-point reading (1,234.56). */
  dotOk = false;
  /** Valid under the decimal-comma reading (1.234,56). */
  commaOk = false;
  dotCents = 0;
  commaCents = 0;
  negative = false;
  parentheses = false;
  trailingMinus = false;
  currency = false;
  /** Letters around the number (ISO codes, CR/DR): the SQL side then needs a regular expression. */
  letters = false;
  creditSuffix = false;
  private readonly runStart = new Int32Array(MAX_RUNS);
  private readonly runLength = new Int32Array(MAX_RUNS);
  private readonly seps = new Int32Array(MAX_RUNS);

  /** Parses buf[s, e) (already trimmed); true when at least one reading is valid. */
  parse(buf: Uint8Array, s: number, e: number): boolean {
    this.dotOk = this.commaOk = false;
    this.negative = this.parentheses = this.trailingMinus = this.currency = this.letters = this.creditSuffix = false;
    if (s >= e) return false;
    let i = s;
    let j = e;
    if (buf[i] === 0x28 /* ( */) {
      if (buf[j - 1] !== 0x29) return false;
      this.parentheses = this.negative = true;
      i++;
      j--;
    }
    i = this.skipSignAndCurrencyPrefix(buf, i, j);
    if (i < 0) return false;
    j = this.skipSuffix(buf, i, j);
    if (j < 0 || i >= j) return false;
    return this.body(buf, i, j);
  }

  /** After `parseSimple` answered 0 or 1: the value is written plainly (`-?digits(.digits)?`). */
  plain = false;

  /**
   * The common shapes in one pass (amounts and codes of ledgers: "-1,234.56", "12.50", "10450"):
   * ASCII digits with ',' or '.' between them, after an optional '-'. -1 when buf[s, e) is anything
   * else or might be a date (eight digits, two dots without a comma): `parse` then (and the date
   * parser before it) decides. Otherwise what `parse` would answer (1 valid, 0 not a number) with the
   * same fields set, since such a value has no prefix or suffix for `parse` to strip and its digit
   * runs go through the same readings.
   */
  parseSimple(buf: Uint8Array, s: number, e: number): number {
    let i = s;
    const negative = buf[i] === 0x2d;
    if (negative) i++;
    if (i >= e || e - s > 40) return -1;
    let runs = 0;
    let runOpen = false;
    let commas = 0;
    let dots = 0;
    for (let k = i; k < e; k++) {
      const b = buf[k];
      if (b >= 0x30 && b <= 0x39) {
        if (!runOpen) {
          if (!this.startRun(runs, k)) return -1;
          runs++;
          runOpen = true;
        }
        this.runLength[runs - 1]++;
        continue;
      }
      // A separator must follow digits (a leading ".5" is left to `parse`).
      if (!runOpen) return -1;
      if (b === 0x2c) {
        commas++;
        this.seps[runs - 1] = SEP_COMMA;
      } else if (b === 0x2e) {
        dots++;
        this.seps[runs - 1] = SEP_DOT;
      } else {
        return -1;
      }
      runOpen = false;
    }
    if (!runOpen) return -1;
    // Dates: yyyyMMdd, and dd.MM.yyyy-like values (a comma rules a date out).
    if (commas === 0 && (dots >= 2 || (dots === 0 && !negative && e - s === 8))) return -1;
    this.negative = negative;
    this.parentheses = this.trailingMinus = this.currency = this.letters = this.creditSuffix = false;
    this.plain = commas === 0 && dots <= 1;
    this.dotOk = this.reading(buf, runs, SEP_DOT, SEP_COMMA, true);
    this.commaOk = this.reading(buf, runs, SEP_COMMA, SEP_DOT, false);
    return this.dotOk || this.commaOk ? 1 : 0;
  }

  private skipSignAndCurrencyPrefix(buf: Uint8Array, i: number, j: number): number {
    for (let round = 0; round < 3 && i < j; round++) {
      const b = buf[i];
      if (b === 0x2d /* - */ || b === 0x2b /* + */) {
        if (b === 0x2d) this.negative = !this.negative;
        i++;
        continue;
      }
      const symbol = currencySymbolLength(buf, i, j);
      if (symbol > 0) {
        this.currency = true;
        i += symbol;
        while (i < j && buf[i] === 0x20) i++;
        continue;
      }
      // ISO code prefix: "USD 1,234.00", "EUR-12,00".
      if (i + 3 < j && isUpper(buf[i]) && isUpper(buf[i + 1]) && isUpper(buf[i + 2]) && (buf[i + 3] === 0x20 || buf[i + 3] === 0x2d || isDigit(buf[i + 3]))) {
        this.currency = this.letters = true;
        i += 3;
        while (i < j && buf[i] === 0x20) i++;
        continue;
      }
      break;
    }
    return i;
  }

  private skipSuffix(buf: Uint8Array, i: number, j: number): number {
    for (let round = 0; round < 3 && j > i; round++) {
      while (j > i && buf[j - 1] === 0x20) j--;
      const last = buf[j - 1];
      if (last === 0x2d /* - */ && j - 1 > i) {
        this.trailingMinus = true;
        this.negative = !this.negative;
        j--;
        continue;
      }
      // CR / DR markers (credit / debit) used by many ledgers.
      if (j - 2 > i && (last === 0x52 || last === 0x72) && ((buf[j - 2] | 0x20) === 0x63 || (buf[j - 2] | 0x20) === 0x64)) {
        if ((buf[j - 2] | 0x20) === 0x63) {
          this.creditSuffix = true;
          this.negative = !this.negative;
        }
        this.letters = true;
        j -= 2;
        continue;
      }
      const symbol = currencySymbolLengthBackwards(buf, i, j);
      if (symbol > 0) {
        this.currency = true;
        j -= symbol;
        continue;
      }
      if (j - 3 > i && isUpper(buf[j - 1]) && isUpper(buf[j - 2]) && isUpper(buf[j - 3]) && buf[j - 4] === 0x20) {
        this.currency = this.letters = true;
        j -= 4;
        continue;
      }
      break;
    }
    while (j > i && buf[j - 1] === 0x20) j--;
    return j;
  }

  /** Opens digit run `runs` at byte k; false when MAX_RUNS runs are open already. */
  private startRun(runs: number, k: number): boolean {
    if (runs === MAX_RUNS) return false;
    this.runStart[runs] = k;
    this.runLength[runs] = 0;
    return true;
  }

  private body(buf: Uint8Array, i: number, j: number): boolean {
    let runs = 0;
    let runOpen = false;
    let exponentAt = -1;
    for (let k = i; k < j; k++) {
      const b = buf[k];
      if (b >= 0x30 && b <= 0x39) {
        if (!runOpen) {
          if (!this.startRun(runs, k)) return false;
          runs++;
          runOpen = true;
        }
        this.runLength[runs - 1]++;
        continue;
      }
      let sep = 0;
      let width = 1;
      if (b === 0x2c) sep = SEP_COMMA;
      else if (b === 0x2e) sep = SEP_DOT;
      else if (b === 0x20) sep = SEP_SPACE;
      else if (b === 0x27 || b === 0xe2 && buf[k + 1] === 0x80 && buf[k + 2] === 0x99) {
        sep = SEP_APOSTROPHE;
        if (b === 0xe2) width = 3;
      } else if (b === 0xc2 && buf[k + 1] === 0xa0) {
        sep = SEP_SPACE;
        width = 2;
      } else if (b === 0xe2 && buf[k + 1] === 0x80 && buf[k + 2] === 0xaf) {
        sep = SEP_SPACE;
        width = 3;
      } else if ((b === 0x65 || b === 0x45) && runs > 0 && runOpen) {
        exponentAt = k;
        break;
      } else {
        return false;
      }
      // Separators sit between digit runs; a leading decimal separator (".5") is allowed.
      if (!runOpen && !(runs === 0 && (sep === SEP_DOT || sep === SEP_COMMA))) return false;
      if (runs === 0) {
        this.runStart[0] = k;
        this.runLength[0] = 0;
        runs = 1;
      }
      this.seps[runs - 1] = sep;
      runOpen = false;
      k += width - 1;
    }
    if (runs === 0 || !runOpen) return false;
    if (exponentAt >= 0) return this.exponent(buf, i, j, exponentAt, runs);
    this.dotOk = this.reading(buf, runs, SEP_DOT, SEP_COMMA, true);
    this.commaOk = this.reading(buf, runs, SEP_COMMA, SEP_DOT, false);
    return this.dotOk || this.commaOk;
  }

  /**
   * One reading: `decimal` may appear once, as the last separator; every other separator groups
   * thousands (runs of exactly 3 digits after it, 1-3 before the first). `groupChar` is the other
   * punctuation mark allowed as a grouping separator in this reading.
   */
  private reading(buf: Uint8Array, runs: number, decimal: number, groupChar: number, dot: boolean): boolean {
    const separators = runs - 1;
    let decimalIndex = -1;
    for (let r = 0; r < separators; r++) {
      const sep = this.seps[r];
      if (sep === decimal) {
        if (decimalIndex >= 0 || r !== separators - 1) return false;
        decimalIndex = r;
      } else if (sep !== groupChar && sep !== SEP_SPACE && sep !== SEP_APOSTROPHE) {
        return false;
      }
    }
    const integerRuns = decimalIndex >= 0 ? decimalIndex + 1 : runs;
    if (integerRuns > 1) {
      const first = this.runLength[0];
      if (first < 1 || first > 3) return false;
      // "0.125" is a decimal, never zero thousand one hundred and twenty-five.
      if (buf[this.runStart[0]] === 0x30) return false;
      for (let r = 1; r < integerRuns; r++) if (this.runLength[r] !== 3) return false;
    }
    let integer = 0;
    for (let r = 0; r < integerRuns; r++) integer = accumulate(integer, buf, this.runStart[r], this.runLength[r]);
    let cents = integer * 100;
    if (decimalIndex >= 0) {
      const start = this.runStart[runs - 1];
      const length = this.runLength[runs - 1];
      let fraction = 0;
      for (let k = 0; k < length && k < 3; k++) fraction = fraction * 10 + (buf[start + k] - 0x30);
      if (length === 1) cents += fraction * 10;
      else if (length === 2) cents += fraction;
      else cents += Math.round(fraction / 10);
    }
    if (this.negative) cents = -cents;
    if (dot) this.dotCents = cents;
    else this.commaCents = cents;
    return true;
  }

  private exponent(buf: Uint8Array, i: number, j: number, at: number, runs: number): boolean {
    // Scientific notation only in the decimal-point reading, without grouping: "1.5E+03".
    for (let r = 0; r < runs - 1; r++) if (this.seps[r] !== SEP_DOT || runs > 2) return false;
    let text = "";
    for (let k = i; k < j; k++) text += String.fromCharCode(buf[k]);
    const value = Number(text);
    if (!Number.isFinite(value) || !/^[0-9.]+[eE][+-]?[0-9]+$/.test(text) || at + 1 >= j) return false;
    this.dotOk = true;
    this.dotCents = Math.round(value * 100) * (this.negative ? -1 : 1);
    return true;
  }
}

function accumulate(value: number, buf: Uint8Array, start: number, length: number): number {
  for (let k = 0; k < length; k++) value = value * 10 + (buf[start + k] - 0x30);
  return value;
}

function isDigit(b: number): boolean {
  return b >= 0x30 && b <= 0x39;
}

function isUpper(b: number): boolean {
  return b >= 0x41 && b <= 0x5a;
}

/** $, €, £, ¥ at position i (UTF-8 lengths 1, 3, 2, 2). */
function currencySymbolLength(buf: Uint8Array, i: number, j: number): number {
  const b = buf[i];
  if (b === 0x24) return 1;
  if (b === 0xe2 && i + 2 < j && buf[i + 1] === 0x82 && buf[i + 2] === 0xac) return 3;
  if (b === 0xc2 && i + 1 < j && (buf[i + 1] === 0xa3 || buf[i + 1] === 0xa5)) return 2;
  return 0;
}

function currencySymbolLengthBackwards(buf: Uint8Array, i: number, j: number): number {
  if (j - 1 >= i && buf[j - 1] === 0x24) return 1;
  if (j - 3 >= i && buf[j - 3] === 0xe2 && buf[j - 2] === 0x82 && buf[j - 1] === 0xac) return 3;
  if (j - 2 >= i && buf[j - 2] === 0xc2 && (buf[j - 1] === 0xa3 || buf[j - 1] === 0xa5)) return 2;
  return 0;
}

/** Parses a string the way the profiler does (tests, samples, previews). Cents, or null. */
export function parseAmountText(text: string, format: NumberFormat = NUMBER_FORMAT_DOT): number | null {
  const shape = new NumberShape();
  const bytes = new TextEncoder().encode(text.trim());
  if (!shape.parse(bytes, 0, bytes.length)) return null;
  if (format === NUMBER_FORMAT_DOT) return shape.dotOk ? shape.dotCents : null;
  return shape.commaOk ? shape.commaCents : null;
}
