import { utf8SequenceLength } from "../csv/encoding.js";
import type { RecordView } from "../csv/tokenizer.js";
import { literal } from "../sql/identifiers.js";

const LF = 0x0a;
const CR = 0x0d;
const OUT_CHUNK = 1 << 20;

/** "00" to "99" as ASCII bytes. */
const PAIRS = new Uint8Array(200);
for (let i = 0; i < 100; i++) {
  PAIRS[2 * i] = 0x30 + Math.floor(i / 10);
  PAIRS[2 * i + 1] = 0x30 + (i % 10);
}

/** Decimal digits of 0 <= v < 2^31. */
function digitCount(v: number): number {
  if (v < 100000) return v < 10 ? 1 : v < 100 ? 2 : v < 1000 ? 3 : v < 10000 ? 4 : 5;
  return v < 1000000 ? 6 : v < 10000000 ? 7 : v < 100000000 ? 8 : v < 1000000000 ? 9 : 10;
}

/**
 * Encodes data rows as CSV for `COPY ... (FORMAT csv)` into a staging table
 * (row_no, c0 .. c{width-1}, extra, shadows): a row of the file whose bytes are clean and regular
 * is passed through as it is (one memory copy: PostgreSQL parses the same CSV dialect), other rows
 * are rebuilt field by field: trimmed, quoted when needed, invalid UTF-8 replaced by U+FFFD, NUL
 * bytes dropped, fields beyond the width joined into `extra`. Output accumulates in 1 MiB buffers
 * handed out by `take()`.
 */
export class CopyRowEncoder {
  private out = Buffer.allocUnsafe(OUT_CHUNK);
  private pos = 0;
  private ready: Buffer[] = [];
  rows = 0;
  /** Rows passed through unchanged (for tests and tuning). */
  passedThrough = 0;
  private readonly quote: number;

  constructor(
    private readonly width: number,
    private readonly delimiter: number,
    /** The file's quote byte, or -1 (rows are then always rebuilt, quoted with '"'). */
    fileQuote: number,
    /** Fields with a typed shadow column, written after `extra` in this order. */
    private readonly shadowFields: number[] = [],
  ) {
    this.quote = fileQuote >= 0 ? fileQuote : 0x22;
    this.passThrough = fileQuote >= 0;
  }

  private readonly passThrough: boolean;

  /** COPY options matching the encoding, for the columns listed. */
  copyOptions(columns: string[]): string {
    const q = String.fromCharCode(this.quote);
    return `FORMAT csv, DELIMITER ${literal(String.fromCharCode(this.delimiter))}, QUOTE ${literal(q)}, ESCAPE ${literal(q)}, NULL '', FORCE_NULL (${columns.join(", ")})`;
  }

  /**
   * Appends one row. `shadowSet`/`shadowValue` hold the row's typed values per field; `clean`
   * says the bytes are valid UTF-8 without NUL, so that they may be passed through.
   */
  encode(record: RecordView, shadowSet: Uint8Array | undefined, shadowValue: Float64Array | undefined, clean: boolean): void {
    const { buf, starts, ends, count } = record;
    const raw = record.end - record.start;
    this.ensure(48 + 3 * raw + 3 * Math.max(count, this.width) + 24 * this.shadowFields.length);
    const out = this.out;
    let p = this.writeDigits(record.index, this.pos);
    out[p++] = this.delimiter;
    if (clean && this.passThrough && !record.rewritten && count === this.width) {
      p = this.copyBytes(buf, record.start, record.end, p);
      out[p++] = this.delimiter; // extra: NULL
      this.passedThrough++;
    } else {
      for (let f = 0; f < this.width; f++) {
        if (f > 0) out[p++] = this.delimiter;
        if (f < count) p = this.writeField(buf, starts[f], ends[f], p);
      }
      out[p++] = this.delimiter;
      if (count > this.width) p = this.writeExtra(record, p);
    }
    for (const f of this.shadowFields) {
      out[p++] = this.delimiter;
      if (shadowSet && shadowValue && shadowSet[f] === 1) p = this.writeDigits(shadowValue[f], p);
    }
    out[p++] = LF;
    this.pos = p;
    this.rows++;
  }

  private source: Uint8Array | null = null;
  private sourceView: Buffer = Buffer.alloc(0);

  /** A Buffer over the record's bytes, made once per input chunk: its native copy needs no view per row. */
  private sourceBuffer(buf: Uint8Array): Buffer {
    if (buf !== this.source) {
      this.source = buf;
      this.sourceView = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
    }
    return this.sourceView;
  }

  /**
   * Copies buf[s, e) to the output at `p`. A row or field of up to a few hundred bytes is copied
   * by a loop: Buffer#copy of a range makes a Uint8Array view per call, which for a million rows
   * costs more than the bytes and feeds the garbage collector about 80 MB.
   */
  private copyBytes(buf: Uint8Array, s: number, e: number, p: number): number {
    if (e - s > 256) return p + this.sourceBuffer(buf).copy(this.out, p, s, e);
    const out = this.out;
    for (let k = s; k < e; k++) out[p++] = buf[k];
    return p;
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

  /** Writes an integer (|value| < 2^53) as decimal digits without building a string. */
  private writeDigits(value: number, p: number): number {
    const out = this.out;
    if (value < 0) {
      out[p++] = 0x2d;
      value = -value;
    }
    if (value > 0x7fffffff) {
      let digits = 0;
      for (let v = value; v >= 1; v = Math.floor(v / 10)) digits++;
      let at = p + digits - 1;
      for (let v = value; v >= 1; v = Math.floor(v / 10)) out[at--] = 0x30 + (v % 10);
      return p + digits;
    }
    // Two digits per division (row numbers, day numbers and amounts are written for every row).
    let v = value | 0;
    const end = p + digitCount(v);
    let at = end;
    while (v >= 100) {
      const q = (v / 100) | 0;
      const pair = (v - q * 100) << 1;
      out[--at] = PAIRS[pair + 1];
      out[--at] = PAIRS[pair];
      v = q;
    }
    if (v >= 10) {
      out[--at] = PAIRS[(v << 1) + 1];
      out[--at] = PAIRS[v << 1];
    } else {
      out[--at] = 0x30 + v;
    }
    return end;
  }

  /** One field, trimmed; blank writes nothing (NULL); quoted when it holds the delimiter, a quote or a line break. */
  private writeField(buf: Uint8Array, s: number, e: number, p: number): number {
    while (s < e && (buf[s] === 0x20 || buf[s] === 0x09)) s++;
    while (e > s && (buf[e - 1] === 0x20 || buf[e - 1] === 0x09)) e--;
    if (s === e) return p;
    const out = this.out;
    const quote = this.quote;
    const delimiter = this.delimiter;
    let special = false;
    for (let k = s; k < e; k++) {
      const b = buf[k];
      if (b === delimiter || b === quote || b === LF || b === CR || b === 0 || b >= 0x80) {
        special = true;
        break;
      }
    }
    if (!special) return this.copyBytes(buf, s, e, p);
    out[p++] = quote;
    for (let k = s; k < e; k++) {
      const b = buf[k];
      if (b >= 0x80) {
        const len = utf8SequenceLength(buf, k, e);
        if (len > 0) {
          for (let j = 0; j < len; j++) out[p++] = buf[k + j];
          k += len - 1;
        } else {
          out[p++] = 0xef;
          out[p++] = 0xbf;
          out[p++] = 0xbd;
        }
        continue;
      }
      if (b === 0) continue;
      if (b === quote) out[p++] = quote;
      out[p++] = b;
    }
    out[p++] = quote;
    return p;
  }

  /** Fields beyond the width, joined with the file's delimiter into one quoted field (NULL when all blank). */
  private writeExtra(record: RecordView, p: number): number {
    let any = false;
    for (let f = this.width; f < record.count; f++) {
      for (let k = record.starts[f]; k < record.ends[f]; k++) {
        if (record.buf[k] !== 0x20 && record.buf[k] !== 0x09) any = true;
      }
    }
    if (!any) return p;
    const out = this.out;
    out[p++] = this.quote;
    for (let f = this.width; f < record.count; f++) {
      if (f > this.width) out[p++] = this.delimiter;
      for (let k = record.starts[f]; k < record.ends[f]; k++) {
        const b = record.buf[k];
        if (b >= 0x80) {
          const len = utf8SequenceLength(record.buf, k, record.ends[f]);
          if (len > 0) {
            for (let j = 0; j < len; j++) out[p++] = record.buf[k + j];
            k += len - 1;
          } else {
            out[p++] = 0xef;
            out[p++] = 0xbf;
            out[p++] = 0xbd;
          }
          continue;
        }
        if (b === 0) continue;
        if (b === this.quote) out[p++] = this.quote;
        out[p++] = b;
      }
    }
    out[p++] = this.quote;
    return p;
  }
}
