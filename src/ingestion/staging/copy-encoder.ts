import { utf8SequenceLength } from "../csv/encoding.js";
import type { RecordView } from "../csv/tokenizer.js";
import type { ShadowSpec } from "../profile/profiler.js";

const OUT_CHUNK = 1 << 20;

/** `PGCOPY\n\377\r\n\0`, then the flags and the header extension's length (both 0). */
const SIGNATURE = Buffer.from([0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00, 0, 0, 0, 0, 0, 0, 0, 0]);
const TWO_32 = 2 ** 32;

/**
 * Encodes data rows for `COPY ... (FORMAT binary)` into a staging table
 * (row_no bigint, c0 .. c{width-1} text, extra text, shadows: n<i> bigint, d<i> integer): each
 * field goes with its length, so PostgreSQL neither splits lines and fields nor unquotes, and the
 * numbers go as 8 or 4 bytes instead of digits (about 0.4 s of PostgreSQL's CPU per million
 * ledger lines, against CSV).
 *
 * The rows are the ones the earlier CSV encoding gave PostgreSQL's CSV reader (with `NULL ''` and
 * FORCE_NULL on every text column), value for value:
 * - a clean, regular row (valid UTF-8 without NUL, nothing unquoted or collapsed, the header's
 *   width, in a file with quoting) keeps every field as the file has it (quotes removed, blanks
 *   around it kept); an empty field is NULL;
 * - any other row is rebuilt field by field: trimmed of spaces and tabs, invalid UTF-8 replaced by
 *   U+FFFD, NUL bytes dropped, fields beyond the width joined with the delimiter into `extra`
 *   (NULL when all blank); a field left empty is NULL.
 * Output accumulates in 1 MiB buffers handed out by `take()`; `finish()` ends the data.
 */
export class CopyRowEncoder {
  private out: Buffer = Buffer.allocUnsafe(OUT_CHUNK);
  private pos = 0;
  private ready: Buffer[] = [];
  rows = 0;
  /** Rows whose fields went as the file had them (for tests and tuning). */
  passedThrough = 0;
  private readonly passThrough: boolean;
  /** Fields per tuple: row_no, the text columns, extra, the shadows. */
  private readonly fieldCount: number;
  /** Fields with a typed shadow, written after `extra` in this order. */
  private readonly shadowFields: number[] = [];
  /** Per shadow field: 8 (bigint, amounts) or 4 (integer, dates) bytes. */
  private readonly shadowBytes: number[] = [];

  constructor(
    private readonly width: number,
    private readonly delimiter: number,
    /** The file's quote byte, or -1 (every row is then rebuilt). */
    fileQuote: number,
    /** The typed shadows per field (stage.ts's plan). */
    shadows: readonly ShadowSpec[] = [],
  ) {
    this.passThrough = fileQuote >= 0;
    shadows.forEach((spec, f) => {
      if (!spec) return;
      this.shadowFields.push(f);
      this.shadowBytes.push(spec.kind === "MONEY_100" ? 8 : 4);
    });
    this.fieldCount = width + 2 + this.shadowFields.length;
    SIGNATURE.copy(this.out, 0);
    this.pos = SIGNATURE.length;
  }

  /** COPY options matching the encoding. */
  static copyOptions(): string {
    return "FORMAT binary";
  }

  /**
   * Appends one row. `shadowSet`/`shadowValue` hold the row's typed values per field; `clean`
   * says the bytes are valid UTF-8 without NUL, so that they may be passed on as they are.
   */
  encode(record: RecordView, shadowSet: Uint8Array | undefined, shadowValue: Float64Array | undefined, clean: boolean): void {
    const { buf, starts, ends, count } = record;
    const raw = record.end - record.start;
    this.ensure(64 + 3 * raw + 4 * Math.max(count, this.width) + 12 * this.shadowFields.length);
    const out = this.out;
    let p = this.pos;
    this.outView.setInt16(p, this.fieldCount);
    this.outView.setInt32(p + 2, 8);
    p = this.writeInt64(record.index, p + 6);
    if (clean && this.passThrough && !record.rewritten && count === this.width) {
      // The hot path (every row of a regular file): lengths and bytes written inline.
      const inView = this.inputView(buf);
      const outView = this.outView;
      const inLength = buf.length;
      for (let f = 0; f < count; f++) {
        const s = starts[f];
        const e = ends[f];
        const length = e - s;
        if (length === 0) {
          outView.setInt32(p, -1);
          p += 4;
        } else if (length > 256) {
          p = this.copyBytes(buf, s, e, this.writeInt32(length, p));
        } else {
          outView.setInt32(p, length);
          p += 4;
          // Four bytes at a time: a third less CPU than byte by byte for ledger fields. Where the
          // input has them, the last group's bytes past the field are copied too (no byte loop for
          // the rest): they land where the next length or field is written over them.
          let k = s;
          if (s + ((length + 3) & ~3) <= inLength) {
            for (; k < e; k += 4, p += 4) outView.setUint32(p, inView.getUint32(k, true), true);
            p -= k - e;
          } else {
            for (; k + 4 <= e; k += 4, p += 4) outView.setUint32(p, inView.getUint32(k, true), true);
            for (; k < e; k++) out[p++] = buf[k];
          }
        }
      }
      outView.setInt32(p, -1); // extra: NULL
      p += 4;
      this.passedThrough++;
    } else {
      for (let f = 0; f < this.width; f++) p = f < count ? this.writeField(buf, starts[f], ends[f], p, clean) : this.writeInt32(-1, p);
      p = count > this.width ? this.writeExtra(record, p) : this.writeInt32(-1, p);
    }
    const shadowFields = this.shadowFields;
    for (let i = 0; i < shadowFields.length; i++) {
      const f = shadowFields[i];
      if (!shadowSet || !shadowValue || shadowSet[f] !== 1) {
        p = this.writeInt32(-1, p);
        continue;
      }
      const bytes = this.shadowBytes[i];
      this.writeInt32(bytes, p);
      p = bytes === 8 ? this.writeInt64(shadowValue[f], p + 4) : this.writeInt32(shadowValue[f], p + 4);
    }
    this.pos = p;
    this.rows++;
  }

  /** DataViews over the output buffer and the last input buffer (for copying fields four bytes at a time). */
  private outView: DataView<ArrayBufferLike> = new DataView(this.out.buffer, this.out.byteOffset, this.out.byteLength);
  private viewed: Uint8Array | null = null;
  private viewedBytes: DataView<ArrayBufferLike> = new DataView(new ArrayBuffer(0));

  private inputView(buf: Uint8Array): DataView<ArrayBufferLike> {
    if (buf !== this.viewed) {
      this.viewed = buf;
      this.viewedBytes = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    }
    return this.viewedBytes;
  }

  /** Makes `buffer` the output buffer. */
  private setOut(buffer: Buffer): void {
    this.out = buffer;
    this.outView = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
    this.pos = 0;
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
   * Copies buf[s, e) to the output at `p`. A field of up to a few hundred bytes is copied by a
   * loop: Buffer#copy of a range makes a Uint8Array view per call, which for a million rows costs
   * more than the bytes and feeds the garbage collector.
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
      this.setOut(Buffer.allocUnsafe(OUT_CHUNK));
    }
    const ready = this.ready;
    this.ready = [];
    return ready;
  }

  /** Ends the data (the trailer) and hands out everything left. */
  finish(): Buffer[] {
    this.ensure(2);
    this.out[this.pos++] = 0xff;
    this.out[this.pos++] = 0xff;
    return this.take(true);
  }

  private ensure(bytes: number): void {
    if (this.pos + bytes <= this.out.length) return;
    if (this.pos > 0) this.ready.push(this.out.subarray(0, this.pos));
    this.setOut(Buffer.allocUnsafe(Math.max(OUT_CHUNK, bytes)));
  }

  /** An integer's low 32 bits, big-endian (one store). */
  private writeInt32(value: number, p: number): number {
    this.outView.setInt32(p, value);
    return p + 4;
  }

  /** An integral double as a big-endian two's complement int64. */
  private writeInt64(value: number, p: number): number {
    if (!Number.isSafeInteger(value)) return this.writeBigInt64(value, p);
    const high = Math.floor(value / TWO_32);
    this.writeInt32(high | 0, p);
    return this.writeInt32((value - high * TWO_32) >>> 0, p + 4);
  }

  /**
   * A shadow amount beyond 2^53 cents. The CSV encoding wrote such a double's decimal digits
   * (below) and PostgreSQL read them as bigint: the same digits give the same value here, and
   * digits beyond bigint fail the stage as PostgreSQL's reading of them did.
   */
  private writeBigInt64(value: number, p: number): number {
    const digits = decimalDigits(value);
    const big = BigInt(digits);
    if (big < -(2n ** 63n) || big >= 2n ** 63n) throw new Error(`value "${digits}" is out of range for type bigint`);
    this.out.writeBigInt64BE(big, p);
    return p + 8;
  }

  /**
   * A field of a rebuilt row: trimmed, invalid UTF-8 replaced, NUL bytes dropped; NULL when nothing
   * is left. In a `clean` row (valid UTF-8 without NUL) nothing is replaced or dropped: its bytes
   * are copied four at a time (a row with a collapsed "" in its memo is rebuilt only for the trimming).
   */
  private writeField(buf: Uint8Array, s: number, e: number, p: number, clean: boolean): number {
    while (s < e && (buf[s] === 0x20 || buf[s] === 0x09)) s++;
    while (e > s && (buf[e - 1] === 0x20 || buf[e - 1] === 0x09)) e--;
    if (s === e) return this.writeInt32(-1, p);
    const length = e - s;
    if (clean && length <= 256 && s + ((length + 3) & ~3) <= buf.length) {
      const inView = this.inputView(buf);
      const outView = this.outView;
      outView.setInt32(p, length);
      let q = p + 4;
      for (let k = s; k < e; k += 4, q += 4) outView.setUint32(q, inView.getUint32(k, true), true);
      return p + 4 + length;
    }
    let special = false;
    for (let k = s; k < e; k++) {
      const b = buf[k];
      if (b === 0 || b >= 0x80) {
        special = true;
        break;
      }
    }
    if (!special) return this.copyBytes(buf, s, e, this.writeInt32(e - s, p));
    const start = p + 4;
    const end = this.writeClean(buf, s, e, start);
    return this.closeValue(p, start, end);
  }

  /** Fields beyond the width, joined with the file's delimiter (NULL when all blank or nothing is left). */
  private writeExtra(record: RecordView, p: number): number {
    let any = false;
    for (let f = this.width; f < record.count; f++) {
      for (let k = record.starts[f]; k < record.ends[f]; k++) {
        if (record.buf[k] !== 0x20 && record.buf[k] !== 0x09) any = true;
      }
    }
    if (!any) return this.writeInt32(-1, p);
    const start = p + 4;
    let end = start;
    for (let f = this.width; f < record.count; f++) {
      if (f > this.width) this.out[end++] = this.delimiter;
      end = this.writeClean(record.buf, record.starts[f], record.ends[f], end);
    }
    return this.closeValue(p, start, end);
  }

  /** Writes the length before a value written at [start, end), or NULL when it is empty. */
  private closeValue(p: number, start: number, end: number): number {
    if (end === start) return this.writeInt32(-1, p);
    this.writeInt32(end - start, p);
    return end;
  }

  /** buf[s, e) with invalid UTF-8 replaced by U+FFFD and NUL bytes dropped. */
  private writeClean(buf: Uint8Array, s: number, e: number, p: number): number {
    const out = this.out;
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
      if (b !== 0) out[p++] = b;
    }
    return p;
  }
}

/** The decimal digits the CSV encoding wrote for an integral double (exact below 2^53, its own rounding above). */
function decimalDigits(value: number): string {
  let sign = "";
  if (value < 0) {
    sign = "-";
    value = -value;
  }
  let digits = "";
  for (let v = value; v >= 1; v = Math.floor(v / 10)) digits = String(v % 10) + digits;
  return sign + (digits || "0");
}
