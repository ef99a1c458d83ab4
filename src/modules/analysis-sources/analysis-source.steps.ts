import type { App } from "../../app-types.js";
import {
  adoptStagingTable,
  analyzeStagedData,
  analyzeTables,
  applyColumnMappings,
  buildParsePlan,
  buildTransactionsFromStaging,
  buildTransactionsTable,
  chooseTransactionId,
  detectFormat,
  discoverAccounts,
  describesSameRows,
  dropTables,
  EmptyFileError,
  hasTransactions,
  ingestionTables,
  MappingError,
  mappedMetrics,
  needsWindow,
  normalizeSelection,
  NotTabularFileError,
  parseEntries,
  placeVirtualColumns,
  previewFromTransactions,
  previewTransactionIds,
  profileVirtualColumns,
  replaceTables,
  sameSelection,
  selectionProblems,
  signedAmountExpression,
  stagingIntact,
  stageFile,
  summarizeColumns,
  summarizeStagedRows,
  transactionIdCandidates,
  withRecommendedMetrics,
  type AppliedMapping,
  type ColumnDefinition,
  type DiscoveredAccount,
  type EffectiveDateSummary,
  type FormatDetection,
  type ParsePlan,
  type ParseResult,
  type StagedColumn,
  type StageResult,
  type TabularFileInfo,
  type TransactionIdPreview,
  type TransactionIdSelection,
  type TransactionsTableResult,
} from "../../ingestion/index.js";
import type { Actor } from "../../entity/index.js";
import { JobError } from "../../jobs/index.js";
import type { Prisma } from "../../generated/prisma/client.js";
import { completeFileInfo, withProfileLock } from "../file-infos/file-info.jobs.js";
import { fileReadingOf, type FileReading } from "../file-infos/file-info.service.js";
import { inspectionOf } from "../file-infos/tabular-inspector.js";
import { fileObjectKey } from "../file-manager/file-manager.service.js";
import { estimatePhase, expectedMs } from "./analysis-source.step-progress.js";
import { auditVirtualColumns, storedVirtualColumns } from "./analysis-source.virtual-columns.js";

/** The stored row, as the steps read it. */
export type SourceRow = Prisma.AnalysisSourceGetPayload<object>;

/** What PREPARE_FILE keeps for later steps (the staging table's layout). */
export interface StoredStage {
  rowCount: number;
  columns: StagedColumn[];
  degrouped: string | null;
  /** Wall time of the staging pass: the pace the later steps' progress estimates scale by. */
  ms?: number;
}

/** Everything a step needs besides the row. */
export interface StepEnv {
  app: App;
  /** Who started the job (audit of what the steps create, e.g. applied virtual columns). */
  actor: Actor;
  definitions: ColumnDefinition[];
  /** Live percentage within the step (0..100 of the step). */
  progress(percent: number): void;
}

/** A step's outputs: columns of the analysis source row to write. */
export type Patch = Prisma.AnalysisSourceUpdateInput;

function fileInfoOf(source: SourceRow): TabularFileInfo {
  if (!source.fileInfo) throw new JobError("The file has not been analysed yet (no file info)", "FILE_NOT_ANALYZED");
  return source.fileInfo;
}

/** The staging layout of a source ensureStaged has seen to. */
function stageOf(source: SourceRow): StoredStage {
  if (!source.stage) throw new JobError("The file has not been staged yet", "FILE_NOT_STAGED");
  return source.stage;
}

export function appliedOf(source: SourceRow): AppliedMapping {
  return {
    columnMappings: source.columnMappings,
    virtualColumns: source.virtualColumns,
    ambiguousColumnResolutions: source.ambiguousColumnResolutions,
  };
}

/** The parse plan is pure: rebuilt from the stored JSON each time a step needs it. */
export function planOf(source: SourceRow, definitions: ColumnDefinition[]): ParsePlan {
  return buildParsePlan(fileInfoOf(source), appliedOf(source), definitions, source.virtualColumnData ?? [], source.stage?.columns ?? []);
}

async function withFile<T>(app: App, source: SourceRow, work: (path: string) => Promise<T>): Promise<T> {
  const key = fileObjectKey(source.fileManagerFileId);
  if ((await app.storage.size(key)) === undefined) throw new JobError(`The file ${source.fileManagerFileId} of this analysis source no longer exists`, "FILE_MISSING");
  return app.storage.withLocalPath(key, work);
}

/** Why a file gives no entries at all (a permanent failure: reading it again changes nothing). */
const NOTHING_TO_INGEST = {
  empty: "The file is empty (0 bytes): there is nothing to ingest",
  noRows: (headerRowIndex: number | null, degrouped: string | null) =>
    degrouped
      ? `The file has no entries once its ${degrouped} layout is flattened: there is nothing to ingest`
      : headerRowIndex !== null
        ? `The file has no data rows below its header (row ${headerRowIndex + 1}): there is nothing to ingest`
        : "The file has no data rows: there is nothing to ingest",
};

/** Engine failures the user can act on become the job's (and the source's) error. */
function userFacing(error: unknown): never {
  if (error instanceof EmptyFileError) throw new JobError(NOTHING_TO_INGEST.empty, "EMPTY_FILE");
  if (error instanceof NotTabularFileError) throw new JobError(error.message.startsWith("The file cannot be read") ? error.message : `The file cannot be read as delimited text: ${error.message}`, "NOT_TABULAR");
  if (error instanceof MappingError) throw new JobError(`The column mapping cannot be applied: ${error.problems.join("; ")}`, "COLUMN_MAPPING_FAILED");
  throw error;
}

export async function detectStep(env: StepEnv, source: SourceRow): Promise<Patch> {
  const detection = (await arrivalDetectionFor(env.app, source)) ?? (await withFile(env.app, source, (path) => detectFormat(path, { presetHeaderRowIndex: source.presetHeaderRowIndex })).catch(userFacing));
  return { detection, detectedFormat: detection.groupedFormat };
}

/**
 * The detection the file's arrival staging table was loaded with, when it is the one `detectFormat`
 * gives this source: the same bytes (the table's file, not yet taken over), default options, and a
 * preset header row that is absent or the one detected (the header row is the only option a source
 * sets; with the detected row as preset, the layout is the same).
 */
async function arrivalDetectionFor(app: App, source: SourceRow): Promise<FormatDetection | undefined> {
  if ((await app.storage.size(fileObjectKey(source.fileManagerFileId))) === undefined) return undefined;
  // Only the reading (small): the rest of the file info is read when the table is taken over.
  const info = await app.prisma.fileInfo.findFirst({
    where: { fileManagerFileId: source.fileManagerFileId, analysisSourceId: null },
    orderBy: { creationDate: "desc" },
    select: { state: true, type: true, tabularReading: true },
  });
  const detection = info?.state === "COMPLETE" && info.type === "TABULAR_FILE_INFO" ? info.tabularReading?.staged?.detection : undefined;
  if (!detection) return undefined;
  const preset = source.presetHeaderRowIndex;
  return preset === null || preset === undefined || preset === detection.headerRowIndex ? detection : undefined;
}

/**
 * PREPARE_FILE (and the file info of ANALYZE_COLUMNS): one streaming pass. Staging progress is read
 * from PostgreSQL's COPY progress view against the file size, since the engine reports none.
 */
export async function stageStep(env: StepEnv, source: SourceRow, degroup: boolean): Promise<Patch & { stage: StoredStage; fileInfo: TabularFileInfo }> {
  const { staging } = ingestionTables(source.id);
  const detection = source.detection ?? undefined;
  const file = await env.app.prisma.fileManagerEntity.findUnique({ where: { id: source.fileManagerFileId }, select: { name: true, size: true } });
  const size = Number(file?.size ?? 0);
  let stagingDone = false;
  const timer = setInterval(() => {
    env.app.pool
      // The staging table is created in the COPY's own transaction (invisible to this session), so
      // the COPY is found by its statement text; bytes sent roughly track bytes read.
      .query<{ bytes: string }>(
        `SELECT p.bytes_processed AS bytes FROM pg_stat_progress_copy p JOIN pg_stat_activity a ON a.pid = p.pid WHERE a.query LIKE '%' || $1 || '%' LIMIT 1`,
        [staging.split(".")[1]],
      )
      // A reading that arrives after the step ended would be reported against the next state.
      .then(({ rows }) => !stagingDone && rows[0] && size > 0 && env.progress((Number(rows[0].bytes) / size) * 100))
      .catch(() => undefined);
  }, 250);
  timer.unref();
  const started = performance.now();
  try {
    const staged = await stageOnce(env, source, detection, degroup, file?.name).catch(userFacing);
    // Known here, before any later step would rate or parse nothing.
    if (staged.rowCount === 0) throw new JobError(NOTHING_TO_INGEST.noRows(staged.detection.headerRowIndex, staged.degrouped), "NO_DATA_ROWS");
    // A table taken over was loaded at the pace its bytes arrived: no measure of this machine's
    // staging speed, so the later steps estimate their progress by rows instead.
    const ms = staged.adopted ? undefined : Math.round(performance.now() - started);
    const stage: StoredStage = { rowCount: staged.rowCount, columns: staged.columns, degrouped: staged.degrouped, ...(ms !== undefined ? { ms } : {}) };
    env.app.metrics.ingestionRows.inc({ stage: "staged" }, staged.rowCount);
    if (ms !== undefined) env.app.metrics.ingestionRowsPerSecond.set({ stage: "staged" }, staged.rowCount / Math.max(0.001, ms / 1000));
    return { stage, fileInfo: staged.fileInfo, degrouperApplied: staged.degrouped !== null, detectedFormat: staged.detection.groupedFormat };
  } finally {
    stagingDone = true;
    clearInterval(timer);
  }
}

/**
 * The file is read (and profiled) once: a staging table loaded while it arrived is taken over; a
 * file info being computed is waited for (or, when its job has not started yet, computed here
 * while staging, so the job finds it done); a finished one spares this pass the profiling.
 * Degrouped rows are other rows than the file's: they are always staged and profiled here.
 */
async function stageOnce(env: StepEnv, source: SourceRow, detection: FormatDetection | undefined, degroup: boolean, name: string | undefined): Promise<StageResult & { adopted?: boolean }> {
  const { staging } = ingestionTables(source.id);
  const stage = (fileInfo: TabularFileInfo | null) =>
    withFile(env.app, source, (path) =>
      stageFile(env.app.pool, path, { table: staging, detection, degroup, columnDefinitions: env.definitions, name, presetHeaderRowIndex: source.presetHeaderRowIndex, fileInfo }),
    );
  const reading = degroup ? null : await fileReadingOf(env.app, source.fileManagerFileId);
  if (!reading) return stage(null);
  const adopted = await adoptArrivalStaging(env, reading, detection, staging, name);
  if (adopted) return adopted;
  if (reading.state !== "PENDING") return stage(reading.info);
  return withProfileLock(env.app, reading.fileInfoId, async () => {
    const now = await fileReadingOf(env.app, source.fileManagerFileId);
    if (now && now.state !== "PENDING") return stage(now.info);
    const staged = await stage(null);
    if (staged.profiled) await completeFileInfo(env.app.prisma, reading.fileInfoId, inspectionOf(staged.profiled));
    return staged;
  });
}

/** The staging table loaded while the file arrived, as this source's, when it holds the rows this source reads. */
async function adoptArrivalStaging(env: StepEnv, reading: FileReading, detection: FormatDetection | undefined, staging: string, name: string | undefined) {
  const { info, staged } = reading;
  if (!info || !staged || !detection || !describesSameRows(info, detection)) return null;
  if (!(await adoptStagingTable(env.app.pool, staged.table, staging, staged.rowCount))) return null;
  const read = { ...info, name: name ?? info.name };
  return {
    table: staging,
    rowCount: staged.rowCount,
    columns: staged.columns,
    fileInfo: withRecommendedMetrics(read, env.definitions),
    profiled: null,
    detection,
    degrouped: null,
    rowsPassedThrough: 0,
    adopted: true,
  };
}

/** The staging table is UNLOGGED: after a database crash it is empty, and steps reading it re-stage. */
export async function ensureStaged(env: StepEnv, source: SourceRow): Promise<SourceRow> {
  const { staging } = ingestionTables(source.id);
  if (source.stage && (await stagingIntact(env.app.pool, staging, source.stage.rowCount))) return source;
  const { stage, fileInfo } = await stageStep(env, source, source.degrouperApplied);
  return { ...source, stage, fileInfo };
}

/** APPLY_COLUMN_MAPPINGS: the proposed mapping (or the recommendation) becomes the applied one. */
export async function mappingStep(env: StepEnv, source: SourceRow, { justStaged = false } = {}): Promise<Patch> {
  // Right after PREPARE_FILE put the staging table in place, it needs no check.
  if (!justStaged) source = await ensureStaged(env, source);
  const fileInfo = fileInfoOf(source);
  const { staging } = ingestionTables(source.id);
  try {
    const placed = placeVirtualColumns(source.proposedVirtualColumns ?? [], fileInfo.columnData.length);
    const virtualColumnData = await profileVirtualColumns(env.app.pool, staging, fileInfo, placed);
    const { applied } = applyColumnMappings({
      fileInfo,
      columnDefinitions: env.definitions,
      proposedColumnMappings: source.proposedColumnMappings,
      proposedVirtualColumns: source.proposedVirtualColumns,
      proposedAmbiguousColumnResolutions: source.proposedAmbiguousColumnResolutions,
      virtualColumnData,
    });
    const metrics = mappedMetrics(fileInfo, applied.columnMappings, applied.ambiguousColumnResolutions, env.definitions);
    return {
      columnMappings: applied.columnMappings,
      virtualColumns: auditVirtualColumns(storedVirtualColumns(source.virtualColumns), applied.virtualColumns, env.actor),
      ambiguousColumnResolutions: applied.ambiguousColumnResolutions,
      virtualColumnData,
      fileInfo: { ...fileInfo, tableMetadata: { ...fileInfo.tableMetadata, ...metrics } },
    };
  } catch (error) {
    return userFacing(error);
  }
}

/**
 * The selection CHECK_INTEGRITY rates first: the proposed one, else the best-placed candidate. A
 * proposed selection the applied mapping cannot serve is not rated here: CHECK_INTEGRITY reports it.
 */
function firstSelection(source: SourceRow, plan: ParsePlan): TransactionIdSelection | null {
  const proposed = source.proposedTransactionIdSelection;
  if (proposed) {
    return selectionProblems(proposed, plan.physicalCount, appliedOf(source)).length === 0 ? proposed : null;
  }
  return transactionIdCandidates(plan, summarizeColumns(fileInfoOf(source), source.virtualColumnData ?? []), stageOf(source).rowCount)[0] ?? null;
}

/**
 * The parse made ahead, while the workflow passes through to PARSING: entries and transactions
 * under `*Ahead` names, built with the selection CHECK_INTEGRITY is expected to choose.
 */
export interface AheadParse {
  selection: TransactionIdSelection;
  /**
   * The entries' CREATE TABLE AS, which may still be running when the step ends (PARSE awaits
   * it); null when it failed (logged; PARSE then parses as usual). Never rejects.
   */
  entries: Promise<ParseResult | null>;
  /**
   * The entries' result as soon as their statement is done, before their ANALYZE and COMMIT (the
   * walk records the parse meanwhile); null when the statement failed. Never rejects.
   */
  written: Promise<ParseResult | null>;
  transactions: TransactionsTableResult;
  /**
   * ANALYZE of the transactions built ahead, started as soon as the step hands them over (see
   * `gatherAheadStatistics`); never rejects.
   */
  transactionsStatistics?: Promise<void>;
}

/**
 * The transactions built ahead are complete when the effective-date step ends, while the entries'
 * statement runs on alone (one core idle): their statistics are gathered then, not after the
 * entries (ANALYZE keeps them through the rename into place).
 */
export function gatherAheadStatistics(env: StepEnv, sourceId: string, ahead: AheadParse): AheadParse {
  const { transactionsAhead } = ingestionTables(sourceId);
  const transactionsStatistics = analyzeTables(env.app.pool, [transactionsAhead]).catch((error) =>
    env.app.logger.warn("ANALYZE of the transactions built ahead failed", { analysisSourceId: sourceId, error: String(error) }),
  );
  return { ...ahead, transactionsStatistics };
}

/**
 * ANALYZE_EFFECTIVE_DATES: daily summary and accounts in one pass, a first preview beside it.
 *
 * With `parseFollows` (the walk goes on to PARSING without stopping) the parse does not wait its
 * turn: the entries are parsed with the first selection on one connection while, on a second, the
 * same rows are grouped by transaction (the transactions table of that selection), which is then
 * rated, and on a third by day and by account (this step's own results). The step ends when its
 * own results (days, accounts, the rating) are in: the entries' statement, the longest of the
 * three, goes on beside the states that follow (their writes are the server's, one core idle) and
 * PARSE awaits it. When CHECK_INTEGRITY then chooses that selection (it rated GOOD, or was
 * proposed), PARSE only moves the tables into place. Building ahead never changes an outcome: if it
 * fails, or another selection is chosen, the parse runs as usual.
 */
export async function effectiveDatesStep(
  env: StepEnv,
  source: SourceRow,
  wantsPreview: boolean,
  parseFollows = false,
  { justMapped = false } = {},
): Promise<{ patch: Patch; preview: TransactionIdPreview | null; ahead: AheadParse | null }> {
  // Started as the mapping's outcome is known (`startEarly`), the staging table was just put in place or checked.
  if (!justMapped) source = await ensureStaged(env, source);
  const plan = planOf(source, env.definitions);
  const { staging, entriesAhead, transactionsAhead } = ingestionTables(source.id);
  const stage = stageOf(source);
  const selection = wantsPreview ? firstSelection(source, plan) : null;
  const aheadPossible = parseFollows && selection !== null && !needsWindow(selection) && signedAmountExpression(plan, false) !== null;
  // Passing through, the step's own groupings share the cores with the entries' statement.
  const expected = aheadPossible ? Math.max(expectedMs(stage, "effectiveDates"), expectedMs(stage, "transactions")) * 1.5 : expectedMs(stage, "effectiveDates");
  const report = forwardOnly(env.progress);
  const stop = estimatePhase(report, 0, 100, expected);
  try {
    if (!aheadPossible) {
      const analysis = await analyzeStagedData(env.app.pool, staging, plan, { selection });
      report(100);
      return { patch: { effectiveDates: analysis.effectiveDates, accounts: analysis.accounts }, preview: analysis.transactionIdPreview, ahead: null };
    }
    // Three scans of the staging table side by side, one connection each: the parse; the grouping by
    // transaction (the transactions table), followed by the rating of the selection from it; the
    // grouping by day and by account (this step's own results). The parse is started first: it is
    // the longest, and the only one the step does not wait for.
    const failed = (what: string) => (error: unknown) => env.app.logger.warn(`${what} failed; the parse will run in its turn`, { analysisSourceId: source.id, error: String(error) });
    // Its failure is handled at once (it may come while the step still awaits the groupings).
    // Analyzed in their own transaction, before its COMMIT (cheaper there, and the COMMIT's sync
    // drains meanwhile); their result is handed over (`written`) as soon as the statement ends.
    let wrote: (result: ParseResult | null) => void = () => undefined;
    const written = new Promise<ParseResult | null>((resolve) => (wrote = resolve));
    const entries: Promise<ParseResult | null> = parseEntries(env.app.pool, {
      staging,
      target: entriesAhead,
      plan,
      transactionIdSelection: selection,
      columnNames: stage.columns.map((c) => c.name),
      onWritten: wrote,
    }).catch((error) => {
      failed("parse ahead (entries)")(error);
      return null;
    });
    // Settles `written` when the statement failed (a later resolve is ignored).
    void entries.then(wrote);
    const built = await (async () => {
      try {
        // Their statistics are gathered once they are in place (parseStep), off this step's critical path.
        const transactions = buildTransactionsFromStaging(env.app.pool, { staging, target: transactionsAhead, plan, transactionIdSelection: selection, statisticsTarget: null });
        // The day grouping also finds the highest row_no, with which the rating finds its example rows
        // without the staging table's row index (whose build was a scan of its own, 0.2 CPU-s per
        // million rows, on these busy cores); without it (a failure) the rating builds the index.
        const days = summarizeStagedRows(env.app.pool, staging, plan, { lastRow: true });
        const lastRow = days.then(
          (summary) => summary.lastRow ?? null,
          () => null,
        );
        const rated = transactions.then(async (table) => ({
          table,
          preview: await previewFromTransactions(env.app.pool, { staging, transactions: transactionsAhead, plan, selection, lastRow }),
        }));
        // The groupings done: the rating that follows reads the transactions table, a tenth of the work.
        settleAll(transactions, days).then(() => report(90), () => undefined);
        const [{ table, preview }, summary] = await settleAll(rated, days);
        return { table, preview, summary };
      } catch (error) {
        failed("parse ahead")(error);
        // Nothing half-done left behind: the entries' statement ends (either way) before its table is dropped.
        await entries;
        await dropTables(env.app.pool, [entriesAhead, transactionsAhead]).catch(() => undefined);
        return null;
      }
    })();
    if (built) {
      report(100);
      const parsed = entries.then(async (result) => {
        if (result === null) await dropTables(env.app.pool, [entriesAhead]).catch(() => undefined);
        return result;
      });
      return { patch: { effectiveDates: built.summary.effectiveDates, accounts: built.summary.accounts }, preview: built.preview, ahead: { selection, entries: parsed, written, transactions: built.table } };
    }
    // Building ahead failed: the step as without it (a failure here is the step's own).
    const analysis = await analyzeStagedData(env.app.pool, staging, plan, { selection });
    report(100);
    return { patch: { effectiveDates: analysis.effectiveDates, accounts: analysis.accounts }, preview: analysis.transactionIdPreview, ahead: null };
  } finally {
    stop();
  }
}

/**
 * CHECK_INTEGRITY: the proposed selection alone (reusing a known preview), or the candidates in
 * order until one rates GOOD; the chosen one becomes `transactionIdSelection`.
 */
export async function integrityStep(
  env: StepEnv,
  source: SourceRow,
  known: TransactionIdPreview[],
): Promise<{ patch: Patch; previews: TransactionIdPreview[]; selection: TransactionIdSelection }> {
  source = await ensureStaged(env, source);
  const plan = planOf(source, env.definitions);
  const { staging } = ingestionTables(source.id);
  const proposed = source.proposedTransactionIdSelection;
  if (proposed) {
    const { selection, previews } = await selectAndPreview(env, source, plan, proposed, known);
    // Stored in full (the wire's four keys, defaults filled), as the candidates the engine offers.
    return { patch: { transactionIdSelection: normalizeSelection(selection) }, previews, selection };
  }
  const candidates = transactionIdCandidates(plan, summarizeColumns(fileInfoOf(source), source.virtualColumnData ?? []), stageOf(source).rowCount);
  // Defensive only: the engine always offers RUNNING_TOTAL last, so there is at least one candidate.
  if (candidates.length === 0) throw new JobError("No column or combination of columns can serve as transaction id; propose a transactionIdSelection", "NO_TRANSACTION_ID_CANDIDATE");
  const chosen = await chooseTransactionId(env.app.pool, staging, plan, candidates, known);
  const selection = candidates[chosen.selected];
  return { patch: { transactionIdSelection: selection }, previews: chosen.previews, selection };
}

/** A given selection: validated, then its stored preview reused or one generated. */
export async function selectAndPreview(env: StepEnv, source: SourceRow, plan: ParsePlan, selection: TransactionIdSelection, known: TransactionIdPreview[]) {
  const problems = selectionProblems(selection, fileInfoOf(source).columnData.length, appliedOf(source));
  if (problems.length > 0) throw new JobError(`The transaction id selection cannot be used: ${problems.join("; ")}`, "INVALID_TRANSACTION_ID_SELECTION");
  const existing = known.find((p) => sameSelection(p, selection));
  if (existing) return { selection, previews: [existing], reused: true };
  const { staging } = ingestionTables(source.id);
  const [preview] = await previewTransactionIds(env.app.pool, staging, plan, [selection]);
  return { selection, previews: [preview], reused: false };
}

/**
 * PARSE: the typed entries table; for sources that select transaction ids (journals) the
 * transactions table summarised from it; accounts from the effective-date pass, else discovered now.
 * Tables built ahead were written without statistics: `statistics` is their ANALYZE, started once
 * they are in place, which the walk awaits before it ends (it runs beside the parse's writes and
 * the states after it, where the cores are otherwise mostly idle).
 */
export async function parseStep(
  env: StepEnv,
  source: SourceRow,
  withTransactions: boolean,
  ahead: AheadParse | null = null,
): Promise<{ result: ParseResult; transactions: TransactionsTableResult | null; accounts: DiscoveredAccount[]; statistics?: Promise<void>; placed?: Promise<void> }> {
  const { staging, entries, transactions: transactionsTable, entriesAhead, transactionsAhead } = ingestionTables(source.id);
  const selection = source.transactionIdSelection;
  const usable = ahead && withTransactions && selection && sameSelection(ahead.selection, selection);
  if (usable) env.progress(0);
  // The entries built ahead are used from the end of their statement, their accounts known: their
  // ANALYZE and COMMIT, then the renames into place (`placed`), run while the walk records the
  // parse, which commits only once they are in place (`placed` rejects if the entries could not be
  // committed or moved: the walk then parses in its turn).
  const written = usable && ahead && source.accounts ? await ahead.written : null;
  if (usable && ahead && written && source.accounts) {
    const placed = ahead.entries.then(async (result) => {
      if (result === null) throw new Error("The entries built ahead could not be committed");
      await replaceTables(env.app.pool, [
        [entriesAhead, entries],
        [transactionsAhead, transactionsTable],
      ]);
      env.progress(100);
    });
    // Awaited by the walk (a rejection is its fallback), never left unhandled meanwhile.
    placed.catch(() => undefined);
    // The entries were analyzed in their own transaction (effectiveDatesStep), the transactions as
    // the step handed them over (gatherAheadStatistics); statistics follow the renames.
    return { result: { ...written, table: entries }, transactions: { ...ahead.transactions, table: transactionsTable }, accounts: source.accounts, statistics: ahead.transactionsStatistics, placed };
  }
  // The entries built ahead may still be being written: awaited, used or not (nothing is dropped
  // while its statement runs).
  const aheadResult = ahead ? await ahead.entries : null;
  if (usable && ahead && aheadResult) {
    await replaceTables(env.app.pool, [
      [entriesAhead, entries],
      [transactionsAhead, transactionsTable],
    ]);
    env.progress(100);
    // Statistics only speed up the queries that follow: a failure is logged, not the walk's.
    // The entries were analyzed in their own transaction (statistics follow the rename).
    const analyzed = ahead.transactionsStatistics
      ? undefined
      : analyzeTables(env.app.pool, [transactionsTable]).catch((error) => env.app.logger.warn("ANALYZE of the parsed tables failed", { analysisSourceId: source.id, error: String(error) }));
    const statistics = Promise.all([analyzed, ahead.transactionsStatistics]).then(() => undefined);
    const accounts = source.accounts ?? (await discoverAccounts(env.app.pool, entries));
    return { result: { ...aheadResult, table: entries }, transactions: { ...ahead.transactions, table: transactionsTable }, accounts, statistics };
  }
  // Tables built ahead for another selection (or that failed, or left by an interrupted walk) are not used.
  await ahead?.transactionsStatistics;
  await dropTables(env.app.pool, [entriesAhead, transactionsAhead]);
  source = await ensureStaged(env, source);
  const plan = planOf(source, env.definitions);
  const stage = stageOf(source);
  const parse = () => parseEntries(env.app.pool, { staging, target: entries, plan, transactionIdSelection: selection, columnNames: stage.columns.map((c) => c.name) });
  const summarised = withTransactions && signedAmountExpression(plan, false) !== null;
  // Transactions are summarised from the staging table beside the parse, on a second connection,
  // unless their ids come from running totals (numbered by the parse itself): then after it, from
  // the entries. Progress is estimated over the whole step, milestones at its end.
  const beside = summarised && !(selection && needsWindow(selection));
  const parseMs = expectedMs(stage, "parse");
  const transactionsMs = summarised ? expectedMs(stage, "transactions") : 0;
  const expected = beside ? Math.max(parseMs, transactionsMs) * 1.2 : parseMs + transactionsMs;
  // The two statements end in either order: what is reported never goes back.
  const report = forwardOnly(env.progress);
  const stop = estimatePhase(report, 0, 100, expected);
  try {
    let result: ParseResult;
    let transactions: TransactionsTableResult | null = null;
    if (beside) {
      // The first of the two done is a milestone: its share of the expected work.
      const milestone = (ms: number) => () => report(Math.round((100 * ms) / (parseMs + transactionsMs)));
      [result, transactions] = await settleAll(
        parse().finally(milestone(parseMs)),
        buildTransactionsFromStaging(env.app.pool, { staging, target: transactionsTable, plan, transactionIdSelection: selection }).finally(milestone(transactionsMs)),
      );
    } else {
      result = await parse();
      if (summarised && hasTransactions(result.columns)) transactions = await buildTransactionsTable(env.app.pool, { entries, target: transactionsTable, columns: result.columns });
    }
    report(100);
    const mapsAccount = plan.fields.some((f) => f.platformField === "account");
    const accounts = source.accounts ?? (mapsAccount ? await discoverAccounts(env.app.pool, entries) : []);
    return { result, transactions, accounts };
  } finally {
    stop();
  }
}

/** A progress reporter that starts at 0 and ignores anything below what it already reported. */
function forwardOnly(progress: (percent: number) => void): (percent: number) => void {
  let reported = -1;
  return (percent) => {
    if (percent <= reported) return;
    reported = percent;
    progress(percent);
  };
}

/** Both results, or the first failure once neither statement is still running (no half-done step left behind). */
async function settleAll<A, B>(a: Promise<A>, b: Promise<B>): Promise<[A, B]> {
  const [x, y] = await Promise.allSettled([a, b]);
  if (x.status === "rejected") throw x.reason;
  if (y.status === "rejected") throw y.reason;
  return [x.value, y.value];
}

export type { EffectiveDateSummary };
