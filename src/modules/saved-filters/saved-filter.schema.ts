import { builder } from "../../graphql/builder.js";
import type { Problem } from "../../core/errors.js";
import { Entity } from "../common/entity.js";
import { Problem as ProblemRef } from "../common/problem.js";
import { withDescriptions } from "./conditions/condition-describe.js";
import { savedFilterColumns } from "./saved-filter.columns.js";
import { CONDITION, CreateSavedFilterInput, FilterDataType, FilterType, LANG, UpdateSavedFilterInput } from "./saved-filter.inputs.js";
import { defineCrudFields } from "../common/crud-fields.js";
import * as service from "./saved-filter.service.js";
import { entityById } from "../common/relations.js";


export const SavedFilter = builder.prismaObject("SavedFilter", {
  interfaces: [Entity],
  fields: (t) => ({
    name: t.field({ type: "JSON", description: LANG, resolve: (f) => f.name }),
    category: t.field({ type: "JSON", description: LANG, nullable: true, resolve: (f) => f.category }),
    filterType: t.field({ type: FilterType, resolve: (f) => f.filterType }),
    dataType: t.field({ type: FilterDataType, resolve: (f) => f.dataType }),
    libraryId: t.exposeID("libraryId", { nullable: true }),
    organizationId: t.exposeID("organizationId", { nullable: true }),
    engagementId: t.exposeID("engagementId", { nullable: true }),
    analysisTypeId: t.exposeID("analysisTypeId", { nullable: true }),
    condition: t.field({
      type: "JSON",
      description: `${CONDITION}; null when legacyFilterFormat is true`,
      nullable: true,
      resolve: (f) => (f.legacyFilterFormat ? null : withDescriptions(f.condition, { displayCurrencyCode: f.displayCurrencyCode })),
    }),
    displayCurrencyCode: t.exposeString("displayCurrencyCode", { nullable: true }),
    displayLocale: t.exposeString("displayLocale", { nullable: true }),
    legacyFilterFormat: t.exposeBoolean("legacyFilterFormat", { description: "The filter is in a format the API does not support; its condition is null until a new one is saved" }),
    library: t.prismaField({ type: "Library", nullable: true, authScopes: { permission: "api.libraries.read" }, resolve: (_q, p, _a, ctx) => entityById("library")(ctx, p.libraryId) }),
    organization: t.prismaField({ type: "Organization", nullable: true, authScopes: { permission: "api.organizations.read" }, resolve: (_q, p, _a, ctx) => entityById("organization")(ctx, p.organizationId) }),
    engagement: t.prismaField({ type: "Engagement", nullable: true, authScopes: { permission: "api.engagements.read" }, resolve: (_q, p, _a, ctx) => entityById("engagement")(ctx, p.engagementId) }),
    analysisType: t.prismaField({ type: "AnalysisType", nullable: true, authScopes: { permission: "api.analysis-types.read" }, resolve: (_q, p, _a, ctx) => entityById("analysisType")(ctx, p.analysisTypeId) }),
  }),
});

const SavedFilterValidation = builder
  .objectRef<{ filterId: string; dataTableId: string; valid: boolean; errors: Problem[]; warnings: Problem[]; query: unknown }>("SavedFilterValidation")
  .implement({
    fields: (t) => ({
      filterId: t.exposeID("filterId"),
      dataTableId: t.exposeID("dataTableId"),
      valid: t.exposeBoolean("valid"),
      errors: t.field({ type: [ProblemRef], resolve: (v) => v.errors }),
      warnings: t.field({ type: [ProblemRef], resolve: (v) => v.warnings }),
      query: t.field({ type: "JSON", nullable: true, description: "The query-language filter the condition compiles to on this table", resolve: (v) => v.query }),
      dataTable: t.prismaField({ type: "DataTable", nullable: true, description: "The data table validated against (dataTableId)", extensions: { rest: false }, authScopes: { permission: "api.data-tables.read" }, resolve: (_q, v, _a, ctx) => entityById("dataTable")(ctx, v.dataTableId) }),
    }),
  });

builder.queryFields((t) => ({
  validateSavedFilter: t.field({
    type: SavedFilterValidation,
    authScopes: { permission: "api.filters.read" },
    args: { filterId: t.arg.id({ required: true }), dataTableId: t.arg.id({ required: true }) },
    resolve: (_root, { filterId, dataTableId }, ctx) => service.validateSavedFilter(ctx, String(filterId), String(dataTableId)),
  }),
}));

defineCrudFields({
  name: "SavedFilter",
  type: SavedFilter,
  columns: savedFilterColumns,
  createInput: CreateSavedFilterInput,
  updateInput: UpdateSavedFilterInput,
  permissions: { read: "api.filters.read", write: "api.filters.write", delete: "api.filters.delete" },
  service: {
    get: service.getSavedFilter,
    query: service.querySavedFilters,
    // The service takes name and category as language maps, which it checks (JSON on the wire).
    create: (ctx, input) => service.createSavedFilter(ctx, input),
    update: (ctx, id, input) => service.updateSavedFilter(ctx, id, input),
    delete: service.deleteSavedFilter,
  },
});
