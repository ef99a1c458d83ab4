import { defineCrudFields } from "../common/crud-fields.js";
import { builder } from "../../graphql/builder.js";
import { engagementAccountGroupingColumns } from "./engagement-account-grouping.columns.js";
import { engagementAccountGroupColumns } from "./engagement-account-grouping.columns.js";
import { LOCALIZED_TEXT, shaped } from "../common/json-shape.js";
import { Entity } from "../common/entity.js";
import { relatedListArgs } from "../common/page.js";
import { AccountGroupError } from "../account-groupings/account-grouping.schema.js";
import * as groupings from "./engagement-account-grouping.service.js";
import * as groups from "./engagement-account-group.service.js";
import { CreateEngagementAccountGroupInput, UpdateEngagementAccountGroupInput } from "./engagement-account-grouping.inputs.js";
import { LANG } from "../account-groupings/account-grouping.inputs.js";
import { AsyncResult } from "../async-results/async-result.schema.js";
import { startEngagementAccountGroupingExport } from "./engagement-account-grouping.export.js";
import { entityById } from "../common/relations.js";

export const GroupOrigin = builder.enumType("GroupOrigin", { values: groupings.GROUP_ORIGINS });

export const EngagementAccountGrouping = builder.prismaObject("EngagementAccountGrouping", {
  interfaces: [Entity],
  fields: (t) => ({
    engagementId: t.exposeID("engagementId"),
    accountGroupingId: t.exposeID("accountGroupingId", { nullable: true, description: "The grouping this copy was made from (never followed afterwards)" }),
    name: t.field({ type: "JSON", ...shaped(LOCALIZED_TEXT), description: LANG, resolve: (g) => g.name }),
    codeDisplayName: t.field({ type: "JSON", ...shaped(LOCALIZED_TEXT), description: LANG, resolve: (g) => g.codeDisplayName }),
    delimiter: t.exposeString("delimiter"),
    groups: t.prismaField({
      type: ["EngagementAccountGroup"],
      description: "The grouping's groups in tree order (orderIndex) unless sorted otherwise",
      authScopes: { permission: "api.engagement-account-groupings.read" },
      args: relatedListArgs(t),
      resolve: (_query, grouping, args, ctx) => groups.engagementAccountGroupingGroups(ctx, grouping.id, args),
    }),
    engagement: t.prismaField({ type: "Engagement", nullable: true, authScopes: { permission: "api.engagements.read" }, resolve: (_q, p, _a, ctx) => entityById("engagement")(ctx, p.engagementId) }),
    accountGrouping: t.prismaField({ type: "AccountGrouping", nullable: true, authScopes: { permission: "api.account-groupings.read" }, resolve: (_q, p, _a, ctx) => entityById("accountGrouping")(ctx, p.accountGroupingId) }),
  }),
});

export const EngagementAccountGroup = builder.prismaObject("EngagementAccountGroup", {
  interfaces: [Entity],
  fields: (t) => ({
    engagementAccountGroupingId: t.exposeID("engagementAccountGroupingId"),
    code: t.exposeString("code"),
    parentCode: t.exposeString("parentCode", { nullable: true }),
    description: t.field({ type: "JSON", ...shaped(LOCALIZED_TEXT), description: LANG, resolve: (g) => g.description }),
    hierarchy: t.exposeStringList("hierarchy"),
    lowestLevel: t.exposeBoolean("lowestLevel"),
    macCode: t.exposeString("macCode", { nullable: true }),
    accountTags: t.exposeStringList("accountTags"),
    orderIndex: t.exposeInt("orderIndex"),
    publishedDate: t.expose("publishedDate", { type: "DateTime", nullable: true }),
    errors: t.field({ type: [AccountGroupError], resolve: (g) => g.errors ?? [] }),
    alias: t.exposeString("alias", { nullable: true }),
    hidden: t.exposeBoolean("hidden"),
    origin: t.field({ type: GroupOrigin, resolve: (g) => g.origin as groupings.GroupOrigin }),
    engagementAccountGrouping: t.prismaField({ type: "EngagementAccountGrouping", nullable: true, authScopes: { permission: "api.engagement-account-groupings.read" }, resolve: (_q, p, _a, ctx) => entityById("engagementAccountGrouping")(ctx, p.engagementAccountGroupingId) }),
  }),
});

defineCrudFields({
  name: "EngagementAccountGroup",
  type: EngagementAccountGroup,
  columns: engagementAccountGroupColumns,
  createInput: CreateEngagementAccountGroupInput,
  updateInput: UpdateEngagementAccountGroupInput,
  permissions: { read: "api.engagement-account-groupings.read", write: "api.engagement-account-groupings.write", delete: "api.engagement-account-groupings.delete" },
  service: {
    get: groups.getEngagementAccountGroup,
    query: groups.queryEngagementAccountGroups,
    create: groups.createEngagementAccountGroup,
    update: groups.updateEngagementAccountGroup,
    delete: groups.deleteEngagementAccountGroup,
  },
});

builder.mutationFields((t) => ({
  exportEngagementAccountGrouping: t.field({
    type: AsyncResult,
    description: "Starts an ACCOUNT_GROUPING_EXPORT of the engagement's grouping (by its id, or by engagementId); the async result's entityId is the file result",
    authScopes: { permission: "api.engagement-account-groupings.read" },
    args: { id: t.arg.id(), engagementId: t.arg.id() },
    resolve: (_root, args, ctx) => startEngagementAccountGroupingExport(ctx, args),
  }),
}));

defineCrudFields({
  name: "EngagementAccountGrouping",
  type: EngagementAccountGrouping,
  columns: engagementAccountGroupingColumns,
  permissions: { read: "api.engagement-account-groupings.read" },
  service: {
    get: groupings.getEngagementAccountGrouping,
    query: groupings.queryEngagementAccountGroupings,
  },
});
