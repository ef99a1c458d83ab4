import { defineCrudFields } from "../common/crud-fields.js";
import { builder } from "../../graphql/builder.js";
import { riskRangeColumns } from "./risk-range.columns.js";
import { Entity } from "../common/entity.js";
import type { ThresholdBound } from "../catalogue/system-libraries.data.js";
import { boundsOf } from "./risk-range.rules.js";
import * as service from "./risk-range.service.js";
import { entityById } from "../common/relations.js";

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

const RiskRangeBoundInput = builder.inputType("RiskRangeBoundInput", {
  fields: (t) => ({
    lowThreshold: t.int({ required: true }),
    highThreshold: t.int({ required: true }),
  }),
});

const CreateRiskRangeInput = builder.inputType("CreateRiskRangeInput", {
  description: "Give exactly one of libraryId and engagementId",
  fields: (t) => ({
    name: t.string({ required: true }),
    description: t.string(),
    analysisTypeId: t.id({ required: true }),
    libraryId: t.id(),
    engagementId: t.id(),
    low: t.field({ type: RiskRangeBoundInput, required: true }),
    medium: t.field({ type: RiskRangeBoundInput, required: true }),
    high: t.field({ type: RiskRangeBoundInput, required: true }),
  }),
});

const UpdateRiskRangeInput = builder.inputType("UpdateRiskRangeInput", {
  fields: (t) => ({
    name: t.string(),
    description: t.string(),
    low: t.field({ type: RiskRangeBoundInput }),
    medium: t.field({ type: RiskRangeBoundInput }),
    high: t.field({ type: RiskRangeBoundInput }),
    version: t.int({ required: true }),
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
