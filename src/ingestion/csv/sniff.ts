import { classifyText } from "../profile/classify.js";
import { CsvTokenizer, recordTexts } from "./tokenizer.js";

export const DELIMITER_CANDIDATES = [",", ";", "\t", "|"] as const;

/** The first piece of a sample `sampleRecords` tokenizes; each next one twice as long. */
const FIRST_PIECE = 16 * 1024;

/**
 * Parses the head sample into records of strings (at most `maxRecords`). The tokenizer collapses
 * doubled quotes in place, so it reads a copy: the same sample is read again with other delimiters.
 * It reads the sample in growing pieces and stops once it has `maxRecords` (a detection's 100-300
 * records are a few KiB of a 1 MiB head, which it otherwise tokenized whole for each delimiter
 * candidate); the tokenizer reads records across pieces as across a file's chunks, so the
 * records are the same.
 */
export function sampleRecords(sample: Uint8Array, delimiter: string, quote: string | null, maxRecords = 200, complete = false): string[][] {
  const tokenizer = new CsvTokenizer({ delimiter: delimiter.charCodeAt(0), quote: quote ? quote.charCodeAt(0) : -1 });
  const records: string[][] = [];
  const take = (record: Parameters<Parameters<CsvTokenizer["push"]>[1]>[0]) => {
    if (records.length < maxRecords) records.push(recordTexts(record));
  };
  let piece = FIRST_PIECE;
  for (let offset = 0; offset < sample.length && records.length < maxRecords; offset += piece, piece *= 2) {
    tokenizer.push(sample.slice(offset, offset + piece), take);
  }
  if (complete && records.length < maxRecords) tokenizer.end(take);
  return records;
}

function isBlankRecord(record: string[]): boolean {
  return record.every((v) => v.trim() === "");
}

/**
 * The delimiter that splits most records into the same number of fields (more than one). Report
 * exports start with title lines of one field, so consistency is measured over all sample lines and
 * the most frequent width wins; ties go to the wider split.
 */
export function detectDelimiter(sample: Uint8Array, complete: boolean): string {
  let best: { delimiter: string; score: number; width: number } = { delimiter: ",", score: -1, width: 0 };
  for (const delimiter of DELIMITER_CANDIDATES) {
    const records = sampleRecords(sample, delimiter, '"', 100, complete).filter((r) => !isBlankRecord(r));
    const widths = new Map<number, number>();
    for (const r of records) widths.set(r.length, (widths.get(r.length) ?? 0) + 1);
    let width = 0;
    let count = 0;
    for (const [w, c] of widths) if (w > 1 && (c > count || (c === count && w > width))) [width, count] = [w, c];
    const score = records.length === 0 ? 0 : count / records.length;
    if (score > best.score + 1e-9 || (Math.abs(score - best.score) < 1e-9 && width > best.width)) best = { delimiter, score, width };
  }
  return best.delimiter;
}

/** `"` unless the sample quotes with `'` and never with `"`. */
export function detectQuote(text: string, delimiter: string): string {
  const escaped = delimiter === "|" ? "\\|" : delimiter === "\t" ? "\\t" : delimiter;
  // One field opened with `"` decides (the usual case, found in the first lines): no need to
  // count them, nor the `'` ones, through the whole head.
  if (new RegExp(`(^|${escaped})"`, "m").test(text)) return '"';
  const single = (text.match(new RegExp(`(^|${escaped})'`, "gm")) ?? []).length;
  return single >= 3 ? "'" : '"';
}

export interface HeaderDetection {
  /** Zero-based record index of the header, or null when the file has no header row. */
  headerRowIndex: number | null;
}

/**
 * Finds the header row among the first records: the earliest row whose non-blank cells are mostly
 * distinct words (no amounts, no dates), wide enough compared to the data below, and followed by
 * rows that carry numbers or dates. Title lines of report exports (company, report name, period)
 * are narrow and are passed over; a file whose first row already holds data has no header.
 */
export function detectHeaderRow(records: string[][]): HeaderDetection {
  const rows = records.slice(0, 60);
  const nonBlank = rows.map((r) => r.filter((v) => v.trim() !== "").length);
  const widest = Math.max(0, ...nonBlank);
  if (widest === 0) return { headerRowIndex: null };
  const types = rows.map((r) => r.map(classifyText));
  let bestIndex: number | null = null;
  let bestScore = 0;
  for (let i = 0; i < rows.length; i++) {
    const cells = rows[i].map((v) => v.trim()).filter((v) => v !== "");
    if (cells.length < Math.max(2, Math.ceil(widest * 0.5))) continue;
    const textCells = types[i].filter((t) => t === "TEXT").length;
    const textShare = textCells / cells.length;
    if (textShare < 0.75) continue;
    const distinct = new Set(cells.map((c) => c.toLowerCase())).size / cells.length;
    const below = types.slice(i + 1, i + 11);
    const dataRows = below.filter((t) => t.some((x) => x === "NUMBER" || x === "DATE")).length;
    const dataShare = below.length === 0 ? 0 : dataRows / below.length;
    const score = textShare + distinct + cells.length / widest + dataShare * 1.5;
    // The first row that clearly looks like a header wins; later rows must do clearly better.
    if (score > bestScore + 0.25) {
      bestScore = score;
      bestIndex = i;
    }
    if (score >= 3.5) break;
  }
  if (bestIndex === null) return { headerRowIndex: null };
  // A first row of words above rows of words (all text, e.g. a chart of accounts) is still a header.
  return { headerRowIndex: bestIndex };
}
