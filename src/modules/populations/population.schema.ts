import { builder } from "../../graphql/builder.js";
import { Entity } from "../common/entity.js";
import { defineCrudFields } from "../common/crud-fields.js";
import { pageArgs, pageOf } from "../common/page.js";
import { bothFilters } from "../../query-language/where.js";
import { CONDITION, CreatePopulationInput, UpdatePopulationInput } from "./population.inputs.js";
import { populationColumns } from "./population.columns.js";
import { withDescriptions } from "../saved-filters/conditions/condition-describe.js";
import * as service from "./population.service.js";
import { entitiesByIds, entityById } from "../common/relations.js";

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

defineCrudFields({
  name: "Population",
  type: Population,
  columns: populationColumns,
  createInput: CreatePopulationInput,
  updateInput: UpdatePopulationInput,
  permissions: { read: READ, write: "api.filters.write", delete: "api.filters.delete" },
  service: {
    get: service.getPopulation,
    query: service.queryPopulations,
    create: service.createPopulation,
    update: service.updatePopulation,
    delete: service.deletePopulation,
  },
});

/** The populations of an analysis or an engagement (those the token reaches), filtered and paged as populations(filter:). */
const scoped = (key: "analysisId" | "engagementId") => (args: { filter?: unknown }, id: string) => {
  // Analysis-level populations carry their engagement's id too.
  const own = key === "analysisId" ? { analysisId: id } : { engagementId: id, analysisId: null };
  return { ...args, filter: bothFilters(own, args.filter) };
};

builder.prismaObjectFields("Analysis", (t) => ({
  populations: t.field({
    type: pageOf(Population, "PopulationPage"),
    description: "The analysis-level populations of this analysis",
    extensions: { rest: false },
    authScopes: { permission: READ },
    args: pageArgs(t),
    resolve: (analysis, args, ctx) => service.queryPopulations(ctx, scoped("analysisId")(args, analysis.id)),
  }),
}));

builder.prismaObjectFields("Engagement", (t) => ({
  populations: t.field({
    type: pageOf(Population, "PopulationPage"),
    description: "The engagement-level populations of this engagement",
    extensions: { rest: false },
    authScopes: { permission: READ },
    args: pageArgs(t),
    resolve: (engagement, args, ctx) => service.queryPopulations(ctx, scoped("engagementId")(args, engagement.id)),
  }),
}));
