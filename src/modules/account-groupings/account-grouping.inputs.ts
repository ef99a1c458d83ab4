import { builder } from "../../graphql/builder.js";
import type { InputOf } from "../common/crud-fields.js";
import { LOCALIZED_TEXT, shaped } from "../common/json-shape.js";
import { IMPORT_TYPES, PUBLISH_STATUSES } from "./account-grouping.columns.js";

export const PublishStatus = builder.enumType("PublishStatus", { values: PUBLISH_STATUSES });
export const AccountGroupingImportType = builder.enumType("AccountGroupingImportType", { values: IMPORT_TYPES });

export const LANG = "Text per language code, e.g. {\"en\": \"Assets\"}";

export const UpdateAccountGroupingInput = builder.inputType("UpdateAccountGroupingInput", {
  fields: (t) => ({
    name: t.field({ type: "JSON", ...shaped(LOCALIZED_TEXT), description: LANG }),
    archived: t.boolean(),
    publishStatus: t.field({ type: PublishStatus, description: "Only PUBLISHED can be set, and only when no group has errors" }),
    version: t.int({ required: true }),
  }),
});

export const ImportAccountGroupingInput = builder.inputType("ImportAccountGroupingInput", {
  fields: (t) => ({
    chunkedFileId: t.id({ required: true, description: "A completed chunked file holding the grouping file" }),
    name: t.string({ required: true, description: "Name of the new grouping (stored as {\"en\": name})" }),
    type: t.field({ type: AccountGroupingImportType, required: true, description: "PLATFORM_TEMPLATE (.xlsx) or CCH_GROUP_TRIAL_BALANCE (.xlsx or .csv)" }),
  }),
});

export const UpdateAccountGroupInput = builder.inputType("UpdateAccountGroupInput", {
  fields: (t) => ({
    macCode: t.string({ description: "An account-classification (MAC) code; lowest-level groups need a level-4 one" }),
    accountTags: t.stringList(),
    // Wire reference 9.11: group updates may come without version; when given it must match.
    version: t.int({ description: "Optional; when given it must be the latest" }),
  }),
});

export type UpdateAccountGroupingInput = InputOf<typeof UpdateAccountGroupingInput>;
export type ImportAccountGroupingInput = InputOf<typeof ImportAccountGroupingInput>;
export type UpdateAccountGroupInput = InputOf<typeof UpdateAccountGroupInput>;
