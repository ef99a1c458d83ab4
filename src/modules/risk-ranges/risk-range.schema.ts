import { defineCrudFields } from "../common/crud-fields.js";
import { builder } from "../../graphql/builder.js";
import { riskRangeColumns } from "./risk-range.columns.js";
import { Entity } from "../common/entity.js";
import type { ThresholdBound } from "../catalogue/system-libraries.data.js";
import { boundsOf } from "./risk-range.rules.js";
import * as service from "./risk-range.service.js";
import { entityById } from "../common/relations.js";
import { CreateRiskRangeInput, UpdateRiskRangeInput } from "./risk-range.inputs.js";

const RiskRangeBound = builder.objectRef<ThresholdBound>("RiskRangeBound").implement({
  description: "PERCENTAGE_FIXED_POINT thresholds, 0..10000 (0.00%..100.00%)",
  fields: (t) => ({
    lowThreshold: t.exposeInt("lowThreshold"),
    highThreshold: t.exposeInt("highThreshold"),
  }),
});

export const RiskRange = builder.prismaObject("RiskRange", {
  interfaces: [Entity],
  fields: (t) => ({
    name: t.exposeString("name"),
    description: t.exposeString("description", { nullable: true }),
    analysisTypeId: t.exposeID("analysisTypeId"),
    libraryId: t.exposeID("libraryId", { nullable: true }),
    engagementId: t.exposeID("engagementId", { nullable: true }),
    system: t.exposeBoolean("system"),
    low: t.field({ type: RiskRangeBound, resolve: (r) => boundsOf(r).low }),
    medium: t.field({ type: RiskRangeBound, resolve: (r) => boundsOf(r).medium }),
    high: t.field({ type: RiskRangeBound, resolve: (r) => boundsOf(r).high }),
    analysisType: t.prismaField({ type: "AnalysisType", nullable: true, authScopes: { permission: "api.analysis-types.read" }, resolve: (_q, p, _a, ctx) => entityById("analysisType")(ctx, p.analysisTypeId) }),
    library: t.prismaField({ type: "Library", nullable: true, authScopes: { permission: "api.libraries.read" }, resolve: (_q, p, _a, ctx) => entityById("library")(ctx, p.libraryId) }),
    engagement: t.prismaField({ type: "Engagement", nullable: true, authScopes: { permission: "api.engagements.read" }, resolve: (_q, p, _a, ctx) => entityById("engagement")(ctx, p.engagementId) }),
  }),
});

defineCrudFields({
  name: "RiskRange",
  type: RiskRange,
  columns: riskRangeColumns,
  createInput: CreateRiskRangeInput,
  updateInput: UpdateRiskRangeInput,
  permissions: { read: "api.risk-ranges.read", write: "api.risk-ranges.write", delete: "api.risk-ranges.delete" },
  service: {
    get: service.getRiskRange,
    query: service.queryRiskRanges,
    create: service.createRiskRange,
    update: service.updateRiskRange,
    delete: service.deleteRiskRange,
  },
});
