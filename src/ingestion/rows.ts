import { decodeHead, readHead, READ_CHUNK, utf8Chunks, Utf8Validator } from "./csv/encoding.js";
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

export function rowSource(path: string, detection: FormatDetection): RowSource {
  return detection.workbook ? workbookRows(path, detection) : textRows(path, detection);
}

function textRows(path: string, detection: FormatDetection): RowSource {
  return {
    chunked: true,
    read: (onRecord, afterChunk, beforeChunk) => readRecords(path, detection, onRecord, afterChunk, beforeChunk),
    async head(maxRecords) {
      const head = await readHead(path);
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

/** Reads a file as UTF-8 chunks, tokenizes them and routes every record, tracking byte cleanliness. */
export async function readRecords(
  path: string,
  detection: FormatDetection,
  onRecord: (record: RecordView, clean: boolean) => void,
  afterChunk?: () => Promise<void> | void,
  /** Sees each chunk before it is tokenized (tokenizing may rewrite quoted fields in place). */
  beforeChunk?: (chunk: Uint8Array) => void,
): Promise<{ invalidCharacters: number }> {
  const tokenizer = new CsvTokenizer({ delimiter: detection.delimiter.charCodeAt(0), quote: detection.quote ? detection.quote.charCodeAt(0) : -1 });
  const validator = new Utf8Validator();
  let clean = true;
  let previousClean = true;
  const handle = (record: RecordView) => onRecord(record, clean);
  for await (const chunk of utf8Chunks(path, detection.encoding)) {
    const chunkClean = validator.check(chunk) === 0;
    // A record may start in the previous chunk: both must be clean.
    clean = chunkClean && previousClean;
    previousClean = chunkClean;
    beforeChunk?.(chunk);
    tokenizer.push(chunk, handle);
    if (afterChunk) await afterChunk();
  }
  if (validator.end() > 0) clean = false;
  tokenizer.end(handle);
  return { invalidCharacters: validator.invalid };
}
