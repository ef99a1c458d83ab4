import { DelimitedParser } from "../../tabular/delimited-reader.js";
import { guessDelimiter } from "../../tabular/sniff.js";

/**
 * Grouping files exported as CSV: every value stays text (codes such as 1.10 or 0042 must not turn
 * into numbers), quoted fields may hold delimiters and line breaks; values are trimmed. Without a
 * delimiter, the one most frequent in the first 30 lines.
 */
export function parseCsv(text: string, delimiter?: string): string[][] {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const sep = delimiter ?? guessDelimiter(source.split(/\r?\n/, 30).join("\n"));
  return new DelimitedParser({ delimiter: sep }).push(source, true).map((r) => r.map((v) => v.trim()));
}
