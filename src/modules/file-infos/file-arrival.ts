import { randomBytes } from "node:crypto";
import { ArrivingBytes, dropTables, INGEST_SCHEMA, inspectFile, NotTabularFileError, stageFile, type StageResult } from "../../ingestion/index.js";
import type { App, UploadObserver } from "../../app-types.js";
import { engineInspection, type FileInspection } from "./file-inspector.js";
import type { ArrivalStaging } from "./file-inspection.js";
import { inspectionOf, NOT_TABULAR } from "./tabular-inspector.js";

/**
 * Files up to this size are also loaded into a staging table while they arrive; larger ones are
 * only profiled (a speculative table of several gigabytes costs more than re-reading the file in
 * the rare case it is ingested).
 */
export const ARRIVAL_STAGING_MAX_BYTES = 2 * 2 ** 30;

/** Staging tables no analysis source took over are dropped after this long (file-info.cleanup.ts). */
export const ARRIVAL_TABLE_TTL_MS = 2 * 3600 * 1000;

/** Workbooks are read from the stored file (their parts are found from the end of the archive): the file info job reads them. */
const WORKBOOKS = new Set(["xlsx", "xlsm", "xls"]);

/** `arr_<UTC yyyymmddhhmmss>_<random>`: the name carries its creation time for the cleanup. */
const ARRIVAL_TABLE = /^arr_(\d{14})_[0-9a-f]{12}$/;

function arrivalTable(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:T]/g, "").slice(0, 14);
  return `${INGEST_SCHEMA}.arr_${stamp}_${randomBytes(6).toString("hex")}`;
}

/** When an arrival table was created (null: not an arrival table's name). */
export function arrivalTableCreated(name: string): Date | null {
  const match = ARRIVAL_TABLE.exec(name.split(".").at(-1)!);
  if (!match) return null;
  const s = match[1];
  return new Date(Date.UTC(+s.slice(0, 4), +s.slice(4, 6) - 1, +s.slice(6, 8), +s.slice(8, 10), +s.slice(10, 12), +s.slice(12, 14)));
}

export interface ArrivingFile {
  name: string;
  extension: string | null;
  /** Total bytes when known in advance (a chunked file's size, a request's length). */
  size?: number | null;
}

/**
 * Reads a new file's bytes while they are being stored, in the same pass: the engine detects the
 * format from the first megabyte, then profiles every row and (up to ARRIVAL_STAGING_MAX_BYTES)
 * copies them into a staging table of their own. The file info is then complete when the file is
 * created, and the file's first analysis source takes the staging table over (no second read of
 * the file, no second profile). The bytes are stored at the pace of this reading.
 *
 * Returns null when the engine's own inspector is not in use or the file cannot be delimited text
 * (by its extension: workbooks are inspected by the file info job once stored); `result()` is null when the bytes turned out not to be delimited text or the
 * reading failed: the file info job then inspects the stored file as before.
 */
export function receiveFile(app: App, file: ArrivingFile): UploadObserver<FileInspection | null> | null {
  if (!engineInspection()) return null;
  const extension = file.extension?.toLowerCase();
  if (file.size === 0 || (extension && (NOT_TABULAR.has(extension) || WORKBOOKS.has(extension)))) return null;
  const bytes = new ArrivingBytes(undefined, file.size ?? null);
  const stage = file.size == null || file.size <= ARRIVAL_STAGING_MAX_BYTES;
  const table = stage ? arrivalTable() : null;
  let sourceFailed = false;
  let kept = false;
  const started = performance.now();
  /** The staged table's inspection once its rows are all handed to COPY (the stage may still fail after). */
  let handedOver: FileInspection | null = null;
  let early: (inspection: FileInspection | null) => void = () => undefined;
  const earlyResult = new Promise<FileInspection | null>((resolve) => (early = resolve));
  const reading: Promise<FileInspection | null> = (async () => {
    try {
      if (!table) return inspectionOf(await inspectFile(bytes, { name: file.name }));
      const onRowsHandedOver = (staged: StageResult) => {
        // The staging time up to here: what is left (the server reading its backlog, the commit) is short.
        handedOver = inspectionOf(staged.fileInfo, arrivalStaging(table, staged, started));
        early(handedOver);
      };
      const staged = await stageFile(app.pool, bytes, { table, name: file.name, onRowsHandedOver });
      return handedOver ?? inspectionOf(staged.fileInfo, arrivalStaging(table, staged, started));
    } catch (error) {
      if (!sourceFailed && !(error instanceof NotTabularFileError)) app.logger.warn("reading a file as it arrived failed; its file info job will read it", { file: file.name, error: String(error) });
      return null;
    } finally {
      // Whatever happened, the bytes must go on to storage without waiting for this reading.
      bytes.abandon();
    }
  })();
  // Without a hand-over (a file only profiled, a failure) the early result is the result.
  void reading.then(early);
  return {
    async *through(source) {
      let ended = false;
      try {
        for await (const chunk of source) {
          await bytes.push(chunk);
          yield chunk;
        }
        ended = true;
        bytes.end();
      } finally {
        if (!ended) {
          sourceFailed = true;
          bytes.fail(new Error("The upload ended early"));
        }
      }
    },
    result: () => reading,
    early: () => earlyResult,
    keep: () => {
      kept = true;
    },
    async discard() {
      if (kept) return;
      // Bytes that never came (the file was refused before its bytes were written) end the reading.
      sourceFailed = true;
      bytes.fail(new Error("The file was not created"));
      const found = await reading;
      const staged = found?.tabularReading?.staged;
      if (staged) await dropTables(app.pool, [staged.table]).catch((error) => app.logger.warn("could not drop a staging table", { table: staged.table, error: String(error) }));
    },
  };
}

/**
 * The staging table as the file's reading records it, with the detection its rows were read with:
 * the source that takes the table over uses that detection instead of detecting the stored file's
 * first MiB again (the same bytes).
 */
function arrivalStaging(table: string, staged: StageResult, started: number): ArrivalStaging {
  return { table, rowCount: staged.rowCount, columns: staged.columns, ms: Math.round(performance.now() - started), detection: staged.detection };
}
