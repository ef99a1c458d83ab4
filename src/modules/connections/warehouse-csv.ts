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

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;
/** How far the first record is looked for: a first line longer than this is data, not a header. */
const MAX_HEADER_BYTES = 1 << 20;

/** Holds back the first chunk's bytes until its first record is complete, then drops it if it is the header. */
class FirstRecord {
  private parts: Buffer[] = [];
  private size = 0;
  private quoted = false;
  settled = false;
  crlf = false;

  constructor(private readonly columnNames: string[]) {}

  /** Bytes to pass on (null while the first record is incomplete). */
  push(piece: Buffer): Buffer | null {
    let end = -1;
    for (let i = 0; i < piece.length; i++) {
      if (piece[i] === QUOTE) this.quoted = !this.quoted;
      else if (piece[i] === LF && !this.quoted) {
        end = i;
        break;
      }
    }
    this.parts.push(piece);
    this.size += piece.length;
    if (end === -1 && this.size <= MAX_HEADER_BYTES) return null;
    const held = Buffer.concat(this.parts);
    this.parts = [];
    this.settled = true;
    if (end === -1) return held;
    const recordEnd = this.size - piece.length + end;
    this.crlf = recordEnd > 0 && held[recordEnd - 1] === CR;
    return this.isHeader(held.subarray(0, this.crlf ? recordEnd - 1 : recordEnd)) ? held.subarray(recordEnd + 1) : held;
  }

  /** At the end of the chunk: a first record without a line break after it. */
  end(): Buffer | null {
    if (this.settled) return null;
    this.settled = true;
    const held = Buffer.concat(this.parts);
    this.parts = [];
    const record = held.length > 0 && held[held.length - 1] === CR ? held.subarray(0, -1) : held;
    return this.isHeader(record) ? null : held;
  }

  private isHeader(record: Buffer): boolean {
    const names = parseRecord(record.toString("utf8"));
    return names.length === this.columnNames.length && names.every((name, i) => name === this.columnNames[i]);
  }
}

/** The fields of one RFC 4180 record (doubled quotes inside quoted fields). */
export function parseRecord(record: string): string[] {
  const fields: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < record.length; i++) {
    const ch = record[i];
    if (quoted) {
      if (ch === '"' && record[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      fields.push(field);
      field = "";
    } else field += ch;
  }
  fields.push(field);
  return fields;
}
