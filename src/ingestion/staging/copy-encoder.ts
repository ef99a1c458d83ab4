import { utf8SequenceLength } from "../csv/encoding.js";
import type { RecordView } from "../csv/tokenizer.js";

const TAB = 0x09;
const NEWLINE = 0x0a;
const BACKSLASH = 0x5c;
const OUT_CHUNK = 1 << 20;

/**
 * Encodes data rows in PostgreSQL's COPY text format for a staging table
 * (row_no, c0 .. c{width-1}, extra): fields trimmed, blanks as NULL, backslash, tab and line breaks
 * escaped, invalid UTF-8 replaced by U+FFFD and NUL bytes dropped (PostgreSQL refuses both), fields
 * beyond the width joined into `extra` with the file's delimiter. Output accumulates in 1 MiB
 * buffers handed out by `take()`.
 */
export class CopyRowEncoder {
  private out = Buffer.allocUnsafe(OUT_CHUNK);
  private pos = 0;
  private ready: Buffer[] = [];
  rows = 0;
  /** Invalid UTF-8 sequences replaced by U+FFFD. */
  invalid = 0;

  constructor(
    private readonly width: number,
    private readonly delimiter: number,
    /** Fields with a typed shadow column, written after `extra` in this order. */
    private readonly shadowFields: number[] = [],
  ) {}

  /** Appends one row; `shadowSet`/`shadowValue` hold the typed values of this row per field. */
  encode(record: RecordView, shadowSet?: Uint8Array, shadowValue?: Float64Array): void {
    const { buf, starts, ends, count } = record;
    let span = 0;
    for (let f = 0; f < count; f++) span += ends[f] - starts[f];
    this.ensure(32 + 3 * span + 3 * Math.max(count, this.width) + 24 * this.shadowFields.length);
    const out = this.out;
    let p = this.writeInteger(record.index);
    for (let f = 0; f < this.width; f++) {
      out[p++] = TAB;
      p = f < count ? this.writeField(buf, starts[f], ends[f], p) : this.writeNull(p);
    }
    out[p++] = TAB;
    if (count > this.width) {
      const start = p;
      for (let f = this.width; f < count; f++) {
        if (f > this.width) p = this.writeRaw(this.delimiter, p);
        p = this.writeField(buf, starts[f], ends[f], p, true);
      }
      // Only delimiters (trailing empty fields) is no extra content.
      let content = false;
      for (let k = start; k < p; k++) if (out[k] !== this.delimiter) content = true;
      if (!content) p = this.writeNull(start);
    } else {
      p = this.writeNull(p);
    }
    for (const f of this.shadowFields) {
      out[p++] = TAB;
      if (shadowSet && shadowValue && shadowSet[f] === 1) {
        p = this.writeDigits(shadowValue[f], p);
      } else {
        p = this.writeNull(p);
      }
    }
    out[p++] = NEWLINE;
    this.pos = p;
    this.rows++;
  }

  /** Full buffers, and with `all` the partial one too. */
  take(all = false): Buffer[] {
    if (all && this.pos > 0) {
      this.ready.push(this.out.subarray(0, this.pos));
      this.out = Buffer.allocUnsafe(OUT_CHUNK);
      this.pos = 0;
    }
    const ready = this.ready;
    this.ready = [];
    return ready;
  }

  private ensure(bytes: number): void {
    if (this.pos + bytes <= this.out.length) return;
    if (this.pos > 0) this.ready.push(this.out.subarray(0, this.pos));
    this.out = Buffer.allocUnsafe(Math.max(OUT_CHUNK, bytes));
    this.pos = 0;
  }

  private writeRaw(byte: number, p: number): number {
    this.out[p] = byte;
    return p + 1;
  }

  private writeNull(p: number): number {
    this.out[p] = BACKSLASH;
    this.out[p + 1] = 0x4e; // N
    return p + 2;
  }

  private writeInteger(value: number): number {
    return this.writeDigits(value, this.pos);
  }

  /** Writes an integer (|value| < 2^53) as decimal digits without building a string. */
  private writeDigits(value: number, p: number): number {
    const out = this.out;
    if (value < 0) {
      out[p++] = 0x2d;
      value = -value;
    }
    if (value < 10) {
      out[p] = 0x30 + value;
      return p + 1;
    }
    let digits = 0;
    for (let v = value; v >= 1; v = Math.floor(v / 10)) digits++;
    let at = p + digits - 1;
    for (let v = value; v >= 1; v = Math.floor(v / 10)) out[at--] = 0x30 + (v % 10);
    return p + digits;
  }

  private writeField(buf: Uint8Array, s: number, e: number, p: number, keepBlank = false): number {
    while (s < e && (buf[s] === 0x20 || buf[s] === TAB)) s++;
    while (e > s && (buf[e - 1] === 0x20 || buf[e - 1] === TAB)) e--;
    if (s === e) return keepBlank ? p : this.writeNull(p);
    const out = this.out;
    for (let k = s; k < e; k++) {
      const b = buf[k];
      // Printable ASCII other than backslash: copied as is (almost every byte of a ledger).
      if (b >= 0x20 && b < 0x80 && b !== BACKSLASH) {
        out[p++] = b;
        continue;
      }
      if (b >= 0x80) {
        const len = utf8SequenceLength(buf, k, e);
        if (len > 0) {
          for (let j = 0; j < len; j++) out[p++] = buf[k + j];
          k += len - 1;
        } else {
          out[p++] = 0xef;
          out[p++] = 0xbf;
          out[p++] = 0xbd;
          this.invalid++;
        }
        continue;
      }
      if (b === BACKSLASH) {
        out[p++] = BACKSLASH;
        out[p++] = BACKSLASH;
      } else if (b === TAB) {
        out[p++] = BACKSLASH;
        out[p++] = 0x74;
      } else if (b === NEWLINE) {
        out[p++] = BACKSLASH;
        out[p++] = 0x6e;
      } else if (b === 0x0d) {
        out[p++] = BACKSLASH;
        out[p++] = 0x72;
      } else if (b !== 0) {
        out[p++] = b;
      }
    }
    return p;
  }
}
