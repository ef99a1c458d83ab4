import { defineCrudFields } from "../common/crud-fields.js";
import { builder } from "../../graphql/builder.js";
import { whereArg } from "../common/where.js";
import { libraryColumns } from "./library.columns.js";
import { Entity } from "../common/entity.js";
import { Problem } from "../common/problem.js";
import { CreateLibraryInput, RiskScoreDisplay, UpdateLibraryInput } from "./library.inputs.js";
import * as service from "./library.service.js";
import { childrenOf, entitiesByIds, entityById } from "../common/relations.js";
import { relatedListArgs } from "../common/page.js";
import { engagementColumns } from "../engagements/engagement.columns.js";
import { configurationColumns } from "../analysis-type-configurations/configuration.columns.js";
import { riskRangeColumns } from "../risk-ranges/risk-range.columns.js";

export const Library = builder.prismaObject("Library", {
  interfaces: [Entity],
  fields: (t) => ({
    name: t.exposeString("name"),
    basedOnLibraryId: t.exposeID("basedOnLibraryId", { nullable: true }),
    originalSystemLibraryId: t.exposeID("originalSystemLibraryId", { nullable: true }),
    accountGroupingId: t.exposeID("accountGroupingId", { nullable: true }),
    analysisTypeIds: t.exposeIDList("analysisTypeIds"),
    archived: t.exposeBoolean("archived"),
    system: t.exposeBoolean("system"),
    defaultDelimiter: t.exposeString("defaultDelimiter", { nullable: true }),
    riskScoreDisplay: t.field({ type: RiskScoreDisplay, resolve: (l) => l.riskScoreDisplay }),
    controlPointSelectionPermission: t.exposeBoolean("controlPointSelectionPermission"),
    controlPointSettingsPermission: t.exposeBoolean("controlPointSettingsPermission"),
    controlPointWeightPermission: t.exposeBoolean("controlPointWeightPermission"),
    riskRangeEditPermission: t.exposeBoolean("riskRangeEditPermission"),
    riskScoreAndGroupsSelectionPermission: t.exposeBoolean("riskScoreAndGroupsSelectionPermission"),
    conversionWarnings: t.field({
      type: [Problem],
      description: "Settings that could not be carried over unchanged when the library was created (problem objects, as in the error body)",
      resolve: (l) => l.conversionWarnings,
    }),
    warningsDismissed: t.exposeBoolean("warningsDismissed"),
    basedOnLibrary: t.prismaField({ type: "Library", nullable: true, authScopes: { permission: "api.libraries.read" }, resolve: (_q, p, _a, ctx) => entityById("library")(ctx, p.basedOnLibraryId) }),
    originalSystemLibrary: t.prismaField({ type: "Library", nullable: true, description: "The system library this one descends from (originalSystemLibraryId)", authScopes: { permission: "api.libraries.read" }, resolve: (_q, p, _a, ctx) => entityById("library")(ctx, p.originalSystemLibraryId) }),
    accountGrouping: t.prismaField({ type: "AccountGrouping", nullable: true, authScopes: { permission: "api.account-groupings.read" }, resolve: (_q, p, _a, ctx) => entityById("accountGrouping")(ctx, p.accountGroupingId) }),
    analysisTypes: t.prismaField({ type: ["AnalysisType"], authScopes: { permission: "api.analysis-types.read" }, resolve: (_q, p, _a, ctx) => entitiesByIds("analysisType")(ctx, p.analysisTypeIds) }),
    engagements: t.prismaField({
      type: ["Engagement"],
      authScopes: { permission: "api.engagements.read" },
      args: { ...relatedListArgs(t), ...whereArg(t, "Engagement", engagementColumns) },
      resolve: (_q, p, args, ctx) => childrenOf("engagement", engagementColumns, "libraryId")(ctx, p.id, args),
    }),
    analysisTypeConfigurations: t.prismaField({
      type: ["AnalysisTypeConfiguration"],
      authScopes: { permission: "api.analysis-type-configuration.read" },
      args: { ...relatedListArgs(t), ...whereArg(t, "AnalysisTypeConfiguration", configurationColumns) },
      resolve: (_q, p, args, ctx) => childrenOf("analysisTypeConfiguration", configurationColumns, "libraryId")(ctx, p.id, args),
    }),
    riskRanges: t.prismaField({
      type: ["RiskRange"],
      authScopes: { permission: "api.risk-ranges.read" },
      args: { ...relatedListArgs(t), ...whereArg(t, "RiskRange", riskRangeColumns) },
      resolve: (_q, p, args, ctx) => childrenOf("riskRange", riskRangeColumns, "libraryId")(ctx, p.id, args),
    }),
  }),
});

defineCrudFields({
  name: "Library",
  plural: "libraries",
  type: Library,
  columns: libraryColumns,
  createInput: CreateLibraryInput,
  updateInput: UpdateLibraryInput,
  permissions: { read: "api.libraries.read", write: "api.libraries.write", delete: "api.libraries.delete" },
  service: {
    get: service.getLibrary,
    query: service.queryLibraries,
    create: service.createLibrary,
    update: service.updateLibrary,
    delete: service.deleteLibrary,
  },
});
