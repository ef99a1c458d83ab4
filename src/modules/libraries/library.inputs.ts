import { builder, type AppSchemaTypes } from "../../graphql/builder.js";
import type { InputOf } from "../common/crud-fields.js";
import { RISK_SCORE_DISPLAYS } from "./library.columns.js";

export const RiskScoreDisplay = builder.enumType("RiskScoreDisplay", { values: RISK_SCORE_DISPLAYS });

const settings = (t: PothosSchemaTypes.InputFieldBuilder<AppSchemaTypes, "InputObject">) => ({
  defaultDelimiter: t.string(),
  riskScoreDisplay: t.field({ type: RiskScoreDisplay }),
  controlPointSelectionPermission: t.boolean(),
  controlPointSettingsPermission: t.boolean(),
  controlPointWeightPermission: t.boolean(),
  riskRangeEditPermission: t.boolean(),
  riskScoreAndGroupsSelectionPermission: t.boolean(),
  warningsDismissed: t.boolean(),
});

export const CreateLibraryInput = builder.inputType("CreateLibraryInput", {
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
export type CreateLibraryInput = InputOf<typeof CreateLibraryInput>;

export const UpdateLibraryInput = builder.inputType("UpdateLibraryInput", {
  fields: (t) => ({
    name: t.string(),
    analysisTypeIds: t.idList(),
    archived: t.boolean(),
    ...settings(t),
    version: t.int({ required: true }),
  }),
});
export type UpdateLibraryInput = InputOf<typeof UpdateLibraryInput>;
