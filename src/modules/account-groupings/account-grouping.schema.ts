import { defineCrudFields } from "../common/crud-fields.js";
import { builder } from "../../graphql/builder.js";
import { accountGroupingColumns } from "./account-grouping.columns.js";
import { accountGroupColumns, PUBLISH_STATUSES } from "./account-grouping.columns.js";
import { Entity } from "../common/entity.js";
import { relatedListArgs } from "../common/page.js";
import * as groupings from "./account-grouping.service.js";
import * as groups from "./account-group.service.js";
import { LOCALIZED_TEXT, shaped } from "../common/json-shape.js";
import { ImportAccountGroupingInput, LANG, PublishStatus, UpdateAccountGroupInput, UpdateAccountGroupingInput } from "./account-grouping.inputs.js";
import type { GroupError } from "./grouping-tree.js";
import { AsyncResult } from "../async-results/async-result.schema.js";
import { appendAccountGroupingFromChunkedFile, importAccountGroupingFromChunkedFile } from "./account-grouping.chunked-import.js";
import { startAccountGroupingExport } from "./account-grouping.export.js";
import { entityById } from "../common/relations.js";

export const AccountGroupErrorType = builder.enumType("AccountGroupErrorType", {
  values: ["ERROR_LOWEST_LEVEL_WITH_NO_MAC", "ERROR_LOWEST_LEVEL_WITHOUT_LEVEL_4_MAC", "ERROR_INCONSISTENT_SHEET_HIERARCHY"] as const,
});

export const AccountGroupError = builder.objectRef<GroupError>("AccountGroupError").implement({
  description: "A rule a group breaks; the grouping cannot be published while any group has one",
  fields: (t) => ({
    type: t.field({ type: AccountGroupErrorType, resolve: (e) => e.type }),
    arguments: t.exposeStringList("arguments"),
  }),
});


export const AccountGrouping = builder.prismaObject("AccountGrouping", {
  interfaces: [Entity],
  fields: (t) => ({
    name: t.field({ type: "JSON", ...shaped(LOCALIZED_TEXT), description: LANG, resolve: (g) => g.name }),
    codeDisplayName: t.field({ type: "JSON", ...shaped(LOCALIZED_TEXT), description: LANG, resolve: (g) => g.codeDisplayName }),
    delimiter: t.exposeString("delimiter"),
    mac: t.exposeBoolean("mac", { description: "True for the account-classification (MAC) tree itself" }),
    system: t.exposeBoolean("system"),
    archived: t.exposeBoolean("archived"),
    publishStatus: t.field({ type: PublishStatus, resolve: (g) => g.publishStatus as (typeof PUBLISH_STATUSES)[number] }),
    publishedDate: t.expose("publishedDate", { type: "DateTime", nullable: true }),
    groups: t.prismaField({
      type: ["AccountGroup"],
      description: "The grouping's groups in tree order (orderIndex) unless sorted otherwise",
      authScopes: { permission: "api.account-groupings.read" },
      args: relatedListArgs(t),
      resolve: (_query, grouping, args, ctx) => groups.accountGroupingGroups(ctx, grouping.id, args),
    }),
  }),
});

export const AccountGroup = builder.prismaObject("AccountGroup", {
  interfaces: [Entity],
  fields: (t) => ({
    accountGroupingId: t.exposeID("accountGroupingId"),
    code: t.exposeString("code"),
    parentCode: t.exposeString("parentCode", { nullable: true }),
    description: t.field({ type: "JSON", ...shaped(LOCALIZED_TEXT), description: LANG, resolve: (g) => g.description }),
    hierarchy: t.exposeStringList("hierarchy", { description: "Codes from the level-1 ancestor down to this group" }),
    lowestLevel: t.exposeBoolean("lowestLevel"),
    macCode: t.exposeString("macCode", { nullable: true }),
    accountTags: t.exposeStringList("accountTags"),
    orderIndex: t.exposeInt("orderIndex"),
    publishedDate: t.expose("publishedDate", { type: "DateTime", nullable: true }),
    errors: t.field({ type: [AccountGroupError], resolve: (g) => g.errors ?? [] }),
    accountGrouping: t.prismaField({ type: "AccountGrouping", nullable: true, authScopes: { permission: "api.account-groupings.read" }, resolve: (_q, p, _a, ctx) => entityById("accountGrouping")(ctx, p.accountGroupingId) }),
  }),
});

defineCrudFields({
  name: "AccountGroup",
  type: AccountGroup,
  columns: accountGroupColumns,
  updateInput: UpdateAccountGroupInput,
  permissions: { read: "api.account-groupings.read", write: "api.account-groupings.write" },
  service: {
    get: groups.getAccountGroup,
    query: groups.queryAccountGroups,
    update: groups.updateAccountGroup,
  },
});

builder.mutationFields((t) => ({
  importAccountGrouping: t.field({
    type: AccountGrouping,
    description: "Creates a DRAFT grouping from a grouping file uploaded as a chunked file; 400 INVALID_ACCOUNT_GROUPING_FILE when it cannot be read as the layout",
    authScopes: { permission: "api.account-groupings.write" },
    args: { input: t.arg({ type: ImportAccountGroupingInput, required: true }) },
    resolve: (_root, { input }, ctx) => importAccountGroupingFromChunkedFile(ctx, input),
  }),
  appendAccountGroupingFromChunkedFile: t.field({
    type: AccountGrouping,
    description: "Reads a template workbook (typically an edited export) into the grouping: new codes are added, named codes updated, others kept",
    authScopes: { permission: "api.account-groupings.write" },
    args: { id: t.arg.id({ required: true }), chunkedFileId: t.arg.id({ required: true }) },
    resolve: (_root, { id, chunkedFileId }, ctx) => appendAccountGroupingFromChunkedFile(ctx, id, chunkedFileId),
  }),
  exportAccountGrouping: t.field({
    type: AsyncResult,
    description: "Starts an ACCOUNT_GROUPING_EXPORT: the grouping as a template workbook, in the file result named by the async result's entityId",
    authScopes: { permission: "api.account-groupings.read" },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => startAccountGroupingExport(ctx, id),
  }),
}));

defineCrudFields({
  name: "AccountGrouping",
  type: AccountGrouping,
  columns: accountGroupingColumns,
  updateInput: UpdateAccountGroupingInput,
  permissions: { read: "api.account-groupings.read", write: "api.account-groupings.write", delete: "api.account-groupings.delete" },
  service: {
    get: groupings.getAccountGrouping,
    query: groupings.queryAccountGroupings,
    update: groupings.updateAccountGrouping,
    delete: groupings.deleteAccountGrouping,
  },
});
