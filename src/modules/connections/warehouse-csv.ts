import { DelimitedParser } from "../../tabular/delimited-reader.js";

/**
 * Joins the CSV chunks of an EXTERNAL_LINKS result into one header-less CSV byte stream, without
 * parsing the data: Databricks writes RFC 4180 CSV, puts the header row (the column names) in the
 * first chunk only, and may end a chunk without a line break. The first record of the first chunk is
 * dropped when it is that header (compared field by field with the manifest's column names, so a
 * first data row is never lost), and a chunk not ending in a line break gets one in the style the
 * data uses (PostgreSQL's CSV COPY insists on one style of line end throughout).
 */
export async function* joinCsvChunks(columnNames: string[], chunks: AsyncIterable<AsyncIterable<Buffer>>): AsyncGenerator<Buffer> {
  let eol = "\n";
  let first = true;
  for await (const chunk of chunks) {
    let last = -1;
    const header = first ? new FirstRecord(columnNames) : null;
    first = false;
    for await (const piece of chunk) {
      const out = header && !header.settled ? header.push(piece) : piece;
      if (header?.crlf) eol = "\r\n";
      if (out && out.length > 0) {
        last = out[out.length - 1];
        yield out;
      }
    }
    const held = header?.end();
    if (held && held.length > 0) {
      last = held[held.length - 1];
      yield held;
    }
    if (last !== -1 && last !== LF) yield Buffer.from(eol);
  }
}

const LF = 0x0a;
const CR = 0x0d;
/** How far the first record is looked for: a first line longer than this is data, not a header. */
const MAX_HEADER_BYTES = 1 << 20;

/**
 * Holds back the first chunk's bytes until its first record is complete, then drops it if it is the
 * header. The parser reads the bytes as latin1, one character per byte, so where it stops is a byte
 * offset; quotes, commas and line feeds are ASCII, which UTF-8 never uses inside a multi-byte
 * character, so the record ends where it does in UTF-8, and its fields are decoded as UTF-8 after.
 */
class FirstRecord {
  private parts: Buffer[] = [];
  private size = 0;
  private readonly parser = new DelimitedParser({ delimiter: ",", recordDelimiter: "\n" });
  settled = false;
  crlf = false;

  constructor(private readonly columnNames: string[]) {}

  /** Bytes to pass on (null while the first record is incomplete). */
  push(piece: Buffer): Buffer | null {
    const [record] = this.parser.push(piece.toString("latin1"), false, 1);
    this.parts.push(piece);
    this.size += piece.length;
    if (!record && this.size <= MAX_HEADER_BYTES) return null;
    const held = Buffer.concat(this.parts);
    this.parts = [];
    this.settled = true;
    if (!record) return held;
    const recordEnd = this.parser.consumed;
    this.crlf = recordEnd > 1 && held[recordEnd - 2] === CR;
    return this.isHeader(record, this.crlf) ? held.subarray(recordEnd) : held;
  }

  /** At the end of the chunk: a first record without a line break after it. */
  end(): Buffer | null {
    if (this.settled) return null;
    this.settled = true;
    const held = Buffer.concat(this.parts);
    this.parts = [];
    const [record = [""]] = this.parser.push("", true, 1);
    return this.isHeader(record, held.length > 0 && held[held.length - 1] === CR) ? null : held;
  }

  /** `record` as parsed (latin1); `cr`: its last field ends in the CR of a CRLF, which is not part of it. */
  private isHeader(record: string[], cr: boolean): boolean {
    const names = record.map((field, i) => Buffer.from(cr && i === record.length - 1 ? field.slice(0, -1) : field, "latin1").toString("utf8"));
    return names.length === this.columnNames.length && names.every((name, i) => name === this.columnNames[i]);
  }
}
