import { defineCrudFields } from "../common/crud-fields.js";
import { builder } from "../../graphql/builder.js";
import { configurationColumns } from "./configuration.columns.js";
import { INTEGER, LOCALIZED_TEXT, mapOf, shaped } from "../common/json-shape.js";
import { UpdateAnalysisTypeConfigurationInput } from "./configuration.inputs.js";
import { Entity } from "../common/entity.js";
import type { Configuration, RiskGroup } from "../catalogue/control-points.data.js";
import { configurationOf } from "./configuration.copy.js";
import { effectiveSettings } from "../../engine/index.js";
import { controlPointFamilyOf } from "../catalogue/control-points.data.js";
import * as service from "./configuration.service.js";
import { entitiesByIds, entityById } from "../common/relations.js";

const RiskAssertionCategory = builder.enumType("RiskAssertionCategory", { values: ["GENERAL", "ASSETS", "LIABILITIES_EQUITY", "PROFIT_LOSS"] as const });

const RiskGroupFilter = builder.objectRef<{ values: string[] }>("RiskGroupFilter").implement({
  description: "Account classification codes the risk group covers; empty covers every account",
  fields: (t) => ({ values: t.exposeStringList("values") }),
});

const RiskGroupRef = builder.objectRef<RiskGroup>("RiskGroup").implement({
  fields: (t) => ({
    id: t.exposeID("id"),
    name: t.field({ type: "JSON", ...shaped(LOCALIZED_TEXT), description: "Language code -> text", resolve: (g) => g.name }),
    description: t.field({ type: "JSON", ...shaped(LOCALIZED_TEXT), description: "Language code -> text", resolve: (g) => g.description }),
    category: t.field({ type: "JSON", ...shaped(LOCALIZED_TEXT), description: "Language code -> text", resolve: (g) => g.category }),
    analysisTypeId: t.exposeID("analysisTypeId"),
    riskAssertionCategory: t.field({ type: RiskAssertionCategory, resolve: (g) => g.riskAssertionCategory }),
    system: t.exposeBoolean("system"),
    disabled: t.exposeBoolean("disabled"),
    controlPointBundleVersion: t.exposeString("controlPointBundleVersion"),
    controlPointWeights: t.field({ type: "JSON", ...shaped(mapOf(INTEGER)), description: "Control point -> integer weight (0..100)", resolve: (g) => g.controlPointWeights }),
    filter: t.field({ type: RiskGroupFilter, resolve: (g) => g.filter }),
    applicableRiskRanges: t.exposeIDList("applicableRiskRanges"),
    selectedRiskRange: t.exposeID("selectedRiskRange", { nullable: true }),
    analysisType: t.prismaField({ type: "AnalysisType", nullable: true, extensions: { rest: false }, authScopes: { permission: "api.analysis-types.read" }, resolve: (_q, g, _a, ctx) => entityById("analysisType")(ctx, g.analysisTypeId) }),
    applicableRanges: t.prismaField({ type: ["RiskRange"], description: "The risk ranges of applicableRiskRanges", extensions: { rest: false }, authScopes: { permission: "api.risk-ranges.read" }, resolve: (_q, g, _a, ctx) => entitiesByIds("riskRange")(ctx, g.applicableRiskRanges) }),
    selectedRange: t.prismaField({ type: "RiskRange", nullable: true, description: "The risk range of selectedRiskRange", extensions: { rest: false }, authScopes: { permission: "api.risk-ranges.read" }, resolve: (_q, g, _a, ctx) => entityById("riskRange")(ctx, g.selectedRiskRange) }),
  }),
});

const ConfigurationRef = builder.objectRef<Configuration & { analysisTypeId: string }>("AnalysisTypeConfigurationSettings").implement({
  fields: (t) => ({
    riskGroups: t.field({ type: [RiskGroupRef], resolve: (c) => c.riskGroups }),
    controlPointSettings: t.field({
      type: "JSON",
      description: "Settings of each control point (and `general`), defaults merged with this configuration's changes (docs/control-points.md)",
      resolve: (c) => {
        const family = controlPointFamilyOf(c.analysisTypeId);
        return family ? effectiveSettings(family, c.controlPointSettings) : (c.controlPointSettings ?? {});
      },
    }),
    customControlPoints: t.field({ type: "JSON", description: "Custom expert-rule control points (`custom_` ids; general ledger only)", resolve: (c) => c.customControlPoints ?? [] }),
  }),
});

export const AnalysisTypeConfiguration = builder.prismaObject("AnalysisTypeConfiguration", {
  interfaces: [Entity],
  fields: (t) => ({
    libraryId: t.exposeID("libraryId", { nullable: true }),
    engagementId: t.exposeID("engagementId", { nullable: true }),
    analysisId: t.exposeID("analysisId", { nullable: true }),
    analysisTypeId: t.exposeID("analysisTypeId"),
    system: t.exposeBoolean("system", { description: "True while the risk groups equal the system defaults" }),
    template: t.exposeBoolean("template", { description: "True for library configurations, which engagements copy" }),
    controlPointBundleVersion: t.exposeString("controlPointBundleVersion", { nullable: true }),
    configuration: t.field({ type: ConfigurationRef, resolve: (row) => ({ ...configurationOf(row), analysisTypeId: row.analysisTypeId }) }),
    analysisType: t.prismaField({ type: "AnalysisType", nullable: true, authScopes: { permission: "api.analysis-types.read" }, resolve: (_q, p, _a, ctx) => entityById("analysisType")(ctx, p.analysisTypeId) }),
    library: t.prismaField({ type: "Library", nullable: true, authScopes: { permission: "api.libraries.read" }, resolve: (_q, p, _a, ctx) => entityById("library")(ctx, p.libraryId) }),
    engagement: t.prismaField({ type: "Engagement", nullable: true, authScopes: { permission: "api.engagements.read" }, resolve: (_q, p, _a, ctx) => entityById("engagement")(ctx, p.engagementId) }),
    analysis: t.prismaField({ type: "Analysis", nullable: true, authScopes: { permission: "api.analyses.read" }, resolve: (_q, p, _a, ctx) => entityById("analysis")(ctx, p.analysisId) }),
  }),
});

defineCrudFields({
  name: "AnalysisTypeConfiguration",
  type: AnalysisTypeConfiguration,
  columns: configurationColumns,
  updateInput: UpdateAnalysisTypeConfigurationInput,
  permissions: { read: "api.analysis-type-configuration.read", write: "api.analysis-type-configuration.write" },
  service: {
    get: service.getConfiguration,
    query: service.queryConfigurations,
    update: service.updateConfiguration,
  },
});
