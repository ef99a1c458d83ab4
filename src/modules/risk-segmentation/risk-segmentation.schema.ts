import { builder } from "../../graphql/builder.js";
import { Entity } from "../common/entity.js";
import { DeleteResult } from "../common/delete-result.js";
import { pageArgs, pageOf } from "../common/page.js";
import * as service from "./risk-segmentation.service.js";
import { entityById } from "../common/relations.js";

const Segment = builder.objectRef<service.Segment>("RiskSegment").implement({
  fields: (t) => ({ name: t.exposeString("name"), rangeStart: t.exposeInt("rangeStart"), rangeEnd: t.exposeInt("rangeEnd") }),
});

export const RiskSegmentationConfig = builder.prismaObject("RiskSegmentationConfig", {
  interfaces: [Entity],
  fields: (t) => ({
    name: t.exposeString("name"),
    analysisId: t.exposeID("analysisId"),
    analysisResultId: t.exposeID("analysisResultId"),
    dataTableLogicalName: t.exposeString("dataTableLogicalName"),
    riskScoreId: t.exposeString("riskScoreId"),
    segments: t.field({ type: [Segment], resolve: (c) => c.segments }),
    summaryColumns: t.exposeStringList("summaryColumns"),
    dashboardFilters: t.field({ type: "JSON", nullable: true, resolve: (c) => c.dashboardFilters }),
    analysis: t.prismaField({ type: "Analysis", nullable: true, authScopes: { permission: "api.analyses.read" }, resolve: (_q, p, _a, ctx) => entityById("analysis")(ctx, p.analysisId) }),
    analysisResult: t.prismaField({ type: "AnalysisResult", nullable: true, authScopes: { permission: "api.analyses.read" }, resolve: (_q, p, _a, ctx) => entityById("analysisResult")(ctx, p.analysisResultId) }),
  }),
});

const SegmentInput = builder.inputType("RiskSegmentInput", {
  fields: (t) => ({ name: t.string({ required: true }), rangeStart: t.int({ required: true }), rangeEnd: t.int({ required: true }) }),
});

const CreateRiskSegmentationConfigInput = builder.inputType("CreateRiskSegmentationConfigInput", {
  description: "A saved Risk Segmentation dashboard view of one analysis's result (default: its latest); never updated",
  fields: (t) => ({
    name: t.string({ required: true }),
    analysisId: t.id({ required: true }),
    analysisResultId: t.id(),
    dataTableLogicalName: t.string({ description: "Default gl_journal_lines" }),
    riskScoreId: t.string({ description: "Score column segmented (default risk)" }),
    segments: t.field({ type: [SegmentInput], required: true, description: "Score bands (PERCENTAGE_FIXED_POINT 0..10000), not overlapping" }),
    summaryColumns: t.stringList({ description: "Numeric columns summed per segment" }),
    dashboardFilters: t.field({ type: "JSON", description: "Query-language filter over the table" }),
  }),
});

const READ = "api.analyses.read" as const;

builder.queryFields((t) => ({
  riskSegmentationConfig: t.field({
    type: RiskSegmentationConfig,
    authScopes: { permission: READ },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => service.getRiskSegmentationConfig(ctx, String(id)),
  }),
  riskSegmentationConfigs: t.field({
    type: pageOf(RiskSegmentationConfig, "RiskSegmentationConfigPage"),
    authScopes: { permission: READ },
    args: pageArgs(t),
    resolve: (_root, args, ctx) => service.queryRiskSegmentationConfigs(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  createRiskSegmentationConfig: t.field({
    type: RiskSegmentationConfig,
    authScopes: { permission: "api.analyses.write" },
    args: { input: t.arg({ type: CreateRiskSegmentationConfigInput, required: true }) },
    resolve: (_root, { input }, ctx) => service.createRiskSegmentationConfig(ctx, input as service.CreateRiskSegmentationConfigInput),
  }),
  deleteRiskSegmentationConfig: t.field({
    type: DeleteResult,
    authScopes: { permission: "api.analyses.delete" },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => service.deleteRiskSegmentationConfig(ctx, String(id)),
  }),
}));

builder.prismaObjectFields("Analysis", (t) => ({
  riskSegmentationConfigs: t.field({
    type: pageOf(RiskSegmentationConfig, "RiskSegmentationConfigPage"),
    description: "The saved Risk Segmentation views of this analysis",
    extensions: { rest: false },
    authScopes: { permission: READ },
    args: pageArgs(t),
    resolve: (analysis, args, ctx) => service.queryRiskSegmentationConfigs(ctx, { ...args, filter: args.filter == null ? { analysisId: analysis.id } : { $and: [{ analysisId: analysis.id }, args.filter] } }),
  }),
}));
