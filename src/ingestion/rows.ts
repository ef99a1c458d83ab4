import { byteSource, type ByteSource } from "./byte-source.js";
import { decodeHead, READ_CHUNK, utf8Chunks, Utf8Validator } from "./csv/encoding.js";
import { sampleRecords } from "./csv/sniff.js";
import { CsvTokenizer, RecordBuilder, recordFromTexts, type RecordView } from "./csv/tokenizer.js";
import type { FormatDetection } from "./detect.js";
import { openWorkbook } from "./workbook/workbook.js";

/**
 * Where the records of a file come from: the seam between what a file is (delimited text, a
 * workbook sheet) and everything that reads its rows (profile, staging, shadows planning). Both
 * kinds hand out the same RecordView, so the profiler, the degroupers and the COPY encoder never
 * know which it was.
 */
export interface RowSource {
  /**
   * Every record in order. `clean`: the record's bytes are the file's own, valid UTF-8 without NUL
   * (the COPY encoder may pass them through); workbook rows are built from cells and never are.
   */
  read(onRecord: (record: RecordView, clean: boolean) => void, afterChunk?: () => Promise<void> | void, beforeChunk?: (chunk: Uint8Array) => void): Promise<{ invalidCharacters: number }>;
  /** The first records as strings (to plan typed shadows, detect layouts). */
  head(maxRecords: number): Promise<string[][]>;
  /** True when `read` tokenizes raw text chunks, which `beforeChunk` sees (a worker can tokenize copies). */
  readonly chunked: boolean;
}

/** The rows of a stored file, or of delimited text arriving (a workbook is read from its stored file). */
export function rowSource(file: string | ByteSource, detection: FormatDetection): RowSource {
  if (!detection.workbook) return textRows(byteSource(file), detection);
  if (typeof file !== "string") throw new Error("A workbook is read from its stored file, not as it arrives");
  return workbookRows(file, detection);
}

function textRows(source: ByteSource, detection: FormatDetection): RowSource {
  return {
    chunked: true,
    read: (onRecord, afterChunk, beforeChunk) => readRecords(source, detection, onRecord, afterChunk, beforeChunk),
    async head(maxRecords) {
      // (Arriving bytes keep their head for the reading that follows.)
      const head = await source.head(READ_CHUNK);
      return sampleRecords(new TextEncoder().encode(decodeHead(head, detection.encoding)), detection.delimiter, detection.quote, maxRecords, head.length < READ_CHUNK);
    },
  };
}

/** Rows of the detection's sheet, streamed; a row the sheet leaves out is a blank record. */
function workbookRows(path: string, detection: FormatDetection): RowSource {
  const { kind, sheetIndex } = detection.workbook!;
  const blank = (index: number) => recordFromTexts([], index);
  return {
    chunked: false,
    async read(onRecord, afterChunk) {
      const reader = await openWorkbook(path, kind);
      const builder = new RecordBuilder();
      let next = 0;
      try {
        await reader.rows(
          sheetIndex,
          (index, cells) => {
            while (next < index) onRecord(blank(next++), false);
            onRecord(builder.build(cells, index), false);
            next = index + 1;
          },
          afterChunk,
        );
      } finally {
        reader.close();
      }
      return { invalidCharacters: 0 };
    },
    async head(maxRecords) {
      const reader = await openWorkbook(path, kind);
      const records: string[][] = [];
      try {
        await reader.rows(sheetIndex, (index, cells) => {
          while (records.length < index && records.length < maxRecords) records.push([]);
          if (records.length < maxRecords) records.push([...cells]);
          return records.length < maxRecords;
        });
      } finally {
        reader.close();
      }
      return records;
    },
  };
}

/** Reads a file (or arriving bytes) as UTF-8 chunks, tokenizes them and routes every record, tracking byte cleanliness. */
export async function readRecords(
  file: string | ByteSource,
  detection: FormatDetection,
  onRecord: (record: RecordView, clean: boolean) => void,
  afterChunk?: () => Promise<void> | void,
  /** Sees each chunk before it is tokenized (tokenizing may rewrite quoted fields in place). */
  beforeChunk?: (chunk: Uint8Array) => void,
): Promise<{ invalidCharacters: number }> {
  const tokenizer = new CsvTokenizer({ delimiter: detection.delimiter.charCodeAt(0), quote: detection.quote ? detection.quote.charCodeAt(0) : -1 });
  const validator = new Utf8Validator();
  let clean = true;
  // A record cut by a chunk end is as clean as every chunk it spans (it may span several when
  // chunks are small, as arriving bytes are): what came before the current chunk, since that record began.
  let carriedClean = true;
  const handle = (record: RecordView) => onRecord(record, clean);
  for await (const chunk of utf8Chunks(typeof file === "string" ? file : file.chunks(), detection.encoding)) {
    const chunkClean = validator.check(chunk) === 0;
    clean = chunkClean && carriedClean;
    beforeChunk?.(chunk);
    tokenizer.push(chunk, handle);
    carriedClean = tokenizer.holdsPartialRecord ? clean : true;
    if (afterChunk) await afterChunk();
  }
  if (validator.end() > 0) clean = false;
  tokenizer.end(handle);
  return { invalidCharacters: validator.invalid };
}
