import { byteSource, type ByteSource } from "./byte-source.js";
import { decodeHead, detectEncoding, READ_CHUNK, type EncodingInfo } from "./csv/encoding.js";
import { binaryFormat, type BinaryFormat } from "../tabular/bytes.js";
import { detectDelimiter, detectHeaderRow, detectQuote, sampleRecords } from "./csv/sniff.js";
import { detectGroupedFormat } from "./formats/index.js";
import type { GroupedFormat } from "./types.js";
import { readWorkbookLayout, type WorkbookReading } from "./workbook/workbook.js";

/** What the first megabyte of a file tells: everything needed to read the rest of it. */
export interface FormatDetection {
  encoding: EncodingInfo;
  delimiter: string;
  quote: string | null;
  /** Zero-based record index of the header row; null when the file has none. */
  headerRowIndex: number | null;
  /** Header cells as written (empty when there is no header row). */
  header: string[];
  /** Number of columns of the data rows (header width or the most common row width, the larger). */
  width: number;
  firstLine: string;
  /** The first lines of the file, each a list of its cells. */
  rowContentSnippets: string[][];
  /** Grouped report layout found below the header, or null. */
  groupedFormat: GroupedFormat | null;
  /**
   * Set for workbooks (.xlsx, .xls): the rows are the cells of one sheet (encoding, delimiter and
   * quote then only describe how staging writes them).
   */
  workbook?: WorkbookReading;
}

export interface DetectOptions {
  /** Overrides header detection (the source's `presetHeaderRowIndex`). */
  presetHeaderRowIndex?: number | null;
  /** Bytes examined; the default (1 MiB) covers the preamble and some hundred rows of any export. */
  sampleBytes?: number;
}

/** The file is not delimited text (a spreadsheet, a PDF, an archive, ...): no file info can describe it. */
export class NotTabularFileError extends Error {}

/** The file has no bytes at all. */
export class EmptyFileError extends NotTabularFileError {
  constructor() {
    super("The file is empty");
  }
}

const BINARY: Record<BinaryFormat, string> = {
  zip: "a ZIP archive that is not an .xlsx workbook",
  ole: "an OLE compound file that is not an .xls workbook",
  pdf: "a PDF document",
  gzip: "a gzip archive",
};

function refuseBinary(head: Uint8Array, utf16: boolean): void {
  const format = binaryFormat(head);
  if (format) throw new NotTabularFileError(`The file is ${BINARY[format]}, not delimited text`);
  if (utf16) return;
  // Text has NUL bytes and other C0 control characters (besides tab, line breaks, form feed and
  // the DOS end-of-file mark) at most by accident; binary data about one byte in nine.
  let zeros = 0;
  let controls = 0;
  const n = Math.min(head.length, 65536);
  for (let i = 0; i < n; i++) {
    const b = head[i];
    if (b >= 0x20) continue;
    if (b === 0) zeros++;
    if (b !== 0x09 && b !== 0x0a && b !== 0x0b && b !== 0x0c && b !== 0x0d && b !== 0x1a) controls++;
  }
  if (n > 0 && (zeros > n / 100 || controls > Math.max(n / 50, 4))) throw new NotTabularFileError("The file holds binary data, not delimited text");
}

const SNIPPET_LINES = 10;
const SNIPPET_LENGTH = 500;

/**
 * Encoding, delimiter, quoting, header row and grouped layout, from the head of the file only; for
 * a workbook, its sheets and the layout of the one to read. Throws NotTabularFileError for PDFs,
 * other archives and binary files.
 */
export async function detectFormat(file: string | ByteSource, options: DetectOptions = {}): Promise<FormatDetection> {
  const size = options.sampleBytes ?? READ_CHUNK;
  const head = await byteSource(file).head(size);
  if (head.length === 0) throw new EmptyFileError();
  const container = binaryFormat(head);
  if (container === "zip" || container === "ole") {
    // A workbook's parts are found from the end of the archive: it is read once stored, not as it arrives.
    if (typeof file !== "string") throw new NotTabularFileError("A workbook or archive is read once it is stored, not as it arrives");
    const workbook = await detectWorkbook(file, container === "zip" ? "XLSX" : "XLS", options);
    if (workbook) return workbook;
  }
  const complete = head.length < size;
  const encoding = detectEncoding(head);
  refuseBinary(head, encoding.encoding === "UTF-16LE" || encoding.encoding === "UTF-16BE");
  const text = decodeHead(head, encoding);
  const sample = new TextEncoder().encode(text);
  const delimiter = detectDelimiter(sample, complete);
  const quote = detectQuote(text, delimiter);
  const records = sampleRecords(sample, delimiter, quote, 300, complete);
  const lines = text.split(/\r\n|\n|\r/, SNIPPET_LINES + 1);
  // The line break ending the file's last line does not start another line.
  if (lines.length <= SNIPPET_LINES && lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  return {
    encoding,
    delimiter,
    quote,
    ...layoutOf(records, options, Math.min(SNIPPET_LINES, lines.length)),
    firstLine: (lines[0] ?? "").slice(0, 4096),
  };
}

/**
 * A workbook's detection: the sheet to read (the first that holds a table) and its layout, or null
 * when the archive is no workbook after all (any ZIP or OLE file starts like one).
 */
async function detectWorkbook(path: string, kind: "XLSX" | "XLS", options: DetectOptions): Promise<FormatDetection | null> {
  let layout: Awaited<ReturnType<typeof readWorkbookLayout>>;
  try {
    layout = await readWorkbookLayout(path, kind);
  } catch (error) {
    throw new NotTabularFileError(`The file cannot be read as ${kind === "XLSX" ? "an .xlsx" : "an .xls"} workbook: ${(error as Error).message}`);
  }
  if (layout.workbook.sheetNames.length === 0) return null;
  const { records, workbook } = layout;
  return {
    // How staging writes the cells; a workbook has no text encoding or delimiter of its own.
    encoding: { encoding: "UTF-8", bom: false },
    delimiter: ",",
    quote: '"',
    ...layoutOf(records, options, SNIPPET_LINES),
    firstLine: (records[0] ?? []).join(",").slice(0, 4096),
    workbook,
  };
}

/** Header row, width, snippets and grouped layout from the first records (text or sheet alike). */
function layoutOf(records: string[][], options: DetectOptions, snippetRows: number): Pick<FormatDetection, "headerRowIndex" | "header" | "width" | "rowContentSnippets" | "groupedFormat"> {
  const preset = options.presetHeaderRowIndex;
  const headerRowIndex = preset !== undefined && preset !== null ? preset : detectHeaderRow(records).headerRowIndex;
  const header = headerRowIndex !== null ? (records[headerRowIndex] ?? []) : [];
  const rows = records.slice(headerRowIndex === null ? 0 : headerRowIndex + 1);
  const widths = new Map<number, number>();
  for (const r of rows) if (r.some((v) => v.trim() !== "")) widths.set(r.length, (widths.get(r.length) ?? 0) + 1);
  let mode = 0;
  let modeCount = 0;
  for (const [w, c] of widths) if (c > modeCount || (c === modeCount && w > mode)) [mode, modeCount] = [w, c];
  return {
    headerRowIndex,
    header,
    width: Math.max(header.length, mode, 1),
    rowContentSnippets: records.slice(0, snippetRows).map((r) => r.map((cell) => cell.slice(0, SNIPPET_LENGTH))),
    groupedFormat: headerRowIndex !== null ? detectGroupedFormat(header, rows.slice(0, 200)) : null,
  };
}
