import { builder } from "../../graphql/builder.js";
import type { InputOf } from "../common/crud-fields.js";
import { LOCALIZED_TEXT, shaped } from "../common/json-shape.js";
import { LANG } from "../account-groupings/account-grouping.inputs.js";

export const CreateEngagementAccountGroupInput = builder.inputType("CreateEngagementAccountGroupInput", {
  fields: (t) => ({
    engagementAccountGroupingId: t.id({ required: true }),
    code: t.string({ required: true }),
    parentCode: t.string({ description: "Code of an existing group; absent for a level-1 group" }),
    description: t.field({ type: "JSON", ...shaped(LOCALIZED_TEXT), description: LANG }),
    alias: t.string(),
    hidden: t.boolean(),
    macCode: t.string(),
  }),
});

export const UpdateEngagementAccountGroupInput = builder.inputType("UpdateEngagementAccountGroupInput", {
  fields: (t) => ({
    alias: t.string(),
    code: t.string({ description: "A new code follows to child groups and account mappings" }),
    hidden: t.boolean(),
    macCode: t.string(),
    // Wire reference 9.11: may be absent; when given it must be the latest.
    version: t.int({ description: "Optional; when given it must be the latest" }),
  }),
});

export type CreateEngagementAccountGroupInput = InputOf<typeof CreateEngagementAccountGroupInput>;
export type UpdateEngagementAccountGroupInput = InputOf<typeof UpdateEngagementAccountGroupInput>;
