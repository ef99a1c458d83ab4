import { builder } from "../../graphql/builder.js";
import type { InputOf } from "../common/crud-fields.js";

export const UpdateAccountMappingInput = builder.inputType("UpdateAccountMappingInput", {
  fields: (t) => ({
    code: t.string({ description: "A lowest-level group code of the engagement's account grouping" }),
    accountTags: t.stringList(),
    version: t.int({ required: true }),
  }),
});
export type UpdateAccountMappingInput = InputOf<typeof UpdateAccountMappingInput>;
