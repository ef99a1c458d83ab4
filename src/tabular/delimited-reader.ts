export interface DelimitedOptions {
  /** Field separator, one or more characters. */
  delimiter: string;
  /** Character that encloses fields (doubled inside them); null for none. Default `"`. */
  quote?: string | null;
  /** Record separator; absent: CRLF, LF or CR. */
  recordDelimiter?: string | null;
}

/**
 * Incremental parser of delimited text: quoted fields may hold delimiters and line breaks, a
 * doubled quote stands for one. Text arrives in pieces of any size; memory is bounded by the
 * longest record.
 */
export class DelimitedParser {
  private readonly delimiter: string;
  private readonly quote: string | null;
  private readonly recordDelimiter: string | null;
  private readonly keep: number;
  private buffer = "";
  private fields: string[] = [];
  private field = "";
  private inQuotes = false;
  private quotedField = false;
  private pendingQuote = false;
  private pendingCr = false;
  /** Characters of input before `buffer`: all of them parsed. */
  private offset = 0;

  constructor(options: DelimitedOptions) {
    this.delimiter = options.delimiter;
    this.quote = options.quote === undefined ? '"' : options.quote;
    this.recordDelimiter = options.recordDelimiter || null;
    // Unread text kept back so a separator split across two pieces is still recognised.
    this.keep = Math.max(this.delimiter.length, this.recordDelimiter?.length ?? 1) - 1;
  }

  /**
   * Parses `text` and returns the records completed; with `final` also the last, unterminated one.
   * With `maxRecords`, parsing stops after that many records and the rest waits for the next push.
   */
  push(text: string, final = false, maxRecords = Infinity): string[][] {
    const records: string[][] = [];
    const buffer = this.buffer + text;
    const limit = final ? buffer.length : buffer.length - this.keep;
    const { delimiter, quote, recordDelimiter } = this;
    let i = 0;
    while (i < limit) {
      const c = buffer[i];
      if (this.pendingCr) {
        this.pendingCr = false;
        if (c === "\n") {
          i++;
          continue;
        }
      }
      if (this.inQuotes) {
        if (this.pendingQuote) {
          this.pendingQuote = false;
          if (c === quote) {
            this.field += c;
            i++;
            continue;
          }
          this.inQuotes = false; // that quote closed the field; c is handled below
        } else {
          if (c === quote) this.pendingQuote = true;
          else this.field += c;
          i++;
          continue;
        }
      }
      if (c === quote && this.field === "" && !this.quotedField) {
        this.inQuotes = true;
        this.quotedField = true;
        i++;
      } else if (c === delimiter[0] && buffer.startsWith(delimiter, i)) {
        this.endField();
        i += delimiter.length;
      } else if (recordDelimiter ? c === recordDelimiter[0] && buffer.startsWith(recordDelimiter, i) : c === "\n" || c === "\r") {
        this.endField();
        records.push(this.fields);
        this.fields = [];
        if (!recordDelimiter && c === "\r") this.pendingCr = true;
        i += recordDelimiter ? recordDelimiter.length : 1;
        if (records.length >= maxRecords) break;
      } else {
        this.field += c;
        i++;
      }
    }
    this.buffer = buffer.slice(i);
    this.offset += i;
    if (final && records.length < maxRecords && (this.field !== "" || this.fields.length > 0 || this.quotedField)) {
      this.endField();
      records.push(this.fields);
      this.fields = [];
    }
    return records;
  }

  /** Characters of input parsed so far: after a push that stopped at `maxRecords`, where the next record starts. */
  get consumed(): number {
    return this.offset;
  }

  private endField(): void {
    this.fields.push(this.field);
    this.field = "";
    this.quotedField = false;
    this.inQuotes = false;
    this.pendingQuote = false;
  }
}

/** Records out of a stream of decoded text. */
export async function* readDelimited(chunks: AsyncIterable<string>, options: DelimitedOptions): AsyncGenerator<string[]> {
  const parser = new DelimitedParser(options);
  for await (const chunk of chunks) yield* parser.push(chunk);
  yield* parser.push("", true);
}
