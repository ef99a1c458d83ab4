/** How delimited text is written (names as in univocity's CsvFormat, which the wire's csvConfiguration follows). */
export interface CsvFormat {
  delimiter: string;
  quote: string;
  /** Written before a quote inside a quoted value (default: the quote itself, i.e. doubled quotes). */
  quoteEscape: string;
  /** Written before a quoteEscape character inside a quoted value, when quoteEscape differs from quote. */
  quoteEscapeEscape: string;
}

/** RFC 4180: comma, double quotes, a quote inside a value doubled. */
export const DEFAULT_CSV: CsvFormat = { delimiter: ",", quote: '"', quoteEscape: '"', quoteEscapeEscape: '"' };

export interface CsvWriterOptions {
  /** Columns whose text values go through neutraliseFormula (data-table exports' STRING columns). */
  textColumns?: readonly boolean[];
  /** A non-null value as text (default: strings as they are, numbers and booleans printed, anything else as JSON). */
  text?: (value: unknown) => string;
}

function defaultText(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
  return JSON.stringify(value);
}

const regexChar = (c: string) => c.replace(/[\\^\]\-[]/g, "\\$&");

/** The text of one field, quoted in `format` (whatever its content). */
function quoter(format: CsvFormat): (text: string) => string {
  const { quote, quoteEscape, quoteEscapeEscape } = format;
  if (quoteEscape === quote) {
    const doubled = quote + quote;
    return (text) => quote + text.split(quote).join(doubled) + quote;
  }
  return (text) => {
    let out = quote;
    for (const c of text) {
      if (c === quote) out += quoteEscape + c;
      else if (c === quoteEscape) out += quoteEscapeEscape + c;
      else out += c;
    }
    return out + quote;
  };
}

/**
 * The one delimited-text writer: a function from a row of values to one line ending in CRLF. A
 * value is quoted when it holds the delimiter, the quote, the escape or a line break; null and
 * undefined write nothing.
 */
export function csvWriter(format: CsvFormat = DEFAULT_CSV, options: CsvWriterOptions = {}): (values: readonly unknown[]) => string {
  const { delimiter } = format;
  const { textColumns = [], text = defaultText } = options;
  const special = new RegExp(`[${[delimiter, format.quote, format.quoteEscape, "\r", "\n"].map(regexChar).join("")}]`);
  const quoted = quoter(format);
  const field = (value: unknown, neutralise: boolean | undefined): string => {
    if (value === null || value === undefined) return "";
    let out = text(value);
    if (neutralise && typeof value === "string") out = neutraliseFormula(out);
    return special.test(out) ? quoted(out) : out;
  };
  return (values) => {
    let line = "";
    for (let i = 0; i < values.length; i++) line += (i === 0 ? "" : delimiter) + field(values[i], textColumns[i]);
    return line + "\r\n";
  };
}

/** A list as one field's text: every element quoted with `format`'s quote, joined by its delimiter (no line end). */
export function quotedListWriter(format: CsvFormat, text: (value: unknown) => string = defaultText): (values: readonly unknown[]) => string {
  const quoted = quoter(format);
  return (values) => values.map((value) => quoted(value === null || value === undefined ? "" : text(value))).join(format.delimiter);
}

/** One RFC 4180 line (comma, double quotes, CRLF). */
export const csvLine = csvWriter(DEFAULT_CSV);

/**
 * Spreadsheet formula injection ("CSV injection", OWASP): a spreadsheet evaluates a cell starting
 * with =, +, -, @, a tab or a carriage return as a formula. Text cells starting so are written with
 * a leading apostrophe, as spreadsheet-safe exporters do (OWASP's advice, GitLab's CSV exports):
 * spreadsheets show the text and hide the apostrophe. Numbers, dates and booleans are never touched.
 */
export function neutraliseFormula(text: string): string {
  const c = text.charCodeAt(0);
  return c === 61 || c === 43 || c === 45 || c === 64 || c === 9 || c === 13 ? `'${text}` : text;
}

/**
 * Groups small strings into larger buffers before they reach a stream: writing millions of tiny
 * chunks costs far more than the bytes themselves.
 */
export async function* batched(lines: AsyncIterable<string> | Iterable<string>, target = 256 * 1024): AsyncGenerator<Buffer> {
  let pending: string[] = [];
  let size = 0;
  for await (const line of lines) {
    pending.push(line);
    size += line.length;
    if (size >= target) {
      yield Buffer.from(pending.join(""), "utf8");
      pending = [];
      size = 0;
    }
  }
  if (pending.length > 0) yield Buffer.from(pending.join(""), "utf8");
}
