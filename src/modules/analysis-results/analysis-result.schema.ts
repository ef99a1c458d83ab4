import { defineCrudFields } from "../common/crud-fields.js";
import { Repeater } from "graphql-yoga";
import { analysisResultColumns } from "./analysis-result.columns.js";
import { builder } from "../../graphql/builder.js";
import type { ControlPointSummary, Explanation, ResultSummary } from "../../engine/index.js";
import type { ExplainedPoint } from "../../engine/explain.js";
import { Entity } from "../common/entity.js";
import { relatedListArgs } from "../common/page.js";
import { AnalysisPeriod } from "../analyses/analysis.schema.js";
import "../data-tables/data-table.schema.js";
import { RESULT_STATUSES } from "./analysis-result.columns.js";
import { runProgressEvents, type RunProgress } from "./analysis-result.progress.js";
import * as service from "./analysis-result.service.js";
import { entityById } from "../common/relations.js";
import { AsyncResult } from "../async-results/async-result.schema.js";

const AnalysisResultStatus = builder.enumType("AnalysisResultStatus", { values: RESULT_STATUSES });

const RiskLevelCounts = builder.objectRef<{ total: number; byRiskLevel: Record<string, number> }>("RiskLevelCounts").implement({
  description: "How many rows score HIGH, MEDIUM, LOW or UNSCORED",
  fields: (t) => ({
    total: t.field({ type: "Long", resolve: (c) => c.total }),
    high: t.field({ type: "Long", resolve: (c) => c.byRiskLevel.HIGH ?? 0 }),
    medium: t.field({ type: "Long", resolve: (c) => c.byRiskLevel.MEDIUM ?? 0 }),
    low: t.field({ type: "Long", resolve: (c) => c.byRiskLevel.LOW ?? 0 }),
    unscored: t.field({ type: "Long", resolve: (c) => c.byRiskLevel.UNSCORED ?? 0 }),
  }),
});

const FlowCounts = builder.objectRef<NonNullable<ResultSummary["flows"]>>("FlowCounts").implement({
  description: "Monetary flows of the result: simple, complex and with an Unknown Account side",
  fields: (t) => ({
    total: t.field({ type: "Long", resolve: (c) => c.total }),
    simple: t.field({ type: "Long", resolve: (c) => c.simple }),
    complex: t.field({ type: "Long", resolve: (c) => c.complex }),
    unknown: t.field({ type: "Long", resolve: (c) => c.unknown }),
  }),
});

const ControlPointSummaryRef = builder.objectRef<ControlPointSummary>("ControlPointSummary").implement({
  description: "One control point of a result: whether it ran and how many entries and transactions failed it",
  fields: (t) => ({
    name: t.exposeString("name", { description: "Symbolic name (the stem of cp_failed_<name> / cp_score_<name>)" }),
    displayName: t.exposeString("displayName"),
    kind: t.exposeString("kind", { description: "RULES_BASED, STATISTICAL, MACHINE_LEARNING or EXPERT_RULES" }),
    level: t.exposeString("level", { description: "ENTRY, TRANSACTION or FLOW" }),
    available: t.exposeBoolean("available", { description: "Whether the run computed it" }),
    skipped: t.exposeString("skipped", { nullable: true, description: "Why it was not computed" }),
    failedEntries: t.field({ type: "Long", description: "Entries whose cp_failed column is set (entries inherit their transaction's)", resolve: (c) => c.failedEntries }),
    failedTransactions: t.field({ type: "Long", resolve: (c) => c.failedTransactions }),
    failedOwnEntries: t.field({ type: "Long", nullable: true, description: "Entries that failed it themselves (entry-level points of ledger results)", resolve: (c) => c.failedOwnEntries }),
  }),
});

const ResultSummaryRef = builder.objectRef<ResultSummary>("AnalysisResultSummary").implement({
  description: "Score summaries a dashboard can draw without paging through entries",
  fields: (t) => ({
    entries: t.field({ type: RiskLevelCounts, resolve: (s) => s.entries }),
    transactions: t.field({ type: RiskLevelCounts, nullable: true, resolve: (s) => s.transactions }),
    flows: t.field({ type: FlowCounts, nullable: true, resolve: (s) => s.flows }),
    controlPoints: t.field({ type: [ControlPointSummaryRef], resolve: (s) => s.controlPoints }),
    facts: t.field({ type: "JSON", description: "Values the run derived or used: materiality, high monetary value threshold, first and last dates", resolve: (s) => s.facts }),
  }),
});

const ExplainedPointRef = builder.objectRef<ExplainedPoint>("ExplainedControlPoint").implement({
  fields: (t) => ({
    name: t.exposeString("name"),
    displayName: t.exposeString("displayName"),
    kind: t.exposeString("kind"),
    level: t.exposeString("level"),
    score: t.exposeInt("score", { description: "0..10000" }),
    weight: t.exposeInt("weight", { description: "Weight in the risk group (0..100)" }),
    contribution: t.exposeInt("contribution", { description: "score x weight / total weight: what it adds to the risk (0..10000)" }),
    failed: t.exposeBoolean("failed"),
    source: t.exposeString("source", { description: "ENTRY (this entry), OTHER_ENTRY (another entry of its transaction), TRANSACTION or FLOW" }),
    rowid: t.field({ type: "Long", nullable: true, description: "The entry that scored it, for entry-level points", resolve: (p) => p.rowid }),
    reason: t.exposeString("reason", { description: "Plain-language reason, e.g. entered on Saturday 2024-03-16" }),
  }),
});

const RiskGroupRefShape = builder.objectRef<{ id: string; name: string; category: string }>("ExplainedRiskGroup").implement({
  fields: (t) => ({ id: t.exposeID("id"), name: t.exposeString("name"), category: t.exposeString("category") }),
});

const ExplanationRef = builder.objectRef<Explanation>("ScoreExplanation").implement({
  description: "Why an entry or transaction scores what it scores",
  fields: (t) => ({
    level: t.exposeString("level", { description: "ENTRY or TRANSACTION" }),
    rowid: t.field({ type: "Long", resolve: (e) => e.rowid }),
    txid: t.exposeString("txid", { nullable: true }),
    risk: t.exposeInt("risk", { nullable: true, description: "0..10000" }),
    riskLevel: t.exposeString("riskLevel"),
    riskGroup: t.field({ type: RiskGroupRefShape, nullable: true, resolve: (e) => e.riskGroup }),
    totalWeight: t.exposeInt("totalWeight", { description: "Sum of the weights of the group's control points this run computed" }),
    controlPoints: t.field({ type: [ExplainedPointRef], resolve: (e) => e.controlPoints }),
    summary: t.exposeString("summary"),
  }),
});

export const AnalysisResult = builder.prismaObject("AnalysisResult", {
  interfaces: [Entity],
  fields: (t) => ({
    engagementId: t.exposeID("engagementId"),
    analysisId: t.exposeID("analysisId"),
    analysisTypeId: t.exposeID("analysisTypeId"),
    analysisPeriods: t.field({ type: [AnalysisPeriod], description: "The periods as they were when the run started", resolve: (r) => r.analysisPeriods }),
    interim: t.exposeBoolean("interim"),
    status: t.field({ type: AnalysisResultStatus, description: "RUNNING until the run ends; COMPLETED results have data tables", resolve: (r) => r.status as (typeof RESULT_STATUSES)[number] }),
    error: t.exposeString("error", { nullable: true }),
    completedDate: t.expose("completedDate", { type: "DateTime", nullable: true }),
    summary: t.field({ type: ResultSummaryRef, nullable: true, resolve: (r) => service.summaryOf(r) }),
    analysis: t.relation("analysis", { authScopes: { permission: "api.analyses.read" } }),
    dataTables: t.prismaField({
      type: ["DataTable"],
      description: "The result's data tables: gl_journal_lines, gl_journal_tx, flows_compact and typeahead tables (ap_detail_entries / ar_detail_entries for payables and receivables)",
      authScopes: { permission: "api.data-tables.read" },
      args: relatedListArgs(t),
      resolve: (_query, result, args, ctx) => service.resultDataTables(ctx, result.id, args),
    }),
    explainEntry: t.field({
      type: ExplanationRef,
      description: "Why the entry with this rowid scores what it scores",
      args: { rowid: t.arg.id({ required: true }) },
      resolve: (result, { rowid }, ctx) => service.explainScore(ctx, result.id, "ENTRY", rowid),
    }),
    explainTransaction: t.field({
      type: ExplanationRef,
      description: "Why the transaction (rowid of its first entry, the gl_journal_tx rowid) scores what it scores",
      args: { rowid: t.arg.id({ required: true }) },
      resolve: (result, { rowid }, ctx) => service.explainScore(ctx, result.id, "TRANSACTION", rowid),
    }),
    analysisType: t.prismaField({ type: "AnalysisType", nullable: true, authScopes: { permission: "api.analysis-types.read" }, resolve: (_q, p, _a, ctx) => entityById("analysisType")(ctx, p.analysisTypeId) }),
    engagement: t.prismaField({ type: "Engagement", nullable: true, authScopes: { permission: "api.engagements.read" }, resolve: (_q, p, _a, ctx) => entityById("engagement")(ctx, p.engagementId) }),
  }),
});

builder.prismaObjectField("Analysis", "results", (t) =>
  t.prismaField({
    type: ["AnalysisResult"],
    description: "Every run's result, newest first unless sorted otherwise",
    authScopes: { permission: "api.analyses.read" },
    args: relatedListArgs(t),
    resolve: (_query, analysis, args, ctx) => service.analysisResultsOf(ctx, analysis.id, args),
  }),
);

builder.queryFields((t) => ({
  explainEntryScore: t.field({
    type: ExplanationRef,
    description: "Why an entry of an analysis result scores what it scores",
    authScopes: { permission: "api.analyses.read" },
    args: { analysisResultId: t.arg.id({ required: true }), rowid: t.arg.id({ required: true }) },
    resolve: (_root, { analysisResultId, rowid }, ctx) => service.explainScore(ctx, analysisResultId, "ENTRY", rowid),
  }),
  explainTransactionScore: t.field({
    type: ExplanationRef,
    description: "Why a transaction of an analysis result (by its rowid) scores what it scores",
    authScopes: { permission: "api.analyses.read" },
    args: { analysisResultId: t.arg.id({ required: true }), rowid: t.arg.id({ required: true }) },
    resolve: (_root, { analysisResultId, rowid }, ctx) => service.explainScore(ctx, analysisResultId, "TRANSACTION", rowid),
  }),
}));

defineCrudFields({
  name: "AnalysisResult",
  type: AnalysisResult,
  columns: analysisResultColumns,
  permissions: { read: "api.analyses.read" },
  service: {
    get: service.getAnalysisResult,
    query: service.queryAnalysisResults,
  },
});

const RunProgressRef = builder.objectRef<RunProgress>("AnalysisRunProgress").implement({
  description: "Progress of an analysis run: the step, each control point as it is computed, the overall percentage",
  fields: (t) => ({
    analysisResultId: t.exposeID("analysisResultId"),
    analysisId: t.exposeID("analysisId"),
    status: t.field({ type: AnalysisResultStatus, resolve: (p) => p.status }),
    percent: t.exposeInt("percent"),
    step: t.exposeString("step", { nullable: true }),
    controlPoint: t.exposeString("controlPoint", { nullable: true, description: "The control point just computed" }),
    controlPointsDone: t.exposeInt("controlPointsDone"),
    controlPointsTotal: t.exposeInt("controlPointsTotal"),
    message: t.exposeString("message", { nullable: true }),
  }),
});

builder.subscriptionField("analysisRunProgress", (t) =>
  t.field({
    type: RunProgressRef,
    description: "Progress of one analysis run (its analysis result): first its current state, then each step and control point; ends with COMPLETED or FAILED",
    authScopes: { permission: "api.analyses.read" },
    args: { analysisResultId: t.arg.id({ required: true }) },
    subscribe: (_root, { analysisResultId }, ctx) =>
      new Repeater<RunProgress>(async (push, stop) => {
        const events = ctx.app.pubsub.subscribe("transient-event");
        stop.then(() => void events.return?.());
        const pending = events.next();
        const result = await service.getAnalysisResult(ctx, analysisResultId).catch((error) => {
          stop(error);
          return undefined;
        });
        if (!result) return;
        const job = await ctx.prisma.asyncResult.findFirst({ where: { entityId: analysisResultId, entityType: "ANALYSIS_RESULT" }, orderBy: { creationDate: "desc" }, select: { progress: true } });
        const total = service.summaryOf(result)?.controlPoints.filter((c) => c.available).length ?? 0;
        const status = result.status as RunProgress["status"];
        const current: RunProgress = {
          analysisResultId,
          analysisId: result.analysisId,
          status,
          percent: status === "RUNNING" ? (job?.progress ?? 0) : 100,
          step: null,
          controlPoint: null,
          controlPointsDone: status === "COMPLETED" ? total : 0,
          controlPointsTotal: total,
          message: result.error,
        };
        await push(current);
        if (status !== "RUNNING") {
          stop();
          return;
        }
        (async () => {
          for (let next = await pending; !next.done; next = await events.next()) {
            const progress = runProgressEvents.payloadOf(next.value, analysisResultId);
            if (!progress) continue;
            await push(progress);
            if (progress.status !== "RUNNING") {
              stop();
              return;
            }
          }
        })().catch((error) => stop(error));
        await stop;
      }),
    resolve: (progress) => progress,
  }),
);

builder.objectField(AsyncResult, "analysisResult", (t) =>
  t.field({
    type: AnalysisResult,
    nullable: true,
    description: "The analysis run the job performs, when entityType is ANALYSIS_RESULT",
    authScopes: { permission: "api.analyses.read" },
    resolve: (r, _args, ctx) => (r.entityType === "ANALYSIS_RESULT" ? entityById("analysisResult")(ctx, r.entityId) : null),
  }),
);
