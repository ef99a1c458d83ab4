import { builder } from "../../graphql/builder.js";
import { whereArg } from "../common/where.js";
import { libraryColumns } from "./library.columns.js";
import { Entity } from "../common/entity.js";
import { DeleteResult } from "../common/delete-result.js";
import { Problem } from "../common/problem.js";
import { pageArgs, pageOf } from "../common/page.js";
import { RISK_SCORE_DISPLAYS } from "./library.columns.js";
import * as service from "./library.service.js";

export const RiskScoreDisplay = builder.enumType("RiskScoreDisplay", { values: RISK_SCORE_DISPLAYS });


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
    riskScoreDisplay: t.field({ type: RiskScoreDisplay, resolve: (l) => l.riskScoreDisplay as (typeof RISK_SCORE_DISPLAYS)[number] }),
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
  }),
});

const settings = (t: PothosSchemaTypes.InputFieldBuilder<any, "InputObject">) => ({
  defaultDelimiter: t.string(),
  riskScoreDisplay: t.field({ type: RiskScoreDisplay }),
  controlPointSelectionPermission: t.boolean(),
  controlPointSettingsPermission: t.boolean(),
  controlPointWeightPermission: t.boolean(),
  riskRangeEditPermission: t.boolean(),
  riskScoreAndGroupsSelectionPermission: t.boolean(),
  warningsDismissed: t.boolean(),
});

const CreateLibraryInput = builder.inputType("CreateLibraryInput", {
  description: "Settings left out are copied from the base library",
  fields: (t) => ({
    name: t.string({ required: true }),
    basedOnLibraryId: t.id({ required: true }),
    accountGroupingId: t.id(),
    analysisTypeIds: t.idList(),
    convertSettings: t.boolean({ description: "Required (true) when accountGroupingId differs from the base library's" }),
    ...settings(t),
  }),
});

const UpdateLibraryInput = builder.inputType("UpdateLibraryInput", {
  fields: (t) => ({
    name: t.string(),
    analysisTypeIds: t.idList(),
    archived: t.boolean(),
    ...settings(t),
    version: t.int({ required: true }),
  }),
});

builder.queryFields((t) => ({
  library: t.field({
    type: Library,
    authScopes: { permission: "api.libraries.read" },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => service.getLibrary(ctx, id),
  }),
  libraries: t.field({
    type: pageOf(Library, "LibraryPage"),
    authScopes: { permission: "api.libraries.read" },
    args: { ...pageArgs(t), ...whereArg(t, "Library", libraryColumns) },
    resolve: (_root, args, ctx) => service.queryLibraries(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  createLibrary: t.field({
    type: Library,
    authScopes: { permission: "api.libraries.write" },
    args: { input: t.arg({ type: CreateLibraryInput, required: true }) },
    resolve: (_root, { input }, ctx) => service.createLibrary(ctx, input),
  }),
  updateLibrary: t.field({
    type: Library,
    authScopes: { permission: "api.libraries.write" },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateLibraryInput, required: true }) },
    resolve: (_root, { id, input }, ctx) => service.updateLibrary(ctx, id, input),
  }),
  deleteLibrary: t.field({
    type: DeleteResult,
    authScopes: { permission: "api.libraries.delete" },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => service.deleteLibrary(ctx, id),
  }),
}));
