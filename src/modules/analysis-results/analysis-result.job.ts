import type { App } from "../../app-types.js";
import { touchAudit } from "../../entity/index.js";
import { dropResultTables, dropWorkTablesStatement, engineSteps, planRun, publication, resultTableShapes, runSteps, survivingSteps } from "../../engine/index.js";
import { inTransaction, type Emit } from "../../events/outbox.js";
import { defineJob, JobError, type JobStarter } from "../../jobs/index.js";
import { publishResultTables } from "../data-tables/data-table.service.js";
import type { DataTableColumn } from "../data-tables/data-table-definition.js";
import { ResultIndexer } from "./analysis-result.indexes.js";
import { publishRunProgress, runProgress } from "./analysis-result.progress.js";
import { accountsOf } from "./analysis-result.spec.js";

export interface RunPayload {
  analysisResultId: string;
}


/** Webhook data keys of the wire reference (section 7): analysisId, analysisResultId, engagementId. */
export function emitRunEvent(emit: Emit, type: "analysis.complete" | "analysis.failed", result: { id: string; analysisId: string; engagementId: string }, userId: string | null) {
  emit({ type, entityType: "ANALYSIS", entityId: result.analysisId, userId, payload: { analysisId: result.analysisId, analysisResultId: result.id, engagementId: result.engagementId } });
}

const actorOf = (startedBy: JobStarter) => ({ userId: startedBy.userId, userName: startedBy.userName });

/**
 * ANALYSIS_RUN: the engine's steps, each once the steps it reads are done (runSteps; each
 * idempotent; the ones an interrupted attempt finished are recorded in `steps_done` and skipped), then, in the transaction that
 * completes the job, the result's data tables, its summary, the analysis's latest result, the
 * `analysis.complete` event and the drop of its working tables. A run that fails leaves the
 * analysis's previous result as it was: the new result is marked FAILED, its tables dropped,
 * `analysis.failed` emitted.
 */
export const analysisRunJob = defineJob<RunPayload>({
  name: "analysis-results.run",
  type: "ANALYSIS_RUN",
  retry: { attempts: 2, backoffSeconds: 5 },
  async run(ctx, { analysisResultId }) {
    const app = ctx.app;
    const result = await app.prisma.analysisResult.findUnique({ where: { id: analysisResultId } });
    if (!result) throw new JobError(`Analysis result ${analysisResultId} was deleted before its run finished`);
    if (!result.spec) throw new JobError(`Analysis result ${analysisResultId} has no engine specification`);
    app.logger.debug("analysis run step", { analysisResultId, step: "pickup", ms: Date.now() - result.creationDate.getTime() });
    const stored = result.spec;
    // The accounts are not stored with the result (its accounts table keeps them once prepared).
    const spec = result.stepsDone.includes("prepare") ? stored : { ...stored, accounts: await accountsOf(app, result.engagementId, [...stored.sources, ...stored.partyLists, ...stored.openingBalances].map((s) => s.id)) };
    const plan = planRun(spec);
    if (plan.spec.sources.length === 0) throw new JobError("The analysis has no completed source of the entries its analysis type scores");
    const steps = engineSteps(plan);
    // After a crash of PostgreSQL the unlogged work tables are empty: recompute from the first step that wrote one.
    const stepsDone = await survivingSteps(app.pool, plan, steps, result.stepsDone);
    if (stepsDone.length !== result.stepsDone.length) {
      app.logger.warn("analysis run: PostgreSQL restarted after a crash and emptied the run's work tables; recomputing", { analysisResultId, from: steps.find((s) => !stepsDone.includes(s.name))?.name });
      await app.pool.query("UPDATE analysis_result SET steps_done = $2 WHERE id = $1", [analysisResultId, stepsDone]);
    }
    // The steps up to the base entries read the sources' tables: a source deleted meanwhile fails the run at once.
    if (!stepsDone.includes("entries")) {
      for (const source of [...spec.sources, ...spec.partyLists, ...spec.openingBalances, ...(spec.openItems ?? []), ...(spec.closingItems ?? [])]) {
        const { rows } = await app.pool.query<{ ok: boolean }>("SELECT to_regclass($1) IS NOT NULL AS ok", [source.entries]);
        if (!rows[0].ok) throw new JobError(`The entries of analysis source ${source.id} are gone (the source was deleted or is being parsed again); run the analysis again`);
      }
    }
    const ids = { analysisResultId, analysisId: result.analysisId };
    const progress = runProgress(app, plan, steps, ids, stepsDone, (percent, message) => ctx.progress(percent, message));
    // Each published table is indexed as soon as the step writing it is done, beside the later steps.
    const indexer = new ResultIndexer(app.pool, ctx.signal);
    const indexAfter = async (done: readonly string[]) => {
      for (const shape of await resultTableShapes(app.pool, plan)) if (done.includes(shape.after)) indexer.add(shape.table, shape.columns as DataTableColumn[]);
    };
    let published: Awaited<ReturnType<typeof publication>>;
    try {
      await indexAfter(stepsDone);
      // Each step once the steps it reads are done: the typeahead tables beside the transactions.
      await runSteps(steps, stepsDone, async (step) => {
        ctx.signal.throwIfAborted();
        progress.started(step);
        const started = performance.now();
        await step.run({ pool: app.pool, plan, signal: ctx.signal, pointsDone: (names) => progress.points(step, names) });
        await app.pool.query("UPDATE analysis_result SET steps_done = array_append(steps_done, $2) WHERE id = $1", [analysisResultId, step.name]);
        app.logger.debug("analysis run step", { analysisResultId, step: step.name, ms: Math.round(performance.now() - started) });
        await indexAfter([step.name]);
        progress.finished(step);
      });
      ctx.signal.throwIfAborted();
      progress.publishing();
      const publishStarted = performance.now();
      // The summary beside the indexes of the last steps' tables (both cores: the steps are done),
      // its passes on the index builder's connections, each where its table was read.
      indexer.setSlots(2);
      published = await publication(app.pool, plan, (table, sql) => indexer.query(table, sql));
      app.logger.debug("analysis run step", { analysisResultId, step: "summary", ms: Math.round(performance.now() - publishStarted) });
      // The indexes the result pages need, before the run says COMPLETE: the user's wait ends when
      // the results are queryable fast, not when a job afterwards has indexed them. Now with the
      // rare flags' partial indexes, which the summary decides.
      for (const t of published.tables) indexer.add(t.table, t.columns as DataTableColumn[]);
      await indexer.done();
      app.logger.debug("analysis run step", { analysisResultId, step: "summary+indexes", ms: Math.round(performance.now() - publishStarted) });
    } catch (error) {
      // No index build outlives the attempt (the next one, or the failure's drop, finds no lock held).
      await indexer.cancel();
      throw error;
    }
    ctx.signal.throwIfAborted();
    const { tables, summary } = published;
    const finishStarted = performance.now();
    const dropWorkTables = await dropWorkTablesStatement(app.pool, plan, tables);
    const actor = actorOf(ctx.startedBy);
    await ctx.finish(async (tx, emit) => {
      const current = await tx.analysisResult.findUnique({ where: { id: analysisResultId } });
      if (!current) throw new JobError(`Analysis result ${analysisResultId} was deleted before its run finished`);
      await publishResultTables(tx, emit, actor, {
        engagementId: current.engagementId,
        analysisId: current.analysisId,
        analysisResultId,
        tables: tables.map((t) => ({ ...t, columns: t.columns as DataTableColumn[], indexed: true })),
      });
      await tx.analysisResult.update({
        where: { id: analysisResultId },
        data: { status: "COMPLETED", summary, completedDate: new Date(), ...touchAudit(actor), version: { increment: 1 } },
      });
      await tx.analysis.update({ where: { id: current.analysisId }, data: { latestAnalysisResultId: analysisResultId } });
      emit({ type: "analysis-result.updated", entityType: "ANALYSIS_RESULT", entityId: analysisResultId, userId: actor.userId, payload: { analysisResultId, analysisId: current.analysisId } });
      emitRunEvent(emit, "analysis.complete", current, actor.userId);
      if (dropWorkTables) await tx.$executeRawUnsafe(dropWorkTables);
    });
    app.logger.debug("analysis run step", { analysisResultId, step: "finish", ms: Math.round(performance.now() - finishStarted) });
    publishRunProgress(app, { ...ids, status: "COMPLETED", percent: 100, step: null, controlPoint: null, controlPointsDone: plan.points.filter((p) => p.available).length, controlPointsTotal: plan.points.filter((p) => p.available).length, message: null });
  },
  async onFailure(ctx, { analysisResultId }, error) {
    await failRun(ctx.app, analysisResultId, error, actorOf(ctx.startedBy));
  },
});

/** Marks a run's result FAILED (keeping the analysis's previous result), drops its tables, emits analysis.failed. */
export async function failRun(app: App, analysisResultId: string, error: string, actor: { userId: string; userName: string }): Promise<void> {
  await dropResultTables(app.pool, analysisResultId).catch((e) => app.logger.warn("could not drop a failed run's tables", { error: e, analysisResultId }));
  const result = await inTransaction(app, async (tx, emit) => {
    const current = await tx.analysisResult.findUnique({ where: { id: analysisResultId } });
    if (!current || current.status !== "RUNNING") return current;
    await tx.analysisResult.update({ where: { id: analysisResultId }, data: { status: "FAILED", error, completedDate: new Date(), ...touchAudit(actor), version: { increment: 1 } } });
    emitRunEvent(emit, "analysis.failed", current, actor.userId);
    return current;
  });
  if (result) publishRunProgress(app, { analysisResultId, analysisId: result.analysisId, status: "FAILED", percent: 100, step: null, controlPoint: null, controlPointsDone: 0, controlPointsTotal: 0, message: error });
}
