import { builder } from "../../graphql/builder.js";
import { Entity } from "../common/entity.js";
import { defineCrudFields } from "../common/crud-fields.js";
import { pageArgs, pageOf } from "../common/page.js";
import { bothFilters } from "../../query-language/where.js";
import { CreateRiskSegmentationConfigInput } from "./risk-segmentation.inputs.js";
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

const READ = "api.analyses.read" as const;

defineCrudFields({
  name: "RiskSegmentationConfig",
  type: RiskSegmentationConfig,
  columns: service.riskSegmentationColumns,
  createInput: CreateRiskSegmentationConfigInput,
  permissions: { read: READ, write: "api.analyses.write", delete: "api.analyses.delete" },
  service: {
    get: service.getRiskSegmentationConfig,
    query: service.queryRiskSegmentationConfigs,
    create: service.createRiskSegmentationConfig,
    delete: service.deleteRiskSegmentationConfig,
  },
});

builder.prismaObjectFields("Analysis", (t) => ({
  riskSegmentationConfigs: t.field({
    type: pageOf(RiskSegmentationConfig, "RiskSegmentationConfigPage"),
    description: "The saved Risk Segmentation views of this analysis",
    extensions: { rest: false },
    authScopes: { permission: READ },
    args: pageArgs(t),
    resolve: (analysis, args, ctx) => service.queryRiskSegmentationConfigs(ctx, { ...args, filter: bothFilters({ analysisId: analysis.id }, args.filter) }),
  }),
}));
