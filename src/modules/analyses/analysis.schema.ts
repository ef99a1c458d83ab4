import { defineCrudFields } from "../common/crud-fields.js";
import { builder } from "../../graphql/builder.js";
import { analysisSourceColumns } from "../analysis-sources/analysis-source.columns.js";
import { whereArg } from "../common/where.js";
import { analysisColumns } from "./analysis.columns.js";
import type { RequestContext } from "../../graphql/context.js";
import { Entity } from "../common/entity.js";
import { relatedListArgs } from "../common/page.js";
import * as analysisSources from "../analysis-sources/analysis-source.service.js";
import { FEATURES } from "../catalogue/analysis-source-types.data.js";
import { analysisPeriodGaps } from "./analysis-period.rules.js";
import type { AnalysisStatus } from "./analysis-status.js";
import type { SourceStatus } from "./analysis-status.feeds.js";
import * as service from "./analysis.service.js";
import { getAnalysisStatus } from "./analysis-status.service.js";
import { runAnalysis } from "./analysis-run.js";
import { rollForwardAnalysis } from "./analysis-roll-forward.js";
import { CreateAnalysisInput, RollForwardAnalysisInput, UpdateAnalysisInput } from "./analysis.inputs.js";
import { AsyncResult } from "../async-results/async-result.schema.js";
import { AnalysisSource } from "../analysis-sources/analysis-source.schema.js";
import { childrenOf, entityById } from "../common/relations.js";
import { dataTableColumns } from "../data-tables/data-table.columns.js";

const analysisTypeById = entityById("analysisType");
const resultById = entityById("analysisResult");
const engagementById = entityById("engagement");
const reportingPeriodsById = entityById("reportingPeriodConfiguration");
const periodById = entityById("analysisPeriod");

/** An analysis period in its wire shape, batched per response; null for a dangling id. */
async function periodObject(ctx: RequestContext, id: string | null | undefined): Promise<PeriodShape | null> {
  const period = await periodById(ctx, id);
  return period ? { id: period.id, startDate: wireDate(period.startDate), endDate: wireDate(period.endDate), interimAsAtDate: period.interimAsAtDate ? wireDate(period.interimAsAtDate) : null } : null;
}
const analysisById = entityById("analysis");

/** A stored date as the wire's YYYY-MM-DD (the row reader hands `date` columns over as that text already). */
const wireDate = (value: Date | string) => (value instanceof Date ? value.toISOString().slice(0, 10) : String(value).slice(0, 10));

type PeriodShape = { id: string; startDate: string; endDate: string; interimAsAtDate: string | null };
type StoredAnalysis = { id: string; engagementId: string; reportingPeriodConfigurationId: string | null; importantColumns: PrismaJson.AnalysisImportantColumns };

export const AnalysisPeriod = builder.objectRef<PeriodShape>("AnalysisPeriod").implement({
  fields: (t) => ({
    id: t.exposeID("id"),
    startDate: t.expose("startDate", { type: "Date" }),
    endDate: t.expose("endDate", { type: "Date" }),
    interimAsAtDate: t.expose("interimAsAtDate", { type: "Date", nullable: true }),
  }),
});

const AnalysisPeriodGap = builder.objectRef<{ analysisPeriodId: string; previousAnalysisPeriodId: string; days: number }>("AnalysisPeriodGap").implement({
  description: "Days between consecutive analysis periods that no period covers",
  fields: (t) => ({
    analysisPeriodId: t.exposeID("analysisPeriodId"),
    previousAnalysisPeriodId: t.exposeID("previousAnalysisPeriodId"),
    days: t.exposeInt("days"),
    analysisPeriod: t.field({ type: AnalysisPeriod, nullable: true, description: "The period after the gap (analysisPeriodId)", extensions: { rest: false }, resolve: (g, _a, ctx) => periodObject(ctx, g.analysisPeriodId) }),
    previousAnalysisPeriod: t.field({ type: AnalysisPeriod, nullable: true, description: "The period before the gap (previousAnalysisPeriodId)", extensions: { rest: false }, resolve: (g, _a, ctx) => periodObject(ctx, g.previousAnalysisPeriodId) }),
  }),
});

const ImportantColumn = builder.objectRef<{ columnName: string; field: string }>("ImportantColumn").implement({
  fields: (t) => ({ columnName: t.exposeString("columnName"), field: t.exposeString("field") }),
});

/** Periods come with the analyses the service loads; anything else loads them here. */
async function periods(analysis: StoredAnalysis, ctx: RequestContext): Promise<PeriodShape[]> {
  const loaded = "analysisPeriods" in analysis ? (analysis as Parameters<typeof service.periodsOf>[0]) : await ctx.prisma.analysis.findUniqueOrThrow({ where: { id: analysis.id }, include: service.withPeriods });
  return service.periodsOf(loaded);
}

export const Analysis = builder.prismaObject("Analysis", {
  interfaces: [Entity],
  fields: (t) => ({
    engagementId: t.exposeID("engagementId"),
    analysisTypeId: t.exposeID("analysisTypeId"),
    name: t.exposeString("name"),
    interim: t.exposeBoolean("interim"),
    periodic: t.exposeBoolean("periodic"),
    archived: t.exposeBoolean("archived"),
    converted: t.exposeBoolean("converted"),
    currencyCode: t.exposeString("currencyCode"),
    referenceId: t.exposeString("referenceId", { nullable: true }),
    analysisPeriods: t.field({ type: [AnalysisPeriod], resolve: (a, _args, ctx) => periods(a, ctx) }),
    analysisPeriodGaps: t.field({ type: [AnalysisPeriodGap], resolve: async (a, _args, ctx) => analysisPeriodGaps(await periods(a, ctx)) }),
    importantColumns: t.field({ type: [ImportantColumn], resolve: (a) => a.importantColumns }),
    latestAnalysisResultId: t.exposeID("latestAnalysisResultId", { nullable: true }),
    reportingPeriodConfigurationId: t.field({
      type: "ID",
      nullable: true,
      description: "The analysis's own configuration, else its engagement's",
      resolve: (a, _args, ctx) => service.effectiveReportingPeriodConfigurationId(ctx, a),
    }),
    engagement: t.relation("engagement", { authScopes: { permission: "api.engagements.read" } }),
    analysisType: t.prismaField({
      type: "AnalysisType",
      nullable: true,
      description: "Null (with a FORBIDDEN error) without api.analysis-types.read, like every object beside an id",
      authScopes: { permission: "api.analysis-types.read" },
      resolve: (_query, a, _args, ctx) => analysisTypeById(ctx, a.analysisTypeId),
    }),
    latestAnalysisResult: t.prismaField({
      type: "AnalysisResult",
      nullable: true,
      description: "The latest run (latestAnalysisResultId)",
      authScopes: { permission: "api.analyses.read" },
      resolve: (_query, a, _args, ctx) => resultById(ctx, a.latestAnalysisResultId),
    }),
    reportingPeriodConfiguration: t.prismaField({
      type: "ReportingPeriodConfiguration",
      nullable: true,
      description: "The analysis's own configuration, else its engagement's (reportingPeriodConfigurationId)",
      authScopes: { permission: "api.reporting-period-configurations.read" },
      resolve: async (_query, a, _args, ctx) =>
        reportingPeriodsById(ctx, a.reportingPeriodConfigurationId ?? (await engagementById(ctx, a.engagementId))?.reportingPeriodConfigurationId),
    }),
    analysisSources: t.prismaField({
      type: ["AnalysisSource"],
      authScopes: { permission: "api.analysis-sources.read" },
      args: { ...relatedListArgs(t), ...whereArg(t, "AnalysisSource", analysisSourceColumns) },
      resolve: (_query, analysis, args, ctx) => analysisSources.analysisAnalysisSources(ctx, analysis.id, args),
    }),
    dataTables: t.prismaField({
      type: ["DataTable"],
      authScopes: { permission: "api.data-tables.read" },
      args: { ...relatedListArgs(t), ...whereArg(t, "DataTable", dataTableColumns) },
      resolve: (_q, p, args, ctx) => childrenOf("dataTable", dataTableColumns, "analysisId")(ctx, p.id, args),
    }),
  }),
});

const AvailableFeatures = builder.objectRef<Record<(typeof FEATURES)[number], boolean>>("AvailableFeatures").implement({
  description: "Whether the analysis's source types use each workflow feature",
  fields: (t) => Object.fromEntries(FEATURES.map((f) => [f, t.boolean({ resolve: (features) => features[f] })])),
});

const SourceStatusEnum = builder.enumType("SourceStatus", { values: ["IMPORTING", "UPLOADING", "IN_PROGRESS", "COMPLETED", "CANCELLED", "FAILED"] as const });

const SourceStatusEntry = builder.objectRef<AnalysisStatus["sourceStatuses"][number]>("AnalysisSourceStatus").implement({
  fields: (t) => ({
    sourceId: t.exposeID("sourceId"),
    analysisSourceTypeId: t.exposeID("analysisSourceTypeId"),
    periodId: t.exposeID("periodId", { nullable: true }),
    status: t.field({ type: SourceStatusEnum, resolve: (s) => s.status as SourceStatus }),
  }),
});

const PreflightError = builder.enumType("PreflightError", {
  values: ["IN_PROGRESS", "NOT_READY", "ARCHIVED", "REQUIRED_FILES_MISSING", "SOURCES_NOT_READY", "SOURCE_ERROR", "UNVERIFIED_ACCOUNT_MAPPINGS", "ANALYSIS_PERIOD_OVERLAP", "SOURCE_WARNINGS_PRESENT"] as const,
});

const AnalysisRunStatus = builder.enumType("AnalysisRunStatus", {
  values: ["NOT_STARTED", "IMPORTING_FILE", "PREPARING_DATA", "PROCESSING", "CONSOLIDATING_RESULTS", "COMPLETED", "FAILED"] as const,
});

export const AnalysisStatusRef = builder.objectRef<AnalysisStatus>("AnalysisStatus").implement({
  description: "Readiness of an analysis to run, computed from its sources and account mappings now",
  fields: (t) => ({
    analysisId: t.exposeID("analysisId"),
    analysisTypeId: t.exposeID("analysisTypeId"),
    ready: t.exposeBoolean("ready"),
    reRunReady: t.exposeBoolean("reRunReady"),
    status: t.field({ type: AnalysisRunStatus, resolve: (s) => s.status }),
    preflightErrors: t.field({ type: [PreflightError], resolve: (s) => s.preflightErrors }),
    availableFeatures: t.field({ type: AvailableFeatures, resolve: (s) => s.availableFeatures }),
    sourceStatuses: t.field({ type: [SourceStatusEntry], resolve: (s) => s.sourceStatuses }),
    mappedAccountMappingCount: t.exposeInt("mappedAccountMappingCount"),
    inferredAccountMappingCount: t.exposeInt("inferredAccountMappingCount"),
    unmappedAccountMappingCount: t.exposeInt("unmappedAccountMappingCount"),
  }),
});

builder.queryFields((t) => ({
  analysisStatus: t.field({
    type: AnalysisStatusRef,
    authScopes: { permission: "api.analyses.read" },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => getAnalysisStatus(ctx, id),
  }),
}));

builder.mutationFields((t) => ({
  runAnalysis: t.field({
    type: AsyncResult,
    description: "Starts an ANALYSIS_RUN; refused (409, naming the preflight errors) while the analysis is not ready",
    authScopes: { permission: "api.analyses.run" },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => runAnalysis(ctx, id),
  }),
  rollForwardAnalysis: t.field({
    type: AsyncResult,
    description: "Creates the analysis in the target engagement, periods a year later, and starts an ANALYSIS_ROLL_FORWARD job copying its settings",
    authScopes: { permission: "api.analyses.write" },
    args: { input: t.arg({ type: RollForwardAnalysisInput, required: true }) },
    resolve: (_root, { input }, ctx) => rollForwardAnalysis(ctx, input),
  }),
}));

defineCrudFields({
  name: "Analysis",
  plural: "analyses",
  type: Analysis,
  columns: analysisColumns,
  createInput: CreateAnalysisInput,
  updateInput: UpdateAnalysisInput,
  permissions: { read: "api.analyses.read", write: "api.analyses.write", delete: "api.analyses.delete" },
  service: {
    get: service.getAnalysis,
    query: service.queryAnalyses,
    create: service.createAnalysis,
    update: service.updateAnalysis,
    delete: service.deleteAnalysis,
  },
});
// Analysis sources and async results sit below analyses: their ways to analysis objects are added here.
builder.objectField(AnalysisSource, "analysisPeriod", (t) =>
  t.field({
    type: AnalysisPeriod,
    nullable: true,
    description: "The analysis period the source covers (analysisPeriodId)",
    extensions: { rest: false },
    authScopes: { permission: "api.analyses.read" },
    resolve: (s, _args, ctx) => periodObject(ctx, s.analysisPeriodId),
  }),
);

builder.objectField(AsyncResult, "analysis", (t) =>
  t.field({
    type: Analysis,
    nullable: true,
    description: "The analysis the job works on, when entityType is ANALYSIS",
    authScopes: { permission: "api.analyses.read" },
    resolve: (r, _args, ctx) => (r.entityType === "ANALYSIS" ? analysisById(ctx, r.entityId) : null),
  }),
);
