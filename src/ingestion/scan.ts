import { stat } from "node:fs/promises";
import type { ByteSource } from "./byte-source.js";
import { recordFromTexts, recordTexts, type RecordView } from "./csv/tokenizer.js";
import type { FormatDetection } from "./detect.js";
import { createDegrouper, type Degrouper } from "./formats/index.js";
import { Profiler, type ShadowSpec, type TableProfile } from "./profile/profiler.js";
import { rowSource } from "./rows.js";
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
  /**
   * Compute the typed shadows only: the profile then holds nothing but `rowCount` (the caller
   * already has a file info of the same bytes).
   */
  shadowsOnly?: boolean;
}

export interface ScanResult {
  columnNames: string[];
  synthetic: boolean[];
  profile: TableProfile;
  /** Invalid UTF-8 sequences and NUL bytes met (each is replaced or dropped downstream). */
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

/** Column names of the rows a scan yields (the degrouper's when degrouping). */
export function scanColumns(detection: FormatDetection, degroup: GroupedFormat | null | undefined): { names: string[]; synthetic: boolean[] } {
  if (!degroup) return columnNames(detection.header, detection.width);
  const header = createDegrouper(degroup, detection.header).header;
  return columnNames(header, header.length);
}

/** Where the records of a file go: what is neither preamble nor header becomes data rows. */
export interface RowSink {
  /** A blank line after the header. */
  blank(index: number): void;
  /** A non-blank record (preamble, header, report line, data row). */
  nonBlank(index: number): void;
  /** A data row; `clean` as in ScanOptions.onRow (always false for rebuilt degrouped rows). */
  row(record: RecordView, clean: boolean): void;
}

/**
 * Routes tokenized records: preamble and header rows are only noted, blank lines reported, grouped
 * layouts flattened when a degrouper is given, data rows passed on. The same routing serves the
 * one-thread scan and the staging thread and profiling worker of a parallel stage.
 */
export class RowRouter {
  private readonly degrouper: Degrouper | null;

  constructor(
    private readonly headerIndex: number | null,
    detection: FormatDetection,
    degroup: GroupedFormat | null | undefined,
    private readonly sink: RowSink,
  ) {
    this.degrouper = degroup ? createDegrouper(degroup, detection.header) : null;
  }

  record(record: RecordView, clean: boolean): void {
    const index = record.index;
    if (this.headerIndex !== null && index <= this.headerIndex) {
      if (!isBlank(record)) this.sink.nonBlank(index);
      return;
    }
    if (this.degrouper) {
      if (isBlank(record)) {
        this.sink.blank(index);
        return;
      }
      this.sink.nonBlank(index);
      for (const row of this.degrouper.push(recordTexts(record), index)) this.sink.row(recordFromTexts(row.values, row.index), false);
      return;
    }
    this.sink.row(record, clean);
  }
}

/**
 * One streaming pass over the file: tokenizes, skips the preamble and header, flattens grouped
 * layouts when asked, profiles every data row and hands it to `onRow`. Memory is bounded by the
 * read chunk, one record and the profiler's capped structures.
 */
export async function scanFile(file: string | ByteSource, detection: FormatDetection, options: ScanOptions = {}): Promise<ScanResult> {
  const { names, synthetic } = scanColumns(detection, options.degroup);
  const profiler = new Profiler(names, synthetic, options.shadows, options.shadowsOnly);
  profiler.expectBytes(await sizeOf(file));
  const { shadowSet, shadowValue } = profiler;
  const onRow = options.onRow;
  const router = new RowRouter(detection.headerRowIndex, detection, options.degroup, {
    blank: (index) => profiler.addBlank(index),
    nonBlank: (index) => profiler.noteNonBlank(index),
    row: (record, clean) => {
      if (profiler.add(record) && onRow) onRow(record, shadowSet, shadowValue, clean);
    },
  });
  const { invalidCharacters } = await rowSource(file, detection).read((record, clean) => router.record(record, clean), options.afterChunk);
  if (options.afterChunk) await options.afterChunk();
  return { columnNames: names, synthetic, profile: profiler.finish(), invalidCharacters };
}

/** The file's size in bytes when known (a hint for sizing the profiler's tables). */
export async function sizeOf(file: string | ByteSource): Promise<number | null> {
  if (typeof file !== "string") return file.size ?? null;
  return stat(file).then(
    (s) => s.size,
    () => null,
  );
}

export function isBlank(record: RecordView): boolean {
  const { buf, starts, ends } = record;
  for (let f = 0; f < record.count; f++) {
    for (let k = starts[f]; k < ends[f]; k++) {
      const b = buf[k];
      if (b !== 0x20 && b !== 0x09) return false;
    }
  }
  return true;
}
