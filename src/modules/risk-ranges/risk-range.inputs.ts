import { builder } from "../../graphql/builder.js";
import type { InputOf } from "../common/crud-fields.js";

export const RiskRangeBoundInput = builder.inputType("RiskRangeBoundInput", {
  fields: (t) => ({
    lowThreshold: t.int({ required: true }),
    highThreshold: t.int({ required: true }),
  }),
});

export const CreateRiskRangeInput = builder.inputType("CreateRiskRangeInput", {
  description: "Give exactly one of libraryId and engagementId",
  fields: (t) => ({
    name: t.string({ required: true }),
    description: t.string(),
    analysisTypeId: t.id({ required: true }),
    libraryId: t.id(),
    engagementId: t.id(),
    low: t.field({ type: RiskRangeBoundInput, required: true }),
    medium: t.field({ type: RiskRangeBoundInput, required: true }),
    high: t.field({ type: RiskRangeBoundInput, required: true }),
  }),
});

export const UpdateRiskRangeInput = builder.inputType("UpdateRiskRangeInput", {
  fields: (t) => ({
    name: t.string(),
    description: t.string(),
    low: t.field({ type: RiskRangeBoundInput }),
    medium: t.field({ type: RiskRangeBoundInput }),
    high: t.field({ type: RiskRangeBoundInput }),
    version: t.int({ required: true }),
  }),
});
export type CreateRiskRangeInput = InputOf<typeof CreateRiskRangeInput>;
export type UpdateRiskRangeInput = InputOf<typeof UpdateRiskRangeInput>;
