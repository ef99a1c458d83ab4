import { once } from "node:events";
import { createReadStream } from "node:fs";
import { Worker } from "node:worker_threads";
import type pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { detectFormat, type DetectOptions, type FormatDetection } from "../detect.js";
import { byteSource, type ByteSource } from "../byte-source.js";
import { READ_CHUNK } from "../csv/encoding.js";
import { createDegrouper } from "../formats/index.js";
import type { ShadowSpec } from "../profile/profiler.js";
import { rowSource } from "../rows.js";
import { scanFile, sizeOf, type ScanResult } from "../scan.js";
import { column, qualifiedTable, stagingColumn } from "../sql/identifiers.js";
import { withRecommendedMetrics } from "../profile/mapped-metrics.js";
import type { ColumnDefinition, GroupedFormat, TabularFileInfo } from "../types.js";
import { fileInfoOfScan } from "../inspect.js";
import { CopyRowEncoder } from "./copy-encoder.js";
import { planShadows, PLAN_RECORDS } from "./shadow-plan.js";
import type { FromStageWorker, StageWorkerData, ToStageWorker } from "./stage-worker.js";
import { inPgTransaction } from "../../db/pg-transaction.js";

export interface StageOptions extends DetectOptions {
  /** Table to (re)create, e.g. `ingestionTables(sourceId).staging`. */
  table: string;
  /** A detection made earlier (DETECTING_FORMAT); detected again when absent. */
  detection?: FormatDetection;
  /** Flatten the detected grouped layout while staging (`applyDegrouper`). */
  degroup?: boolean;
  /** File name shown in the file info. */
  name?: string;
  /** Stage typed copies of amount and date columns (default true); see StagedColumn.shadow. */
  typedShadows?: boolean;
  /** The source type's fields: the file info then carries the metrics of the recommended mapping. */
  columnDefinitions?: ColumnDefinition[];
  /**
   * A file info computed earlier from the same bytes (the file manager's, on import). When it
   * describes the file as this detection reads it (same encoding, delimiter, quote and header row,
   * not degrouped), staging does not profile again: it only computes the typed shadows, which
   * roughly halves the work of this pass. A row count that disagrees falls back to profiling.
   */
  fileInfo?: TabularFileInfo | null;
  /**
   * Read in a worker thread (tokenize, profile, shadows, encode) while this thread only moves the
   * bytes in and the encoded rows to COPY. The result is the same either way; the default is the
   * worker for delimited text of WORKER_MIN_BYTES or more (a worker takes a few tens of
   * milliseconds to start), which keeps an upload's reading off the server's event loop.
   */
  parallel?: boolean;
  /**
   * Called with the stage's result once every row is handed to COPY, before the server has read
   * them all and before COMMIT (~0.1 s per million rows of COPY backlog, then the commit): the
   * caller can prepare what depends on the result meanwhile. The stage may still fail after it;
   * on success it returns this same object.
   */
  onRowsHandedOver?: (result: StageResult) => void;
}

export interface StagedColumn {
  position: number;
  name: string;
  /** Column of the staging table holding it (text). */
  sqlName: string;
  /**
   * Typed copy staged alongside (computed in the same pass): `n<i>` bigint MONEY_100 or `d<i>`
   * integer days since 2000-01-01, valid for `format`; NULL where the text is blank or not valid.
   */
  shadow?: {
    sqlName: string;
    type: "MONEY_100" | "DATE";
    format: string;
    /** MONEY_100: whether a staged value is below zero (MoneyShadowFacts; absent: not known). */
    negatives?: boolean;
    /** MONEY_100: the positions of the other money shadows set in some row where this one is set. */
    sharesRowsWith?: number[];
  };
  /**
   * Every non-blank value is an integer of 1-15 digits written plainly (ColumnProfile.integers), so
   * a number field reads it through bigint, bit for bit the double precision cast's value.
   */
  integers?: true;
}

export interface StageResult {
  table: string;
  rowCount: number;
  columns: StagedColumn[];
  /** File info of the staged rows (columns of the degrouped rows when degrouped). */
  fileInfo: TabularFileInfo;
  /** What this pass profiled (the file info without the mapping's metrics); null when it reused `fileInfo`. */
  profiled: TabularFileInfo | null;
  detection: FormatDetection;
  degrouped: GroupedFormat | null;
  /** Rows handed to COPY as the file had them (the rest were rebuilt field by field). */
  rowsPassedThrough: number;
}

/**
 * Streams a file into a fresh UNLOGGED staging table of text columns in one pass, profiling it on
 * the way: `row_no` (the record's index in the file), `c0..c{n-1}`, `extra` (fields beyond the
 * width). Drop, create and COPY (FREEZE) run in one transaction, so a re-run replaces the table
 * and a failure leaves the previous one. Unlogged: after a database crash the table is empty and
 * the step must be run again (`stagedRowCount` tells).
 */
export async function stageFile(pool: pg.Pool, file: string | ByteSource, options: StageOptions): Promise<StageResult> {
  const source = byteSource(file);
  const detection = options.detection ?? (await detectFormat(file, options));
  const degroupFormat = options.degroup && detection.groupedFormat ? detection.groupedFormat : null;
  // Bytes read once (an upload arriving) cannot be read again if the earlier file info disagrees.
  const known = options.fileInfo && source.rereadable && !degroupFormat && describesSameRows(options.fileInfo, detection) ? options.fileInfo : null;
  const staged = await stage(pool, file, options, detection, degroupFormat, known);
  // The earlier file info counted other rows than this pass staged: it was not of these bytes.
  return staged ?? (await stage(pool, file, options, detection, degroupFormat, null))!;
}

/** Whether a file info describes the rows this detection yields. */
export function describesSameRows(info: TabularFileInfo, detection: FormatDetection): boolean {
  return (
    !info.degrouped &&
    info.encoding === detection.encoding.encoding &&
    info.bom === detection.encoding.bom &&
    info.delimiter === detection.delimiter &&
    info.quote === detection.quote &&
    info.headerRowIndex === detection.headerRowIndex &&
    info.columnData.length === detection.width &&
    (info.workbook?.sheet ?? null) === (detection.workbook?.sheet ?? null)
  );
}

/** One staging pass; null when `known` turns out to count other rows (nothing is kept then). */
async function stage(
  pool: pg.Pool,
  file: string | ByteSource,
  options: StageOptions,
  detection: FormatDetection,
  degroupFormat: GroupedFormat | null,
  known: TabularFileInfo | null,
): Promise<StageResult | null> {
  const table = qualifiedTable(options.table);
  const client = await pool.connect();
  let copyInProgress: { stream: ReturnType<typeof copyFrom>; failed: Promise<never> } | null = null;
  /** The staging worker of this stage, taken before its shadows are planned, until scanInWorker takes it over. */
  let worker: Worker | null = null;
  try {
    const width = degroupFormat ? createDegrouper(degroupFormat, detection.header).header.length : detection.width;
    const rows = rowSource(file, detection);
    const inWorker = rows.chunked && (options.parallel ?? ((await sizeOf(file)) ?? 0) >= WORKER_MIN_BYTES);
    if (inWorker) worker = takeWorker();
    // With a worker, it plans the shadows (its code is warm from the stages before; this thread
    // would run the profiler cold, once per stage, while nothing else of the upload runs) during
    // the statements below.
    const planned = options.typedShadows === false ? Promise.resolve([]) : worker ? planInWorker(worker, file, detection, degroupFormat, width) : null;
    planned?.catch(() => undefined);
    await client.query("BEGIN");
    await client.query(`DROP TABLE IF EXISTS ${table}`);
    const shadows = planned ? await planned : await planShadows(await rows.head(PLAN_RECORDS), detection, degroupFormat, width);
    const texts = Array.from({ length: width }, (_, i) => column(stagingColumn(i)));
    texts.push("extra");
    const typed: string[] = [];
    shadows.forEach((spec, f) => spec && typed.push(spec.kind === "MONEY_100" ? `n${f}` : `d${f}`));
    const type = (name: string) => (name.startsWith("n") ? "bigint" : "integer");
    // The typed shadows are stored before the text columns: PostgreSQL reads a row's columns from
    // the first up to the last one a statement uses, and the step statements that group the rows
    // (transactions by txid, days and accounts) read the shadows and only the first text columns,
    // which no longer walk every text column of the row to reach the shadows at its end (1M-line
    // ledger: transactions 0.93-0.99 -> 0.86-0.93 CPU-s, days and accounts 0.85-0.90 -> 0.80-0.84).
    // Read only by the engine's own passes, which need no planner statistics: autovacuum would
    // analyze (and vacuum) a million fresh rows while those passes run, on the same cores.
    await client.query(
      `CREATE UNLOGGED TABLE ${table} (row_no bigint NOT NULL, ${[...typed.map((c) => `${c} ${type(c)}`), ...texts.map((c) => `${c} text`)].join(", ")}) WITH (autovacuum_enabled = false)`,
    );
    // The column list in the order CopyRowEncoder writes them (row_no, the texts, extra, the shadows).
    const copy = client.query(copyFrom(`COPY ${table} (row_no, ${[...texts, ...typed].join(", ")}) FROM STDIN WITH (${CopyRowEncoder.copyOptions()}, FREEZE)`));
    const failed = new Promise<never>((_, reject) => copy.once("error", reject));
    failed.catch(() => undefined);
    // Aborting the COPY below emits its error again: without a listener that would end the process.
    copy.on("error", () => undefined);
    copyInProgress = { stream: copy, failed };
    const finished = once(copy, "finish");
    finished.catch(() => undefined);
    const write = async (buffers: Buffer[]) => {
      for (const buffer of buffers) if (!copy.write(buffer)) await Promise.race([once(copy, "drain"), failed]);
    };
    let scan: ScanResult;
    let passedThrough: number;
    if (worker) {
      const taken = worker;
      worker = null;
      ({ scan, passedThrough } = await scanInWorker(taken, file, { detection, degroup: degroupFormat, shadows, shadowsOnly: known !== null, width }, write));
    } else {
      const encoder = new CopyRowEncoder(width, detection.delimiter.charCodeAt(0), detection.quote ? detection.quote.charCodeAt(0) : -1, shadows);
      scan = await scanFile(file, detection, {
        degroup: degroupFormat,
        shadows,
        shadowsOnly: known !== null,
        onRow: (record, set, value, clean) => encoder.encode(record, set, value, clean),
        afterChunk: () => write(encoder.take()),
      });
      await write(encoder.finish());
      passedThrough = encoder.passedThrough;
    }
    copy.end();
    // The result is complete once the rows are read: computed while the server reads the rest of
    // them (the one thing left running then), and handed to `onRowsHandedOver`.
    const result = known && scan.profile.rowCount !== known.rowCount ? null : stageResult(options, detection, degroupFormat, known, scan, shadows, passedThrough);
    if (result) options.onRowsHandedOver?.(result);
    await Promise.race([finished, failed]);
    copyInProgress = null;
    if (!result) {
      await client.query("ROLLBACK");
      return null;
    }
    await client.query("COMMIT");
    return result;
  } catch (error) {
    if (worker) await worker.terminate();
    if (copyInProgress) {
      // A COPY still open holds the connection: make the server abort it, then roll back.
      copyInProgress.stream.destroy(error as Error);
      await copyInProgress.failed.catch(() => undefined);
    }
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** What a stage that read `scan` returns (its file info: this pass's profile, or `known` renamed). */
function stageResult(
  options: StageOptions,
  detection: FormatDetection,
  degroupFormat: GroupedFormat | null,
  known: TabularFileInfo | null,
  scan: ScanResult,
  shadows: (ShadowSpec | null)[],
  passedThrough: number,
): StageResult {
  const profiled = known ? null : fileInfoOfScan(detection, scan, { name: options.name, degrouped: degroupFormat !== null });
  const read = profiled ?? { ...known!, name: options.name ?? known!.name };
  const fileInfo = options.columnDefinitions ? withRecommendedMetrics(read, options.columnDefinitions) : read;
  return {
    table: options.table,
    rowCount: scan.profile.rowCount,
    columns: scan.columnNames.map((name, position) => {
      const spec = shadows[position];
      const staged: StagedColumn = { position, name, sqlName: stagingColumn(position) };
      if (spec) staged.shadow = { sqlName: spec.kind === "MONEY_100" ? `n${position}` : `d${position}`, type: spec.kind, format: spec.format };
      const money = scan.profile.moneyShadows.find((m) => m.position === position);
      if (staged.shadow && money) Object.assign(staged.shadow, { negatives: money.negatives, sharesRowsWith: money.sharesRowsWith });
      const profile = scan.profile.columns[position];
      if (profile?.integers) staged.integers = true;
      return staged;
    }),
    fileInfo,
    profiled,
    detection,
    degrouped: degroupFormat,
    rowsPassedThrough: passedThrough,
  };
}

/**
 * Takes a staging table loaded earlier (while the file arrived) over as `table`, in one
 * transaction: false, and nothing changed, when it is gone (taken by another source, dropped by
 * the cleanup) or lost its rows in a database crash (it is UNLOGGED); the caller then stages.
 */
export async function adoptStagingTable(pool: pg.Pool, from: string, table: string, rowCount: number): Promise<boolean> {
  const [fromSchema] = from.split(".");
  const [schema, name] = table.split(".");
  if (fromSchema !== schema) throw new Error(`${from} and ${table} are not in one schema`);
  try {
    // The LOCK with the BEGIN, the DROP with the RENAME: two round trips fewer before the steps'
    // statements (each waits for a turn of the main thread).
    return await inPgTransaction(
      pool,
      async (client) => {
        if (rowCount > 0 && (await client.query(`SELECT 1 FROM ${qualifiedTable(from)} LIMIT 1`)).rowCount !== 1) {
          await client.query(`DROP TABLE ${qualifiedTable(from)}`);
          return false;
        }
        await client.query(`DROP TABLE IF EXISTS ${qualifiedTable(table)}; ALTER TABLE ${qualifiedTable(from)} RENAME TO ${column(name)}`);
        return true;
      },
      // Waits for a concurrent adoption of the same table (which then leaves nothing to take).
      `LOCK TABLE ${qualifiedTable(from)} IN ACCESS EXCLUSIVE MODE`,
    );
  } catch (error) {
    if ((error as { code?: string }).code === "42P01") return false; // undefined_table
    throw error;
  }
}

/** Rows in a staging table, or null when it does not exist (never staged, or dropped). */
export async function stagedRowCount(pool: pg.Pool, table: string): Promise<number | null> {
  const exists = await pool.query<{ t: string | null }>("SELECT to_regclass($1) AS t", [table]);
  if (!exists.rows[0].t) return null;
  const { rows } = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${qualifiedTable(table)}`);
  return Number(rows[0].n);
}

/**
 * Whether the staging table still holds what was staged. It is written in one transaction and is
 * UNLOGGED, so after a database crash it exists but is empty: existence plus one row tells as much
 * as a full count, without reading every staged row before each step.
 */
export async function stagingIntact(pool: pg.Pool, table: string, stagedRows: number): Promise<boolean> {
  const exists = await pool.query<{ t: string | null }>("SELECT to_regclass($1) AS t", [table]);
  if (!exists.rows[0].t) return false;
  if (stagedRows === 0) return true;
  const { rowCount } = await pool.query(`SELECT 1 FROM ${qualifiedTable(table)} LIMIT 1`);
  return rowCount === 1;
}

/**
 * The staging table's row index, made on first use: rows are stored in row_no order, so a BRIN
 * index (a few kilobytes) finds any row range in a few pages. Building it costs a scan of the
 * table, which staging itself no longer pays for a source whose previews nobody reads row by row.
 */
export async function ensureRowIndex(client: pg.ClientBase, table: string): Promise<void> {
  const plain = table.replace(/"/g, ""); // callers may hold the quoted form
  // Callers are in a transaction. A BRIN build of a frozen staging table is one cheap scan (about
  // 0.1 s of CPU per million rows); parallel workers only add processes beside the passes it runs
  // next to (the step that builds it already keeps both cores busy).
  await client.query("SET LOCAL max_parallel_maintenance_workers = 0");
  await client.query(`CREATE INDEX IF NOT EXISTS ${column(`${plain.split(".").at(-1)!}_row_no`)} ON ${qualifiedTable(plain)} USING brin (row_no)`);
}

/** `ensureRowIndex` on a connection of its own (to build it beside other passes). */
export async function indexStagedRows(pool: pg.Pool, table: string): Promise<void> {
  await inPgTransaction(pool, (client) => ensureRowIndex(client, table));
}

/** Drops the engine's tables of a source (staging and entries). */
export async function dropTables(pool: pg.Pool, tables: string[]): Promise<void> {
  for (const t of tables) await pool.query(`DROP TABLE IF EXISTS ${qualifiedTable(t)}`);
}

/** Puts tables built elsewhere in the places of others (dropping those), all in one transaction. */
export async function replaceTables(pool: pg.Pool, moves: [from: string, to: string][]): Promise<void> {
  const statements: string[] = [];
  for (const [from, to] of moves) {
    const [schema, name] = to.split(".");
    if (from.split(".")[0] !== schema) throw new Error(`${from} and ${to} are not in one schema`);
    statements.push(`DROP TABLE IF EXISTS ${qualifiedTable(to)}`, `ALTER TABLE ${qualifiedTable(from)} RENAME TO ${column(name)}`);
  }
  // One simple query: its statements run as one implicit transaction (all or nothing), one round
  // trip instead of one per statement plus BEGIN and COMMIT.
  await pool.query(statements.join("; "));
}

/**
 * Plans a stage's typed shadows in its worker (`planShadows` of the file's first records, read from
 * its first chunk as `rowSource(...).head` reads them): the same plan, computed by warm code.
 */
async function planInWorker(worker: Worker, file: string | ByteSource, detection: FormatDetection, degroup: GroupedFormat | null, width: number): Promise<ShadowSpec[]> {
  const head = await byteSource(file).head(READ_CHUNK);
  return new Promise<ShadowSpec[]>((resolve, reject) => {
    const done = () => {
      worker.off("message", onMessage);
      worker.off("error", onError);
      worker.off("exit", onExit);
    };
    const onMessage = (message: FromStageWorker) => {
      done();
      if ("shadows" in message) resolve(message.shadows);
      else reject(new Error("error" in message ? message.error : "The staging worker answered out of turn"));
    };
    const onError = (error: Error) => (done(), reject(error));
    const onExit = (code: number) => (done(), reject(new Error(`The staging worker exited (${code})`)));
    worker.on("message", onMessage);
    worker.once("error", onError);
    worker.once("exit", onExit);
    // A copy: the head stays with the byte source, whose chunks follow.
    worker.postMessage({ plan: { head: new Uint8Array(head), complete: head.length < READ_CHUNK, detection, degroup, width } } satisfies ToStageWorker);
  });
}

/** Chunks handed to the staging worker and not yet taken by it, at most: bounds memory when it falls behind. */
const MAX_CHUNKS_IN_FLIGHT = 3;

/** Files from this size on are read in a worker thread by default (a worker costs a few tens of milliseconds to start). */
export const WORKER_MIN_BYTES = 16 * 2 ** 20;

/**
 * Staging workers not in use, kept for the next stage: a worker's code is compiled and optimized
 * while it reads its first file (on the same cores as the rest of the upload), and a new worker
 * would pay that again for every file. At most IDLE_WORKERS wait; they do not keep the process
 * alive, and one left unused for IDLE_WORKER_MS ends.
 */
const idleWorkers: Worker[] = [];
const IDLE_WORKERS = 2;
const IDLE_WORKER_MS = 10 * 60 * 1000;
const idleTimers = new WeakMap<Worker, NodeJS.Timeout>();

function takeWorker(): Worker {
  const kept = idleWorkers.pop();
  if (kept) {
    clearTimeout(idleTimers.get(kept));
    kept.ref();
    return kept;
  }
  const typescript = import.meta.url.endsWith(".ts");
  const worker = new Worker(new URL(typescript ? "./stage-worker-entry.mjs" : "./stage-worker.js", import.meta.url));
  // A kept worker that fails or ends while it waits only leaves the pool (a stage's own listeners report it otherwise).
  const leave = () => {
    const at = idleWorkers.indexOf(worker);
    if (at >= 0) idleWorkers.splice(at, 1);
  };
  worker.on("error", leave);
  worker.on("exit", leave);
  return worker;
}

/** Keeps a worker that finished a stage for the next one (or ends it when enough wait). */
function keepWorker(worker: Worker): void {
  if (idleWorkers.length >= IDLE_WORKERS) {
    void worker.terminate();
    return;
  }
  worker.unref();
  idleWorkers.push(worker);
  const timer = setTimeout(() => {
    const at = idleWorkers.indexOf(worker);
    if (at < 0) return;
    idleWorkers.splice(at, 1);
    void worker.terminate();
  }, IDLE_WORKER_MS);
  timer.unref();
  idleTimers.set(worker, timer);
}

/**
 * The staging pass with its per-byte work in a worker thread (stage-worker.ts): this thread reads
 * the bytes (a file, or an upload arriving), hands them over and writes the encoded rows the worker
 * hands back to COPY (`write`, which waits while COPY is behind). Returns what `scanFile` returns.
 * A worker whose stage failed, on either side, is ended rather than kept.
 */
async function scanInWorker(
  worker: Worker,
  file: string | ByteSource,
  data: Omit<StageWorkerData, "expectedBytes">,
  write: (buffers: Buffer[]) => Promise<void>,
): Promise<{ scan: ScanResult; passedThrough: number }> {
  let inFlight = 0;
  /** Messages of encoded rows not yet accepted by COPY (it waits for a drain meanwhile). */
  let writesPending = 0;
  let wake: (() => void) | null = null;
  let failure: Error | null = null;
  let completed = false;
  const nudge = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  // Encoded rows are written in the order they come, one message after the other.
  let writing: Promise<void> = Promise.resolve();
  let onMessage: (message: FromStageWorker) => void = () => undefined;
  let onError: (error: Error) => void = () => undefined;
  let onExit: (code: number) => void = () => undefined;
  const result = new Promise<{ scan: ScanResult; passedThrough: number }>((resolve, reject) => {
    const fail = (error: Error) => {
      failure ??= error;
      reject(failure);
      nudge();
    };
    onMessage = (message) => {
      if ("error" in message) return fail(new Error(message.error));
      if ("shadows" in message) return fail(new Error("The staging worker answered out of turn"));
      if (message.encoded.length > 0) {
        const buffers = message.encoded.map((u) => Buffer.from(u.buffer, u.byteOffset, u.byteLength));
        writesPending++;
        writing = writing.then(async () => {
          if (!failure) await write(buffers);
          writesPending--;
          nudge();
        });
        writing.catch(fail);
      }
      if ("taken" in message) {
        inFlight--;
        nudge();
      }
      if ("done" in message) {
        const { done, passedThrough } = message;
        writing.then(() => {
          completed = failure === null;
          resolve({ scan: done, passedThrough });
        }, fail);
      }
    };
    onError = fail;
    onExit = (code) => fail(new Error(`The staging worker exited (${code})`));
  });
  worker.on("message", onMessage);
  worker.once("error", onError);
  worker.once("exit", onExit);
  result.catch(() => undefined);
  try {
    worker.postMessage({ start: { ...data, expectedBytes: await sizeOf(file) } } satisfies ToStageWorker);
    const source = byteSource(file);
    let first = true;
    for await (const piece of typeof file === "string" ? createReadStream(file, { highWaterMark: READ_CHUNK }) : source.chunks()) {
      const chunk = piece as Uint8Array;
      // Waits while the worker has enough to do, or while COPY is behind (the worker then runs dry too).
      while ((inFlight >= MAX_CHUNKS_IN_FLIGHT || writesPending > 1) && !failure) await new Promise<void>((resolve) => (wake = resolve));
      if (failure) throw failure;
      inFlight++;
      // A chunk that owns its memory moves to the worker; others (a view into a head kept for
      // detection, a pooled buffer) are copied.
      const owned = !first && chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength && chunk.buffer instanceof ArrayBuffer;
      first = false;
      if (owned) worker.postMessage({ chunk } satisfies ToStageWorker, [chunk.buffer as ArrayBuffer]);
      else worker.postMessage({ chunk: new Uint8Array(chunk) } satisfies ToStageWorker);
    }
    worker.postMessage({ end: true } satisfies ToStageWorker);
    return await result;
  } finally {
    worker.off("message", onMessage);
    worker.off("error", onError);
    worker.off("exit", onExit);
    if (completed) keepWorker(worker);
    else await worker.terminate();
  }
}
