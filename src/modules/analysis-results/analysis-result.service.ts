import { ConflictError, NotFoundError, ValidationError } from "../../core/errors.js";
import { createAudit, findEntity, queryEntities, relatedList, type PageArgs, type RelatedListArgs } from "../../entity/index.js";
import { newId } from "../../core/ids.js";
import { explainEntry, explainTransaction, planRun, type Explanation, type ResultSummary } from "../../engine/index.js";
import { inTransaction } from "../../events/outbox.js";
import type { RequestContext } from "../../graphql/context.js";
import { jobStarter, startJob } from "../../jobs/index.js";
import { registerAnalysisRunner } from "../analyses/analysis-run.js";
import { registerStatusFeed } from "../analyses/analysis-status.feeds.js";
import { periodsOf, withPeriods } from "../analyses/analysis.service.js";
import { dataTableColumns } from "../data-tables/data-table.columns.js";
import { analysisRunJob } from "./analysis-result.job.js";
import { analysisResultColumns } from "./analysis-result.columns.js";
import { buildEngineSpec, storedSpec } from "./analysis-result.spec.js";

const ENTITY = "AnalysisResult";

export function getAnalysisResult(ctx: RequestContext, id: string) {
  return findEntity(ctx.app, "analysisResult", ENTITY, id);
}

export function queryAnalysisResults(ctx: RequestContext, args: PageArgs) {
  return queryEntities(ctx.app, { model: "analysisResult", columns: analysisResultColumns }, args);
}

const resultsByAnalysis = relatedList({ model: "analysisResult", columns: analysisResultColumns, parentField: "analysisId", defaultSort: [{ field: "creationDate", direction: "DESC" }] });

/** `Analysis.results`: every run of the analysis, newest first unless sorted otherwise. */
export function analysisResultsOf(ctx: RequestContext, analysisId: string, args: RelatedListArgs) {
  return resultsByAnalysis(ctx.app, ctx, analysisId, args);
}

const tablesByResult = relatedList({ model: "dataTable", columns: dataTableColumns, parentField: "analysisResultId", defaultSort: [{ field: "creationDate", direction: "ASC" }] });

/** `AnalysisResult.dataTables`: the result's data tables (entries, transactions, flows, typeahead). */
export function resultDataTables(ctx: RequestContext, analysisResultId: string, args: RelatedListArgs) {
  return tablesByResult(ctx.app, ctx, analysisResultId, args);
}

export function summaryOf(result: { summary: ResultSummary | null }): ResultSummary | null {
  return result.summary ?? null;
}

/**
 * POST /analyses/{id}/run once the analysis is ready (analyses/analysis-run.ts checks the
 * preflight): reads what the run needs (configuration, sources, account classification), creates
 * the result (RUNNING) and starts the ANALYSIS_RUN job in one transaction. A second run while one
 * is RUNNING is refused (409, preflight IN_PROGRESS), also when two requests race.
 */
registerAnalysisRunner(async (ctx, analysisId) => {
  const analysis = await ctx.prisma.analysis.findUnique({ where: { id: analysisId }, include: withPeriods });
  if (!analysis) throw new NotFoundError("Analysis", analysisId);
  const resultId = newId();
  const spec = await buildEngineSpec(ctx.app, analysisId, resultId);
  if (spec.sources.length === 0) {
    throw new ConflictError(`Analysis ${analysisId} has no completed source of the entries its analysis type scores`, { identifier: "preflightErrors", values: ["REQUIRED_FILES_MISSING"], entityId: analysisId, entityType: "Analysis" });
  }
  const startedBy = jobStarter(ctx);
  return inTransaction(ctx.app, async (tx) => {
    await tx.$queryRaw`SELECT id FROM analysis WHERE id = ${analysisId} FOR UPDATE`;
    const running = await tx.analysisResult.findFirst({ where: { analysisId, status: "RUNNING" }, select: { id: true } });
    if (running) {
      throw new ConflictError(`Analysis ${analysisId} is already running (analysis result ${running.id})`, { identifier: "preflightErrors", values: ["IN_PROGRESS"], entityId: analysisId, entityType: "Analysis" });
    }
    await tx.analysisResult.create({
      data: {
        ...createAudit({ userId: startedBy.userId, userName: startedBy.userName }),
        id: resultId,
        engagementId: analysis.engagementId,
        analysisId,
        analysisTypeId: analysis.analysisTypeId,
        analysisPeriods: periodsOf(analysis),
        interim: analysis.interim,
        status: "RUNNING",
        spec: storedSpec(spec),
      },
    });
    return startJob(tx, { job: analysisRunJob, payload: { analysisResultId: resultId }, entityType: "ANALYSIS_RESULT", entityId: resultId, startedBy });
  });
});

/** The analysis status reports a running run (preflight IN_PROGRESS) and the last run's outcome. */
registerStatusFeed("run", async (ctx, analysis) => {
  const latest = await ctx.prisma.analysisResult.findFirst({ where: { analysisId: analysis.id }, orderBy: { creationDate: "desc" }, select: { status: true } });
  const running = latest?.status === "RUNNING" || (await ctx.prisma.analysisResult.count({ where: { analysisId: analysis.id, status: "RUNNING" } })) > 0;
  if (running) return { status: "PROCESSING", inProgress: true };
  if (!latest) return { status: "NOT_STARTED", inProgress: false };
  return { status: latest.status === "FAILED" ? "FAILED" : "COMPLETED", inProgress: false };
});

function rowidOf(value: string | number): number {
  const text = String(value);
  if (!/^\d{1,15}$/.test(text)) throw new ValidationError(`rowid must be a whole number; got ${text}`, { identifier: "rowid", values: [text], problemType: "INCORRECT_DATA_TYPE" });
  return Number(text);
}

/**
 * Why an entry or a transaction of a result scores what it scores: its risk group, the control
 * points that scored with their score, weight and contribution, and a plain-language reason each.
 */
export async function explainScore(ctx: RequestContext, analysisResultId: string, level: "ENTRY" | "TRANSACTION", rowid: string | number): Promise<Explanation> {
  const result = await getAnalysisResult(ctx, analysisResultId);
  const row = rowidOf(rowid);
  if (result.status !== "COMPLETED" || !result.spec) {
    throw new ConflictError(`Analysis result ${analysisResultId} is ${result.status}; only completed results can explain scores`, { entityId: analysisResultId, entityType: ENTITY });
  }
  const plan = planRun(result.spec);
  const explained = level === "ENTRY" ? await explainEntry(ctx.app.pool, plan, row) : await explainTransaction(ctx.app.pool, plan, row);
  if (!explained) throw new NotFoundError(level === "ENTRY" ? "Entry" : "Transaction", String(row));
  return explained;
}
