import { builder } from "../../graphql/builder.js";
import { Entity } from "../common/entity.js";
import { DeleteResult } from "../common/delete-result.js";
import { pageArgs, pageOf } from "../common/page.js";
import { withDescriptions } from "../saved-filters/conditions/condition-describe.js";
import * as service from "./population.service.js";
import { entitiesByIds, entityById } from "../common/relations.js";

const CONDITION = "Condition tree of spec 2.9 without the population-only fields (populations, account tags, status, risk_range); reads add fullConditionDescription";
const READ = "api.filters.read" as const;

export const Population = builder.prismaObject("Population", {
  interfaces: [Entity],
  fields: (t) => ({
    name: t.exposeString("name"),
    description: t.exposeString("description", { nullable: true }),
    category: t.exposeString("category", { nullable: true }),
    libraryId: t.exposeID("libraryId", { nullable: true }),
    engagementId: t.exposeID("engagementId", { nullable: true }),
    analysisId: t.exposeID("analysisId", { nullable: true }),
    analysisTypeId: t.exposeID("analysisTypeId", { nullable: true }),
    basePopulationId: t.exposeID("basePopulationId", { nullable: true }),
    clonedFrom: t.exposeID("clonedFrom", { nullable: true }),
    condition: t.field({ type: "JSON", description: CONDITION, nullable: true, resolve: (p) => (p.legacyFilterFormat ? null : withDescriptions(p.condition, { displayCurrencyCode: p.displayCurrencyCode })) }),
    disabled: t.exposeBoolean("disabled"),
    disabledForAnalysisIds: t.exposeIDList("disabledForAnalysisIds"),
    derivedFromLibrary: t.exposeBoolean("derivedFromLibrary"),
    derivedFromEngagement: t.exposeBoolean("derivedFromEngagement"),
    promotedFromAnalysisId: t.exposeID("promotedFromAnalysisId", { nullable: true }),
    reasonForChange: t.exposeString("reasonForChange", { nullable: true }),
    displayCurrencyCode: t.exposeString("displayCurrencyCode", { nullable: true }),
    displayLocale: t.exposeString("displayLocale", { nullable: true }),
    legacyFilterFormat: t.exposeBoolean("legacyFilterFormat"),
    library: t.prismaField({ type: "Library", nullable: true, authScopes: { permission: "api.libraries.read" }, resolve: (_q, p, _a, ctx) => entityById("library")(ctx, p.libraryId) }),
    engagement: t.prismaField({ type: "Engagement", nullable: true, authScopes: { permission: "api.engagements.read" }, resolve: (_q, p, _a, ctx) => entityById("engagement")(ctx, p.engagementId) }),
    analysis: t.prismaField({ type: "Analysis", nullable: true, authScopes: { permission: "api.analyses.read" }, resolve: (_q, p, _a, ctx) => entityById("analysis")(ctx, p.analysisId) }),
    basePopulation: t.prismaField({ type: "Population", nullable: true, description: "The population one level up this one derives from (basePopulationId)", resolve: (_q, p, _a, ctx) => service.populationOf(ctx, p.basePopulationId) }),
    promotedFromAnalysis: t.prismaField({ type: "Analysis", nullable: true, description: "The analysis this population was promoted from (promotedFromAnalysisId)", authScopes: { permission: "api.analyses.read" }, resolve: (_q, p, _a, ctx) => entityById("analysis")(ctx, p.promotedFromAnalysisId) }),
    disabledForAnalyses: t.prismaField({ type: ["Analysis"], description: "The analyses disabledForAnalysisIds names (ids naming no analysis left out)", authScopes: { permission: "api.analyses.read" }, resolve: (_q, p, _a, ctx) => entitiesByIds("analysis")(ctx, p.disabledForAnalysisIds) }),
    analysisType: t.prismaField({ type: "AnalysisType", nullable: true, authScopes: { permission: "api.analysis-types.read" }, resolve: (_q, p, _a, ctx) => entityById("analysisType")(ctx, p.analysisTypeId) }),
  }),
});

const CreatePopulationInput = builder.inputType("CreatePopulationInput", {
  description: "Give exactly one of libraryId, engagementId, analysisId; basePopulationId derives from a population one level up (its condition unless one is given)",
  fields: (t) => ({
    name: t.string({ required: true }),
    description: t.string(),
    category: t.string(),
    libraryId: t.id(),
    engagementId: t.id(),
    analysisId: t.id(),
    analysisTypeId: t.id(),
    basePopulationId: t.id(),
    condition: t.field({ type: "JSON", description: CONDITION }),
    disabled: t.boolean(),
    displayCurrencyCode: t.string(),
    displayLocale: t.string(),
  }),
});

const UpdatePopulationInput = builder.inputType("UpdatePopulationInput", {
  fields: (t) => ({
    name: t.string(),
    description: t.string(),
    category: t.string(),
    condition: t.field({ type: "JSON", description: CONDITION }),
    disabled: t.boolean(),
    reasonForChange: t.string(),
    displayCurrencyCode: t.string(),
    displayLocale: t.string(),
    version: t.int({ required: true }),
  }),
});

builder.queryFields((t) => ({
  population: t.field({
    type: Population,
    authScopes: { permission: READ },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => service.getPopulation(ctx, String(id)),
  }),
  populations: t.field({
    type: pageOf(Population, "PopulationPage"),
    authScopes: { permission: READ },
    args: pageArgs(t),
    resolve: (_root, args, ctx) => service.queryPopulations(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  createPopulation: t.field({
    type: Population,
    authScopes: { permission: "api.filters.write" },
    args: { input: t.arg({ type: CreatePopulationInput, required: true }) },
    resolve: (_root, { input }, ctx) => service.createPopulation(ctx, input as service.CreatePopulationInput),
  }),
  updatePopulation: t.field({
    type: Population,
    authScopes: { permission: "api.filters.write" },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdatePopulationInput, required: true }) },
    resolve: (_root, { id, input }, ctx) => service.updatePopulation(ctx, String(id), input as service.UpdatePopulationInput),
  }),
  deletePopulation: t.field({
    type: DeleteResult,
    authScopes: { permission: "api.filters.delete" },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => service.deletePopulation(ctx, String(id)),
  }),
}));
