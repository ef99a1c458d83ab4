import { ValidationError, type Problem } from "../../core/errors.js";

/** The wire's csvConfiguration / innerListCsvConfiguration (names as in univocity's CsvFormat). */
export interface CsvConfigurationInput {
  delimiter?: string | null;
  quote?: string | null;
  quoteEscape?: string | null;
  quoteEscapeEscape?: string | null;
}

export interface CsvFormat {
  delimiter: string;
  quote: string;
  /** Written before a quote inside a quoted value (default: the quote itself, i.e. doubled quotes). */
  quoteEscape: string;
  /** Written before a quoteEscape character inside a quoted value, when quoteEscape differs from quote. */
  quoteEscapeEscape: string;
}

export const DEFAULT_CSV: CsvFormat = { delimiter: ",", quote: '"', quoteEscape: '"', quoteEscapeEscape: '"' };

/** Lists inside a field (wire reference: `accounts`, `account_hierarchy_codes` written `'a';'b'`). */
export const DEFAULT_INNER_LIST_CSV: CsvFormat = { delimiter: ";", quote: "'", quoteEscape: "'", quoteEscapeEscape: "'" };

/** Checks a csvConfiguration: each setting one character, no line breaks, delimiter and quote distinct. */
export function csvFormatOf(input: CsvConfigurationInput | null | undefined, key: string, defaults: CsvFormat = DEFAULT_CSV): CsvFormat {
  const problems: Problem[] = [];
  const char = (name: keyof CsvConfigurationInput, fallback: string): string => {
    const value = input?.[name];
    if (value === null || value === undefined) return fallback;
    if ([...value].length !== 1 || value === "\r" || value === "\n") {
      problems.push({ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier: `${key}.${name}`, reason: `${name} must be exactly one character other than a line break`, values: [value] });
      return fallback;
    }
    return value;
  };
  const delimiter = char("delimiter", defaults.delimiter);
  const quote = char("quote", defaults.quote);
  const quoteEscape = char("quoteEscape", quote);
  const quoteEscapeEscape = char("quoteEscapeEscape", quoteEscape);
  if (delimiter === quote) problems.push({ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier: `${key}.quote`, reason: "quote must differ from delimiter", values: [quote] });
  if (problems.length > 0) throw ValidationError.of(problems);
  return { delimiter, quote, quoteEscape, quoteEscapeEscape };
}

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
 * A CSV writer for one format: a value is quoted when it holds the delimiter, the quote, the escape
 * character or a line break; inside quotes the quote is preceded by quoteEscape and (when that is
 * another character) quoteEscape by quoteEscapeEscape. Null and empty both write nothing. Values of
 * the columns flagged in `textColumns` go through neutraliseFormula.
 */
export function csvWriter(format: CsvFormat, textColumns: readonly boolean[] = []): (values: readonly unknown[]) => string {
  const { delimiter, quote, quoteEscape, quoteEscapeEscape } = format;
  const special = new Set([delimiter, quote, quoteEscape, "\r", "\n"]);
  const field = (value: unknown): string => {
    if (value === null || value === undefined) return "";
    const text = typeof value === "string" ? value : String(value);
    let needsQuotes = false;
    for (const c of text) {
      if (special.has(c)) {
        needsQuotes = true;
        break;
      }
    }
    if (!needsQuotes) return text;
    let out = quote;
    for (const c of text) {
      if (c === quote) out += quoteEscape + c;
      else if (c === quoteEscape && quoteEscape !== quote) out += quoteEscapeEscape + c;
      else out += c;
    }
    return out + quote;
  };
  return (values) => {
    let line = "";
    for (let i = 0; i < values.length; i++) {
      const value = values[i];
      line += (i === 0 ? "" : delimiter) + field(textColumns[i] && typeof value === "string" ? neutraliseFormula(value) : value);
    }
    return line + "\r\n";
  };
}

/** A list value as one field: every element quoted with the inner format's quote, joined by its delimiter. */
export function innerListWriter(format: CsvFormat): (values: readonly unknown[]) => string {
  const { delimiter, quote, quoteEscape, quoteEscapeEscape } = format;
  const element = (value: unknown) => {
    let out = quote;
    for (const c of value === null || value === undefined ? "" : String(value)) {
      if (c === quote) out += quoteEscape + c;
      else if (c === quoteEscape && quoteEscape !== quote) out += quoteEscapeEscape + c;
      else out += c;
    }
    return out + quote;
  };
  return (values) => values.map(element).join(delimiter);
}
