import { defineCrudFields } from "../common/crud-fields.js";
import { builder } from "../../graphql/builder.js";
import { accountMappingColumns } from "./account-mapping.columns.js";
import { Entity } from "../common/entity.js";
import { Engagement } from "../engagements/engagement.schema.js";
import { owningEngagement } from "../engagements/engagement.service.js";
import * as service from "./account-mapping.service.js";
import { UpdateAccountMappingInput } from "./account-mapping.inputs.js";
import { entitiesByIds } from "../common/relations.js";
import "./account-mapping.status-feed.js";
import { AsyncResult } from "../async-results/async-result.schema.js";
import { startAccountMappingExport } from "./account-mapping.export.js";

const sourcesByIds = entitiesByIds("analysisSource");

export const AccountMappingStatus = builder.enumType("AccountMappingStatus", {
  values: service.ACCOUNT_MAPPING_STATUSES,
  description: "USED and UNUSED are not stored: usage is usedByAnalysisSources (empty = unused)",
});

export const AccountMapping = builder.prismaObject("AccountMapping", {
  interfaces: [Entity],
  fields: (t) => ({
    engagementId: t.exposeID("engagementId"),
    engagement: t.field({ type: Engagement, authScopes: { permission: "api.engagements.read" }, resolve: (m, _args, ctx) => owningEngagement(ctx, m.engagementId) }),
    account: t.exposeString("account"),
    accountDescription: t.exposeString("accountDescription", { nullable: true }),
    code: t.exposeString("code", { nullable: true, description: "Code of the engagement account group the account maps to" }),
    accountTags: t.exposeStringList("accountTags"),
    fundId: t.exposeString("fundId", { nullable: true }),
    status: t.field({ type: AccountMappingStatus, resolve: (m) => m.status as (typeof service.ACCOUNT_MAPPING_STATUSES)[number] }),
    usedByAnalysisSources: t.exposeIDList("usedByAnalysisSources"),
    analysisSources: t.prismaField({ type: ["AnalysisSource"], description: "The analysis sources using this mapping (usedByAnalysisSources)", extensions: { rest: false }, authScopes: { permission: "api.analysis-sources.read" }, resolve: (_q, m, _a, ctx) => sourcesByIds(ctx, m.usedByAnalysisSources) }),
  }),
});

const Verification = builder.objectRef<{ engagementId: string; verifiedCount: number; unmappedCount: number; totalCount: number }>("AccountMappingVerification").implement({
  fields: (t) => ({
    engagementId: t.exposeID("engagementId"),
    verifiedCount: t.exposeInt("verifiedCount", { description: "Mappings this call marked VERIFIED" }),
    unmappedCount: t.exposeInt("unmappedCount", { description: "Mappings of the engagement without a group (verified as they are; the analysis scores them in its fallback risk group)" }),
    totalCount: t.exposeInt("totalCount"),
  }),
});

const UnusedDeletion = builder.objectRef<{ engagementId: string; deletedCount: number }>("AccountMappingUnusedDeletion").implement({
  fields: (t) => ({
    engagementId: t.exposeID("engagementId"),
    deletedCount: t.exposeInt("deletedCount"),
  }),
});

defineCrudFields({
  name: "AccountMapping",
  type: AccountMapping,
  columns: accountMappingColumns,
  updateInput: UpdateAccountMappingInput,
  permissions: { read: "api.analyses.read", write: "api.analyses.write" },
  service: {
    get: service.getAccountMapping,
    query: service.queryAccountMappings,
    update: service.updateAccountMapping,
  },
});

builder.mutationFields((t) => ({
  verifyAccountMappings: t.field({
    type: Verification,
    description: "Marks every account mapping of the engagement VERIFIED, those without a group included (spec 4.3: permission api.analyses.write)",
    authScopes: { permission: "api.analyses.write" },
    args: { engagementId: t.arg.id({ required: true }) },
    resolve: (_root, { engagementId }, ctx) => service.verifyAccountMappings(ctx, engagementId),
  }),
  deleteUnusedAccountMappings: t.field({
    type: UnusedDeletion,
    description: "Deletes the engagement's mappings that no analysis source uses",
    authScopes: { permission: "api.analyses.write" },
    args: { engagementId: t.arg.id({ required: true }) },
    resolve: (_root, { engagementId }, ctx) => service.deleteUnusedAccountMappings(ctx, engagementId),
  }),
  exportAccountMappings: t.field({
    type: AsyncResult,
    description: "Starts an ACCOUNT_MAPPING_EXPORT: one row per account mapping of the engagement, in the file result named by the async result's entityId",
    authScopes: { permission: "api.analyses.read" },
    args: { engagementId: t.arg.id({ required: true }) },
    resolve: (_root, { engagementId }, ctx) => startAccountMappingExport(ctx, engagementId),
  }),
}));
