import type pg from "pg";
import type { App } from "../../app-types.js";
import { createAudit, touchAudit, type Actor } from "../../entity/index.js";
import { inTransaction, type Emit, type Tx } from "../../events/outbox.js";
import {
  dropTables,
  entriesTableCreated,
  entriesTableDropped,
  ingestionTables,
  nextStep,
  stateDefinition,
  workflowPath,
  type MoveInput,
  type TabularFileInfo,
  type TransactionIdPreview,
  type WorkflowState,
} from "../../ingestion/index.js";
import { defineJob, JobError, type JobStarter } from "../../jobs/index.js";
import { inferDiscoveredAccounts, recordDiscoveredAccounts } from "../account-mappings/account-mapping.service.js";
import { saveSourceFileInfo } from "../file-infos/file-info.service.js";
import { publishSourceProgress, walkProgress } from "./analysis-source.progress.js";
import { sourceMessage, type SourceMessage } from "./analysis-source.messages.js";
import { sourceTypeOf } from "./analysis-source.source-types.js";
import {
  detectStep,
  effectiveDatesStep,
  gatherAheadStatistics,
  integrityStep,
  mappingStep,
  parseStep,
  planOf,
  selectAndPreview,
  stageStep,
  type Patch,
  type AheadParse,
  type SourceRow,
  type StepEnv,
} from "./analysis-source.steps.js";

export interface IngestionPayload {
  analysisSourceId: string;
  /** The request's targetWorkflowState (null: stay at, or stop at the first, Step). */
  target: WorkflowState | null;
  /** The proposed mapping changed while resting at DATA_VALIDATION_CONFIRMED: apply it again. */
  reapplyMappings?: boolean;
  /** transactionIdSelection changed while resting at INTEGRITY_CHECKED (spec 3.2). */
  selectionChanged?: boolean;
}

function actorOfStarter(startedBy: JobStarter): Actor {
  return { userId: startedBy.userId, userName: startedBy.userName };
}

/** Webhook data keys of the wire reference (the cause of a failure is in the source's `errors`). */
function ingestionEvent(type: "ingestion.complete" | "ingestion.failed", source: Pick<SourceRow, "id" | "analysisId" | "engagementId">, userId: string) {
  return { type, entityType: "ANALYSIS_SOURCE", entityId: source.id, userId, payload: { analysisId: source.analysisId, analysisSourceId: source.id, engagementId: source.engagementId } };
}

/**
 * Writes a step's outputs; every save of the source increments its version. Given the app rather
 * than a transaction, a save that carries a new file info opens its own (the two rows together).
 */
async function save(db: Tx | App, id: string, patch: Patch, actor: Actor): Promise<SourceRow> {
  const update = (client: Tx | App["prisma"], extra: Patch = {}) =>
    client.analysisSource.update({ where: { id }, data: { ...patch, ...extra, ...touchAudit(actor), version: { increment: 1 } } });
  const app = "relay" in db ? db : null;
  if (!patch.fileInfo) return update(app ? app.prisma : (db as Tx));
  const withFileInfo = async (client: Tx) => {
    const source = await client.analysisSource.findUniqueOrThrow({ where: { id }, select: { id: true, fileManagerFileId: true } });
    // A step writes a reading of the file here, never a JSON null.
    const info = patch.fileInfo as TabularFileInfo;
    const ownId = await saveSourceFileInfo(client, source, info, actor);
    return update(client, { fileInfoVersions: await fileInfoVersionsOf(client, source.fileManagerFileId, ownId, Boolean(info.degrouped)) });
  };
  return app ? inTransaction(app, withFileInfo) : withFileInfo(db as Tx);
}

/**
 * wire reference 8: {file version: file info id}. The source's own reading is ORIGINAL, or
 * DEGROUPED when the degrouper flattened the file; then ORIGINAL is the imported file's own info.
 */
async function fileInfoVersionsOf(tx: Tx, fileManagerFileId: string, ownId: string, degrouped: boolean): Promise<Record<string, string>> {
  if (!degrouped) return { ORIGINAL: ownId };
  const file = await tx.fileManagerEntity.findUnique({ where: { id: fileManagerFileId }, select: { fileInfoId: true } });
  return file?.fileInfoId ? { ORIGINAL: file.fileInfoId, DEGROUPED: ownId } : { DEGROUPED: ownId };
}

/** Previews are entities: replaced when CHECKING_INTEGRITY runs again, added when a new selection needs one. */
async function storePreviews(tx: Tx, source: SourceRow, previews: TransactionIdPreview[], actor: Actor, replace: boolean): Promise<void> {
  if (replace) await tx.transactionIdPreview.deleteMany({ where: { analysisSourceId: source.id } });
  if (previews.length === 0) return;
  await tx.transactionIdPreview.createMany({
    data: previews.map((p) => ({
      ...createAudit(actor),
      engagementId: source.engagementId,
      analysisId: source.analysisId,
      analysisSourceId: source.id,
      type: p.type,
      columnSelection: p.columnSelection,
      virtualColumnSelection: p.virtualColumnSelection,
      smartSplitter: p.smartSplitter,
      overallRating: p.overallRating,
      indicators: p.indicators,
      entryPreviews: p.entryPreviews,
    })),
  });
}

async function knownPreviews(app: App, sourceId: string): Promise<TransactionIdPreview[]> {
  const rows = await app.prisma.transactionIdPreview.findMany({ where: { analysisSourceId: sourceId }, orderBy: { creationDate: "asc" } });
  return rows.map((r) => ({
    type: r.type as TransactionIdPreview["type"],
    columnSelection: r.columnSelection,
    virtualColumnSelection: r.virtualColumnSelection,
    smartSplitter: r.smartSplitter,
    overallRating: r.overallRating as TransactionIdPreview["overallRating"],
    indicators: r.indicators,
    entryPreviews: r.entryPreviews,
  }));
}

/** Drops the source's entries table from data tables (in `tx`) when it had one. */
export async function announceEntriesDropped(tx: Tx, emit: Emit, actor: Actor, source: Pick<SourceRow, "id" | "analysisId" | "parse">): Promise<void> {
  if (source.parse) await entriesTableDropped(tx, emit, actor, { analysisId: source.analysisId, analysisSourceId: source.id });
}

/**
 * One walk of the workflow (spec 3.2) as a job: from where the source rests to where the planner
 * says to stop, running each entered state's engine step. Every state entered is saved, so a job
 * resumed after a crash starts again from the last Transition (its step is idempotent).
 */
export const ingestionJob = defineJob<IngestionPayload>({
  name: "analysis-sources.ingestion",
  type: "ANALYSIS_SOURCE_INGESTION",
  retry: { attempts: 2, backoffSeconds: 2 },
  async run(ctx, payload) {
    const app = ctx.app;
    const actor = actorOfStarter(ctx.startedBy);
    let source = await app.prisma.analysisSource.findUnique({ where: { id: payload.analysisSourceId } });
    if (!source) throw new JobError(`Analysis source ${payload.analysisSourceId} was deleted`, "SOURCE_DELETED");
    const type = await sourceTypeOf(app, source.analysisSourceTypeId);
    if (!type) throw new JobError(`Analysis source type ${source.analysisSourceTypeId} does not exist`, "UNKNOWN_SOURCE_TYPE");
    const current = source.workflowState as WorkflowState;
    if (current === "COMPLETED" || current === "FAILED") return;

    const path = workflowPath(type.features);
    const progress = walkProgress(app, source, path, (percent, message) => ctx.progress(percent, message), () => source!.version);
    const env: StepEnv = { app, actor, definitions: type.definitions, progress: (p) => progress.within(p) };

    const move: MoveInput = {
      features: type.features,
      current,
      target: payload.target,
      applyDegrouper: source.applyDegrouper,
      groupedFormatDetected: source.detection ? source.detectedFormat !== null : undefined,
    };

    // The in-place changes of spec 3.2 at the Step the source rests in (before moving on, if asked).
    if (payload.reapplyMappings && current === "DATA_VALIDATION_CONFIRMED") source = await save(app, source.id, await mappingStep(env, source), actor);
    if (payload.selectionChanged && current === "INTEGRITY_CHECKED") await inTransaction(app, (tx) => reselect(env, tx, source!, actor));
    if (stateDefinition(current).kind === "Step" && (!payload.target || payload.target === current)) {
      await ctx.finish(async () => undefined);
      progress.reached(current);
      return;
    }

    // A Transition interrupted by a crash runs again: resume from the state before it.
    let from: WorkflowState = current;
    if (stateDefinition(current).kind === "Transition" && current !== "STARTED") from = path[path.indexOf(current) - 1];

    let pendingPreview: TransactionIdPreview | null = null;
    let ahead: AheadParse | null = null;
    // The effective-date step started while the states before it were still being written.
    let early: EarlyStep | null = null;
    // The mapping applied (and the effective-date step started) as soon as the file is staged.
    let premapped: Promise<Premapped | null> | null = null;
    // ANALYZE of tables the parse put in place, still running (never rejects).
    let statistics: Promise<void> | undefined;
    try {
      for (;;) {
        // Stopping or lease lost: throw, so the runtime hands the job back instead of completing it.
        ctx.signal.throwIfAborted();
        const decision = nextStep(move, from);
        if (!decision) break;
        const { state, stop } = decision;
        const kind = stateDefinition(state).kind;
        if (kind === "Transition") source = await save(app, source.id, { workflowState: state }, actor);
        progress.entered(state);
        const stepStarted = performance.now();

        let patch: Patch = {};
        switch (stateDefinition(state).job) {
          case "DETECT_FORMAT":
            patch = await detectStep(env, source);
            move.groupedFormatDetected = patch.detectedFormat != null;
            break;
          case "PREPARE_FILE": {
            patch = await stageStep(env, source, source.applyDegrouper && source.detectedFormat !== null);
            const mapping = reachedWithoutStop(move, state, "APPLY_COLUMN_MAPPINGS");
            const analysis = mapping && reachedWithoutStop(move, mapping, "ANALYZE_EFFECTIVE_DATES");
            if (analysis) {
              premapped = premap(env, { ...source, ...storedForm(patch) }, type.features.includes("TRANSACTION_ID_SELECTION"), walksThroughParse(move, analysis));
              // The server's writes that follow (the file info, twice) keep the main thread busy for
              // a tenth of a second: the step's statements are sent first.
              await (await premapped)?.launched;
            }
            break;
          }
          case "APPLY_COLUMN_MAPPINGS": {
            const ready = premapped && (await premapped);
            premapped = null;
            if (ready && mappingInputs(source) === ready.inputs) {
              patch = ready.patch;
              early = ready.early;
              break;
            }
            if (ready) await ready.early.discard(source.id);
            patch = await mappingStep(env, source);
            const analysis = reachedWithoutStop(move, state, "ANALYZE_EFFECTIVE_DATES");
            if (analysis) early = startEarly(env, { ...source, ...storedForm(patch) }, type.features.includes("TRANSACTION_ID_SELECTION"), walksThroughParse(move, analysis));
            break;
          }
          case "ANALYZE_EFFECTIVE_DATES": {
            const wantsPreview = type.features.includes("TRANSACTION_ID_SELECTION");
            const started = early;
            early = null;
            const result = (started && (await started.take(source, env))) ?? (await effectiveDatesStep(env, source, wantsPreview, walksThroughParse(move, state)));
            patch = result.patch;
            pendingPreview = result.preview;
            ahead = result.ahead && gatherAheadStatistics(env, source.id, result.ahead);
            break;
          }
          case "CHECK_INTEGRITY": {
            const result = await integrityStep(env, source, pendingPreview ? [pendingPreview] : []);
            patch = result.patch;
            const previews = result.previews;
            source = await inTransaction(app, async (tx) => {
              await storePreviews(tx, source!, previews, actor, true);
              return save(tx, source!.id, patch, actor);
            });
            patch = {};
            break;
          }
          case "PARSE": {
            const parseStarted = performance.now();
            // The accounts found by the effective-date step are known already: their mappings are
            // inferred while the entries built ahead are still being written (never rejects).
            const known: SourceRow["accounts"] = source.accounts;
            const early = ahead && known && known.length > 0 ? inferDiscoveredAccounts(app.prisma, source.engagementId, known).catch(() => undefined) : undefined;
            const withTransactions = type.features.includes("TRANSACTION_ID_SELECTION");
            const built = ahead;
            let parsed = await parseStep(env, source, withTransactions, ahead);
            ahead = null;
            const before: SourceRow = source;
            const measure = (step: typeof parsed) => {
              app.metrics.ingestionRows.inc({ stage: "parsed" }, step.result.rowCount);
              app.metrics.ingestionRowsPerSecond.set({ stage: "parsed" }, step.result.rowCount / Math.max(0.001, (performance.now() - parseStarted) / 1000));
            };
            // The parse's records (in `tx`): the source's parse result, the account mappings, the data tables.
            const record = async (tx: Tx, emit: Emit, step: typeof parsed, inferred: Awaited<ReturnType<typeof inferDiscoveredAccounts>> | undefined): Promise<SourceRow> => {
              const { result, transactions, accounts } = step;
              await announceEntriesDropped(tx, emit, actor, before);
              const saved = await save(tx, before.id, { parse: { rowCount: result.rowCount, columns: result.columns, unparseable: result.unparseable }, warnings: parseWarnings(result.unparseable) }, actor);
              if (accounts.length > 0) await recordDiscoveredAccounts(tx, emit, actor, { engagementId: before.engagementId, analysisSourceId: before.id, accounts, inferred });
              await entriesTableCreated(tx, emit, actor, {
                analysisId: before.analysisId,
                analysisSourceId: before.id,
                analysisSourceTypeId: before.analysisSourceTypeId,
                engagementId: before.engagementId,
                table: ingestionTables(before.id).entries,
                columns: result.columns,
                rowCount: result.rowCount,
                transactions: transactions && { table: transactions.table, columns: transactions.columns, rowCount: transactions.rowCount },
              });
              return saved;
            };
            // Inferred before the transaction that records the parse: it holds that transaction no longer.
            const inferredOf = async (step: typeof parsed) =>
              step.accounts.length > 0 ? ((step.accounts === known ? await early : undefined) ?? (await inferDiscoveredAccounts(app.prisma, before.engagementId, step.accounts))) : undefined;
            const rest = parsed.placed ? statesToStop(move, state) : null;
            if (parsed.placed && rest) {
              // The entries built ahead are still being analyzed and committed: the parse's records
              // and every state up to where the walk stops are written meanwhile, in the job's
              // finish, which commits once the tables are in place with their statistics. Each
              // state is saved as the walk saves it (the source's versions are the same), and its
              // progress events are published in order once committed.
              const placed = parsed.placed;
              const ready = Promise.all([placed, parsed.statistics]);
              const inferred = await inferredOf(parsed);
              const step = parsed;
              try {
                const rows: SourceRow[] = await ctx.finish(
                  async (tx, emit) => {
                    const saves: SourceRow[] = [await record(tx, emit, step, inferred)];
                    for (const next of rest) {
                      const patch = next.stop ? { workflowState: next.state, errors: [] } : { workflowState: next.state };
                      const saved = await save(tx, before.id, patch, actor);
                      if (next.stop && next.state === "COMPLETED") emit(ingestionEvent("ingestion.complete", saved, actor.userId));
                      saves.push(saved);
                    }
                    return saves;
                  },
                  { commitAfter: ready },
                );
                measure(step);
                // The events as the walk publishes them: a Step's entry with the version before
                // its save, a Transition's after it, the stop's end once committed.
                source = rows[0];
                for (const [i, next] of rest.entries()) {
                  if (stateDefinition(next.state).kind === "Transition") source = rows[i + 1];
                  progress.entered(next.state);
                  source = rows[i + 1];
                  if (next.stop) progress.reached(next.state);
                }
                app.logger.debug("analysis source step", { analysisSourceId: source.id, state, ms: Math.round(performance.now() - stepStarted) });
                return;
              } catch (error) {
                // The entries built ahead could not be committed or put in place: nothing was
                // recorded (the finish rolled back); the parse runs in its turn, as when their
                // statement failed. Anything else is the walk's failure.
                const failed = await placed.then(
                  () => false,
                  () => true,
                );
                if (!failed || !built) throw error;
                app.logger.warn("the entries built ahead could not be put in place; the parse will run in its turn", { analysisSourceId: before.id, error: String(error) });
                parsed = await parseStep(env, before, withTransactions, { ...built, entries: Promise.resolve(null), written: Promise.resolve(null) });
              }
            } else if (parsed.placed) {
              // Not expected (PARSE is followed by states without work); placed before recording.
              await parsed.placed;
            }
            statistics = parsed.statistics;
            measure(parsed);
            const inferred = await inferredOf(parsed);
            const step = parsed;
            source = await inTransaction(app, (tx, emit): Promise<SourceRow> => record(tx, emit, step, inferred));
            break;
          }
          default:
            break;
        }
        app.logger.debug("analysis source step", { analysisSourceId: source.id, state, ms: Math.round(performance.now() - stepStarted) });
        if (stop) {
          // The parsed tables have their statistics when the source rests (queries follow at once):
          // its last writes are made while the ANALYZE runs, and commit once it is done.
          const finalPatch = { ...patch, workflowState: state, errors: [] };
          source = await ctx.finish(
            async (tx, emit) => {
              const saved = await save(tx, source!.id, finalPatch, actor);
              if (state === "COMPLETED") emit(ingestionEvent("ingestion.complete", saved, actor.userId));
              return saved;
            },
            { commitAfter: statistics },
          );
          progress.reached(state);
          return;
        }
        if (Object.keys(patch).length > 0 || kind === "Step") source = await save(app, source.id, { ...patch, workflowState: state }, actor);
        from = state;
      }
    } finally {
      // An effective-date step started early that the walk did not reach: its statements end
      // before the walk does, and what they built ahead is dropped.
      const unreached = early as EarlyStep | null;
      if (unreached) await unreached.discard(source.id);
      const unmapped = await (premapped as Promise<Premapped | null> | null);
      if (unmapped) await unmapped.early.discard(source.id);
      // Entries still being built ahead when the walk ends short of PARSE (a failure, a lost lease):
      // their statement ends before the walk does, and what was built ahead is dropped.
      const unused = ahead as AheadParse | null;
      if (unused) {
        await unused.entries;
        await unused.transactionsStatistics;
        const { entriesAhead, transactionsAhead } = ingestionTables(source.id);
        await dropTables(app.pool, [entriesAhead, transactionsAhead]).catch(() => undefined);
      }
    }
  },
  async onFailure(ctx, payload, error, code) {
    const actor = actorOfStarter(ctx.startedBy);
    const source = await ctx.app.prisma.analysisSource.findUnique({ where: { id: payload.analysisSourceId } });
    if (!source) return;
    const failed = await inTransaction(ctx.app, async (tx, emit) => {
      const saved = await save(tx, source.id, { workflowState: "FAILED", errors: [sourceMessage(code, error)] }, actor);
      emit(ingestionEvent("ingestion.failed", source, actor.userId));
      return saved;
    });
    publishSourceProgress(ctx.app, { analysisSourceId: source.id, analysisId: source.analysisId, engagementId: source.engagementId, workflowState: "FAILED", percent: 100, stepPercent: null, message: error, sourceVersion: failed.version });
  },
});

/**
 * The states the walk enters after `state` up to where it stops (the stop last), when none of them
 * runs a step's work; otherwise null.
 */
function statesToStop(move: MoveInput, state: WorkflowState): { state: WorkflowState; stop: boolean }[] | null {
  const states: { state: WorkflowState; stop: boolean }[] = [];
  for (let at = state; ; ) {
    const next = nextStep(move, at);
    if (!next || stateDefinition(next.state).job !== "NONE") return null;
    states.push(next);
    if (next.stop) return states;
    at = next.state;
  }
}

/**
 * The state with `job` the walk enters after `state` without resting before it (it may rest in
 * that state itself), or null.
 */
function reachedWithoutStop(move: MoveInput, state: WorkflowState, job: string): WorkflowState | null {
  for (let at = state; ; ) {
    const next = nextStep(move, at);
    if (!next) return null;
    if (stateDefinition(next.state).job === job) return next.state;
    if (next.stop) return null;
    at = next.state;
  }
}

/** A step's outputs as the saved row holds them (JSON columns read back as written). */
function storedForm(patch: Patch): Partial<SourceRow> {
  return JSON.parse(JSON.stringify(patch)) as Partial<SourceRow>;
}

/** What the effective-date step reads from the row (keys sorted: JSONB reorders them). */
function stepInputs(source: SourceRow): string {
  const { fileInfo, columnMappings, virtualColumns, ambiguousColumnResolutions, virtualColumnData, stage, proposedTransactionIdSelection } = source;
  return sortedJson({ fileInfo, columnMappings, virtualColumns, ambiguousColumnResolutions, virtualColumnData, stage, proposedTransactionIdSelection });
}

function sortedJson(value: unknown): string {
  const sorted = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(sorted) : v && typeof v === "object" ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted((v as Record<string, unknown>)[k])])) : v;
  return JSON.stringify(sorted(value));
}

type EffectiveDatesResult = Awaited<ReturnType<typeof effectiveDatesStep>>;

interface EarlyStep {
  /**
   * The step's result once the walk enters its state, its progress from then on reported there;
   * null (and nothing left behind) when the saved source plans other statements than it ran.
   */
  take(saved: SourceRow, env: StepEnv): Promise<EffectiveDatesResult | null>;
  /** Waits for the step and drops what it built ahead (the walk ended before its state). */
  discard(sourceId: string): Promise<void>;
  /** Resolves when the step's own work has ended, either way. */
  settled: Promise<unknown>;
}

/**
 * ANALYZE_EFFECTIVE_DATES started as soon as the mapping is applied, from the source as it will be
 * saved: its statements run while the server writes the states before it (DATA_VALIDATION_CONFIRMED
 * with the file info, COLUMN_MAPPINGS_CONFIRMED, ANALYZING_EFFECTIVE_DATE_METRICS), when a core is
 * otherwise idle. Its progress is held back until the walk enters its state, so every state and
 * its progress events come as before; its result (or failure) is the step's when the walk gets there.
 */
function startEarly(env: StepEnv, expected: SourceRow, wantsPreview: boolean, parseFollows: boolean): EarlyStep {
  let forward: ((percent: number) => void) | null = null;
  let last: number | null = null;
  const held: StepEnv = {
    ...env,
    progress: (percent) => {
      if (forward) forward(percent);
      else last = percent;
    },
  };
  // Started where the mapping has just placed (`premap`) or checked (`mappingStep`) the staging
  // table: the statements go first, without the step's own look at it (two round trips) before them.
  const running = effectiveDatesStep(held, expected, wantsPreview, parseFollows, { justMapped: true });
  running.catch(() => undefined);
  const dropAhead = async (sourceId: string) => {
    const result = await running.catch(() => null);
    if (!result?.ahead) return;
    await result.ahead.entries;
    const { entriesAhead, transactionsAhead } = ingestionTables(sourceId);
    await dropTables(env.app.pool, [entriesAhead, transactionsAhead]).catch(() => undefined);
  };
  return {
    async take(saved, stepEnv) {
      // Defensive: the statements were planned from the patch; the saved row must plan the same.
      if (stepInputs(saved) !== stepInputs(expected)) {
        await dropAhead(saved.id);
        return null;
      }
      // The state's first figure is its start, whatever the step reached while it was held (started
      // at PREPARE_FILE, it may be well on when its state is entered); then where it is.
      forward = stepEnv.progress;
      forward(0);
      if (last !== null && last > 0) forward(last);
      return running;
    },
    discard: dropAhead,
    settled: running.catch(() => undefined),
  };
}

/** What the mapping step reads from the row (keys sorted, as in `stepInputs`). */
function mappingInputs(source: SourceRow): string {
  const { fileInfo, stage, proposedColumnMappings, proposedVirtualColumns, proposedAmbiguousColumnResolutions, virtualColumns } = source;
  return sortedJson({ fileInfo, stage, proposedColumnMappings, proposedVirtualColumns, proposedAmbiguousColumnResolutions, virtualColumns });
}

interface Premapped {
  /** `mappingInputs` of the row the mapping was applied to. */
  inputs: string;
  patch: Patch;
  early: EarlyStep;
  /** Resolves once the early step holds its connections (its statements are on their way), or has ended. */
  launched: Promise<unknown>;
}

/**
 * APPLY_COLUMN_MAPPINGS as soon as PREPARE_FILE staged the file, from the source as it will be
 * saved, and ANALYZE_EFFECTIVE_DATES started from its outcome: the step's statements begin while
 * the server still writes the file info and the states up to the mapping (about a tenth of a
 * second on one core, the other idle). The mapping's patch is the step's when the walk enters its
 * state with the same inputs; otherwise (or when applying it failed here: the failure is the
 * step's own, in its state) the step runs there as before and the early statements are dropped.
 */
async function premap(env: StepEnv, staged: SourceRow, wantsPreview: boolean, parseFollows: boolean): Promise<Premapped | null> {
  // Run before the walk enters the mapping's state: nothing it reports may show as progress of the current one.
  const quiet: StepEnv = { ...env, progress: () => undefined };
  const patch = await mappingStep(quiet, staged, { justStaged: true }).catch(() => null);
  if (!patch) return null;
  const { pool, connected } = watchConnects(env.app.pool);
  const early = startEarly({ ...env, app: { ...env.app, pool } }, { ...staged, ...storedForm(patch) }, wantsPreview, parseFollows);
  return { inputs: mappingInputs(staged), patch, early, launched: Promise.race([connected, early.settled]) };
}

/**
 * The pool as is, and a promise that resolves once the step's statements are on their way: the
 * first statement after the BEGIN (and its prelude) on each of the three connections of a step
 * building ahead (they then start side by side, sharing their scans of the staging table), or 50
 * ms after the first connection when it takes fewer. Resolving when the connections were handed
 * left their BEGIN and settings waiting behind the walk's file info writes (up to 34 ms of main
 * thread before the statements were sent, traced).
 */
function watchConnects(real: pg.Pool): { pool: pg.Pool; connected: Promise<void> } {
  let resolve!: () => void;
  const connected = new Promise<void>((r) => (resolve = r));
  let handed = 0;
  let sent = 0;
  // Watches the connection's queries until its first statement past the BEGIN, then lets it be.
  const watch = (client: pg.PoolClient) => {
    const own = Object.prototype.hasOwnProperty.call(client, "query");
    if (own) return; // already watched (or patched by someone else): leave it alone
    const query = client.query;
    client.query = function (this: pg.PoolClient, ...args: unknown[]) {
      const text = typeof args[0] === "string" ? args[0] : ((args[0] as { text?: string } | undefined)?.text ?? "");
      if (!text.startsWith("BEGIN")) {
        delete (client as { query?: unknown }).query;
        if (++sent >= 3) resolve();
      }
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof client.query;
  };
  const counted = () => {
    handed++;
    if (handed === 1) setTimeout(resolve, 50).unref();
  };
  const pool = new Proxy(real, {
    get(target, key) {
      if (key === "connect") {
        return (...args: unknown[]) => {
          const taken = (target.connect as (...a: unknown[]) => unknown)(...args);
          if (taken instanceof Promise) {
            void taken
              .then((client) => client && watch(client as pg.PoolClient))
              .finally(counted)
              .catch(() => undefined);
          } else counted();
          return taken;
        };
      }
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { pool, connected };
}

/** Whether the walk, from `state`, reaches PARSING without resting in a Step before it. */
function walksThroughParse(move: MoveInput, state: WorkflowState): boolean {
  for (let at = state; ; ) {
    const next = nextStep(move, at);
    if (!next) return false;
    if (stateDefinition(next.state).job === "PARSE") return true;
    if (next.stop) return false;
    at = next.state;
  }
}

/**
 * Values the parse could not read (they are NULL in the entries): the analysis is not ready until
 * the user accepts them with `warningsIgnored` (analysis status SOURCE_WARNINGS_PRESENT).
 */
export function parseWarnings(unparseable: Record<string, number>): SourceMessage[] {
  return Object.entries(unparseable)
    .filter(([, count]) => count > 0)
    .map(([field, count]) =>
      sourceMessage("UNPARSEABLE_VALUES", `${count} value${count === 1 ? "" : "s"} of ${field} could not be read and ${count === 1 ? "is" : "are"} empty in the entries`),
    );
}

/** INTEGRITY_CHECKED with a changed selection: a stored preview with the same properties, else a new one. */
async function reselect(env: StepEnv, tx: Tx, source: SourceRow, actor: Actor): Promise<void> {
  const selection = source.transactionIdSelection;
  if (!selection) throw new JobError("transactionIdSelection is missing", "INVALID_TRANSACTION_ID_SELECTION");
  const known = await knownPreviews(env.app, source.id);
  const { previews, reused } = await selectAndPreview(env, source, planOf(source, env.definitions), selection, known);
  if (!reused) await storePreviews(tx, source, previews, actor, false);
}
