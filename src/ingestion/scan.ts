import { utf8Chunks, Utf8Validator } from "./csv/encoding.js";
import { CsvTokenizer, recordFromTexts, recordTexts, type RecordView } from "./csv/tokenizer.js";
import type { FormatDetection } from "./detect.js";
import { createDegrouper } from "./formats/index.js";
import { Profiler, type ShadowSpec, type TableProfile } from "./profile/profiler.js";
import type { GroupedFormat } from "./types.js";

export interface ScanOptions {
  /** Flatten the grouped layout while reading (the source's `applyDegrouper`). */
  degroup?: GroupedFormat | null;
  /** Typed copies to compute per column (see ShadowSpec); their values reach `onRow`. */
  shadows?: ShadowSpec[];
  /**
   * Called for every data row that is not blank, after profiling, with the row's shadow values;
   * `clean`: the bytes around the row hold no invalid UTF-8 and no NUL (raw bytes may be passed on).
   */
  onRow?: (record: RecordView, shadowSet: Uint8Array, shadowValue: Float64Array, clean: boolean) => void;
  /** Awaited after each input chunk (lets a COPY stream apply backpressure). */
  afterChunk?: () => Promise<void>;
}

export interface ScanResult {
  columnNames: string[];
  synthetic: boolean[];
  profile: TableProfile;
  /** Invalid UTF-8 sequences met (each becomes U+FFFD downstream). */
  invalidCharacters: number;
}

/** Column names of the data rows: header cells, or "Column N" where the file gives none. */
export function columnNames(header: string[], width: number): { names: string[]; synthetic: boolean[] } {
  const names: string[] = [];
  const synthetic: boolean[] = [];
  const seen = new Map<string, number>();
  for (let i = 0; i < width; i++) {
    const raw = (header[i] ?? "").trim();
    let name = raw === "" ? `Column ${i + 1}` : raw;
    // Duplicate header names get a suffix so that every column can be addressed by name.
    const key = name.toLowerCase();
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    if (n > 0) name = `${name} (${n + 1})`;
    names.push(name);
    synthetic.push(raw === "");
  }
  return { names, synthetic };
}

/**
 * One streaming pass over the file: tokenizes, skips the preamble and header, flattens grouped
 * layouts when asked, profiles every data row and hands it to `onRow`. Memory is bounded by the
 * read chunk, one record and the profiler's capped structures.
 */
export async function scanFile(path: string, detection: FormatDetection, options: ScanOptions = {}): Promise<ScanResult> {
  const headerIndex = detection.headerRowIndex;
  const degrouper = options.degroup ? createDegrouper(options.degroup, detection.header) : null;
  const { names, synthetic } = degrouper ? columnNames(degrouper.header, degrouper.header.length) : columnNames(detection.header, detection.width);
  const profiler = new Profiler(names, synthetic, options.shadows);
  const { shadowSet, shadowValue } = profiler;
  const onRow = options.onRow;
  const handle = (record: RecordView) => {
    const index = record.index;
    if (headerIndex !== null && index <= headerIndex) {
      if (!isBlank(record)) profiler.noteNonBlank(index);
      return;
    }
    if (degrouper) {
      if (isBlank(record)) {
        profiler.addBlank(index);
        return;
      }
      profiler.noteNonBlank(index);
      for (const row of degrouper.push(recordTexts(record), index)) {
        const view = recordFromTexts(row.values, row.index);
        if (profiler.add(view) && onRow) onRow(view, shadowSet, shadowValue, false);
      }
      return;
    }
    if (profiler.add(record) && onRow) onRow(record, shadowSet, shadowValue, clean);
  };
  const tokenizer = new CsvTokenizer({ delimiter: detection.delimiter.charCodeAt(0), quote: detection.quote ? detection.quote.charCodeAt(0) : -1 });
  const validator = new Utf8Validator();
  let clean = true;
  let previousClean = true;
  for await (const chunk of utf8Chunks(path, detection.encoding)) {
    const chunkClean = validator.check(chunk) === 0;
    // A record may start in the previous chunk: both must be clean.
    clean = chunkClean && previousClean;
    previousClean = chunkClean;
    tokenizer.push(chunk, handle);
    if (options.afterChunk) await options.afterChunk();
  }
  if (validator.end() > 0) clean = false;
  tokenizer.end(handle);
  if (options.afterChunk) await options.afterChunk();
  return { columnNames: names, synthetic, profile: profiler.finish(), invalidCharacters: validator.invalid };
}

function isBlank(record: RecordView): boolean {
  const { buf, starts, ends } = record;
  for (let f = 0; f < record.count; f++) {
    for (let k = starts[f]; k < ends[f]; k++) {
      const b = buf[k];
      if (b !== 0x20 && b !== 0x09) return false;
    }
  }
  return true;
}
