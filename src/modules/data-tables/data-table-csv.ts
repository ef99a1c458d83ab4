import { ValidationError, type Problem } from "../../core/errors.js";
import { DEFAULT_CSV, type CsvFormat } from "../../tabular/csv-writer.js";
import type { CsvConfigurationInput } from "./data-table.inputs.js";

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
