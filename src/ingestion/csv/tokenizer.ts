/**
 * A streaming CSV tokenizer over UTF-8 bytes. It never builds strings: each record is handed to the
 * caller as a view (the bytes plus start/end offsets of every field), valid only during the
 * callback. Delimiters, quotes and line ends are ASCII, and UTF-8 never uses ASCII bytes inside a
 * multi-byte character, so scanning bytes is exact.
 *
 * RFC 4180 with the leniency real exports need: a quote inside an unquoted field is literal, text
 * after a closing quote is kept, line ends are \n, \r\n or a lone \r.
 */

export const LF = 0x0a;
export const CR = 0x0d;

export interface RecordView {
  /** The bytes; field i is buf[starts[i], ends[i]) with quotes removed and doubled quotes collapsed. */
  buf: Uint8Array;
  starts: Int32Array;
  ends: Int32Array;
  count: number;
  /** Zero-based index of the record in the file (blank lines count as records). */
  index: number;
  /** The record's raw bytes buf[start, end) without its line end, usable as is unless `rewritten`. */
  start: number;
  end: number;
  /** True when the fields are no longer the raw bytes (doubled quotes collapsed, or built from strings). */
  rewritten: boolean;
}

export interface TokenizerOptions {
  delimiter: number;
  /** Quote byte, or -1 for files without quoting. */
  quote: number;
  /** A record longer than this (an unterminated quote, usually) is an error, so memory stays bounded. */
  maxRecordBytes?: number;
}

export class CsvFormatError extends Error {}

const INITIAL_FIELDS = 64;
const C_DELIMITER = 1;
const C_END = 2;
const C_QUOTE = 3;

export class CsvTokenizer {
  private readonly delimiter: number;
  private readonly quote: number;
  private readonly maxRecordBytes: number;
  private pending: Uint8Array | null = null;
  private starts = new Int32Array(INITIAL_FIELDS);
  private ends = new Int32Array(INITIAL_FIELDS);
  /** Fields whose doubled quotes must be collapsed once the record is complete. */
  private escaped = new Uint8Array(INITIAL_FIELDS);
  private recordIndex = 0;
  /** True when the previous chunk ended on \r: a \n at the start of the next chunk belongs to it. */
  private skipLeadingLf = false;

  private readonly view: RecordView = { buf: new Uint8Array(0), starts: this.starts, ends: this.ends, count: 0, index: 0, start: 0, end: 0, rewritten: false };
  /** Per byte value: 0 ordinary, else one of the C_* classes (one table load per byte in the hot loop). */
  private readonly classes = new Uint8Array(256);

  constructor(options: TokenizerOptions) {
    this.delimiter = options.delimiter;
    this.quote = options.quote;
    this.maxRecordBytes = options.maxRecordBytes ?? 64 * 1024 * 1024;
    this.classes[LF] = C_END;
    this.classes[CR] = C_END;
    if (this.quote >= 0) this.classes[this.quote] = C_QUOTE;
    this.classes[this.delimiter] = C_DELIMITER;
  }

  get recordsSeen(): number {
    return this.recordIndex;
  }

  /** Whether the last chunk ended inside a record (its bytes wait for the next chunk). */
  get holdsPartialRecord(): boolean {
    return this.pending !== null;
  }

  /** Tokenizes a chunk; complete records go to `onRecord`, an incomplete tail waits for the next chunk. */
  push(chunk: Uint8Array, onRecord: (record: RecordView) => void): void {
    const pos = this.pending ? this.completePending(chunk, onRecord) : 0;
    if (pos >= 0) this.tokenize(chunk, pos, onRecord);
  }

  /** The records of `data` from `pos`; an incomplete tail is kept in `pending`. */
  private tokenize(data: Uint8Array, pos: number, onRecord: (record: RecordView) => void): void {
    if (this.skipLeadingLf && pos < data.length) {
      if (data[pos] === LF) pos++;
      this.skipLeadingLf = false;
    }
    while (pos < data.length) {
      const next = this.scanRecord(data, pos, false, onRecord);
      if (next < 0) {
        if (data.length - pos > this.maxRecordBytes) {
          throw new CsvFormatError(`Record ${this.recordIndex + 1} is longer than ${this.maxRecordBytes} bytes (unterminated quote?)`);
        }
        this.pending = data.slice(pos);
        return;
      }
      pos = next;
    }
  }

  /**
   * The record the previous chunk ended in, completed from the start of this one: joined with as
   * much of the chunk as it needs (a window growing from 4 KiB), not with the whole chunk, which
   * would copy every chunk once more. Returns where the chunk's own records start, or -1 when the
   * record runs past the chunk too (it is kept, longer, for the next one).
   */
  private completePending(chunk: Uint8Array, onRecord: (record: RecordView) => void): number {
    // (A kept record never ends in a line break, so no line feed is pending to be skipped.)
    const pending = this.pending!;
    this.pending = null;
    for (let window = 4096; ; window *= 4) {
      const take = Math.min(chunk.length, window);
      const merged = new Uint8Array(pending.length + take);
      merged.set(pending, 0);
      merged.set(chunk.subarray(0, take), pending.length);
      if (take === chunk.length) {
        // The whole chunk joined: tokenize on in the joined bytes, as for any chunk.
        this.tokenize(merged, 0, onRecord);
        return -1;
      }
      const next = this.scanRecord(merged, 0, false, onRecord);
      if (next >= 0) return next - pending.length;
      if (merged.length > this.maxRecordBytes) {
        throw new CsvFormatError(`Record ${this.recordIndex + 1} is longer than ${this.maxRecordBytes} bytes (unterminated quote?)`);
      }
    }
  }

  /** Flushes the last record (a file need not end with a line break). */
  end(onRecord: (record: RecordView) => void): void {
    if (this.pending && this.pending.length > 0) {
      const data = this.pending;
      this.pending = null;
      this.scanRecord(data, 0, true, onRecord);
    }
  }

  private grow(): void {
    const size = this.starts.length * 2;
    const starts = new Int32Array(size);
    starts.set(this.starts);
    const ends = new Int32Array(size);
    ends.set(this.ends);
    const escaped = new Uint8Array(size);
    escaped.set(this.escaped);
    this.starts = starts;
    this.ends = ends;
    this.escaped = escaped;
  }

  /**
   * Scans one record starting at `pos`. Returns the position after its line end, or -1 when the
   * data ends first and `atEof` is false (the caller keeps the bytes for the next chunk).
   */
  private scanRecord(data: Uint8Array, pos: number, atEof: boolean, onRecord: (record: RecordView) => void): number {
    const delimiter = this.delimiter;
    const quote = this.quote;
    const length = data.length;
    let count = 0;
    let i = pos;
    let anyEscaped = false;
    let stray = false;
    let recordEnd = -1;
    let starts = this.starts;
    let ends = this.ends;
    let kinds = this.escaped;
    const classes = this.classes;
    for (;;) {
      if (count === starts.length) {
        this.grow();
        starts = this.starts;
        ends = this.ends;
        kinds = this.escaped;
      }
      // One field.
      if (i < length && data[i] === quote) {
        i++;
        const start = i;
        let escaped = 0;
        let closed = false;
        while (i < length) {
          if (data[i] !== quote) {
            i++;
            continue;
          }
          if (i + 1 < length && data[i + 1] === quote) {
            escaped = 1;
            i += 2;
            continue;
          }
          if (i + 1 >= length && !atEof) return -1; // cannot tell a closing quote from a doubled one yet
          closed = true;
          break;
        }
        if (!closed) {
          if (!atEof) return -1;
          starts[count] = start;
          ends[count] = i;
          kinds[count] = escaped;
          anyEscaped ||= escaped === 1;
          count++;
          recordEnd = i;
          break;
        }
        const end = i;
        i++; // closing quote
        // Lenient: text after the closing quote and before the delimiter stays part of the field.
        let trailingEnd = end;
        if (i < length && data[i] !== delimiter && data[i] !== LF && data[i] !== CR) {
          while (i < length && data[i] !== delimiter && data[i] !== LF && data[i] !== CR) i++;
          trailingEnd = i;
          escaped = 2;
        }
        starts[count] = start;
        ends[count] = trailingEnd === end ? end : trailingEnd;
        kinds[count] = escaped;
        anyEscaped ||= escaped !== 0;
        count++;
      } else {
        const start = i;
        while (i < length) {
          const c = classes[data[i]];
          if (c === 0) {
            i++;
            continue;
          }
          if (c !== C_QUOTE) break;
          // A quote inside an unquoted field is literal here; PostgreSQL's CSV reader would not agree.
          stray = true;
          i++;
        }
        starts[count] = start;
        ends[count] = i;
        kinds[count] = 0;
        count++;
      }
      if (i >= length) {
        if (!atEof) return -1;
        recordEnd = i;
        break;
      }
      const b = data[i];
      if (b === delimiter) {
        i++;
        if (i >= length && !atEof) return -1;
        if (i >= length) {
          if (count === starts.length) {
            this.grow();
            starts = this.starts;
            ends = this.ends;
            kinds = this.escaped;
          }
          starts[count] = i;
          ends[count] = i;
          kinds[count] = 0;
          count++;
          recordEnd = i;
          break;
        }
        continue;
      }
      // Line end.
      recordEnd = i;
      if (b === CR) {
        if (i + 1 < length) {
          i += data[i + 1] === LF ? 2 : 1;
        } else {
          i += 1;
          this.skipLeadingLf = true;
        }
      } else {
        i += 1;
      }
      break;
    }
    if (anyEscaped) this.collapse(data, count);
    // One view object for every record (valid only during the callback): no allocation per record.
    const view = this.view;
    view.buf = data;
    view.starts = this.starts;
    view.ends = this.ends;
    view.count = count;
    view.index = this.recordIndex++;
    view.start = pos;
    view.end = recordEnd < 0 ? i : recordEnd;
    view.rewritten = anyEscaped || stray;
    onRecord(view);
    return i;
  }

  /** Collapses doubled quotes in place, and drops the closing quote of lenient `"a"b` fields. */
  private collapse(data: Uint8Array, count: number): void {
    const quote = this.quote;
    for (let f = 0; f < count; f++) {
      const kind = this.escaped[f];
      if (kind === 0) continue;
      const start = this.starts[f];
      const end = this.ends[f];
      let w = start;
      let closedSeen = false;
      for (let r = start; r < end; r++) {
        const b = data[r];
        if (b === quote && !closedSeen) {
          if (r + 1 < end && data[r + 1] === quote) {
            data[w++] = quote;
            r++;
            continue;
          }
          // The closing quote of a field followed by stray text.
          closedSeen = true;
          continue;
        }
        data[w++] = b;
      }
      this.ends[f] = w;
    }
  }
}

/** Decodes field `i` of a record (for the few places that need strings: headers, samples, degroupers). */
const decoder = new TextDecoder("utf-8");
export function fieldText(record: RecordView, i: number): string {
  if (i >= record.count) return "";
  return decoder.decode(record.buf.subarray(record.starts[i], record.ends[i]));
}

export function recordTexts(record: RecordView): string[] {
  const out = new Array<string>(record.count);
  for (let i = 0; i < record.count; i++) out[i] = fieldText(record, i);
  return out;
}

const encoder = new TextEncoder();
/** A record view over string values (degrouped rows go through the same sinks as parsed ones). */
export function recordFromTexts(values: readonly string[], index: number): RecordView {
  const parts = values.map((v) => encoder.encode(v));
  const total = parts.reduce((n, p) => n + p.length, 0);
  const buf = new Uint8Array(total);
  const starts = new Int32Array(Math.max(1, values.length));
  const ends = new Int32Array(Math.max(1, values.length));
  let offset = 0;
  parts.forEach((p, i) => {
    buf.set(p, offset);
    starts[i] = offset;
    offset += p.length;
    ends[i] = offset;
  });
  return { buf, starts, ends, count: values.length, index, start: 0, end: total, rewritten: true };
}

/**
 * Builds record views over string values into one buffer it reuses (workbook rows: one row at a
 * time, no allocation per cell). A view is valid until the next `build`.
 */
export class RecordBuilder {
  private buf = new Uint8Array(1 << 16);
  private starts = new Int32Array(64);
  private ends = new Int32Array(64);

  build(values: readonly string[], index: number): RecordView {
    const count = values.length;
    if (this.starts.length < count) {
      this.starts = new Int32Array(count * 2);
      this.ends = new Int32Array(count * 2);
    }
    let offset = 0;
    for (let i = 0; i < count; i++) {
      const value = values[i] ?? "";
      // UTF-8 takes at most 3 bytes per UTF-16 unit.
      if (offset + value.length * 3 > this.buf.length) {
        const grown = new Uint8Array(Math.max(this.buf.length * 2, offset + value.length * 3));
        grown.set(this.buf.subarray(0, offset));
        this.buf = grown;
      }
      this.starts[i] = offset;
      offset += value.length === 0 ? 0 : encoder.encodeInto(value, this.buf.subarray(offset)).written;
      this.ends[i] = offset;
    }
    return { buf: this.buf, starts: this.starts, ends: this.ends, count, index, start: 0, end: offset, rewritten: true };
  }
}
