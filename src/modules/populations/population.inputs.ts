import { builder } from "../../graphql/builder.js";
import type { InputOf } from "../common/crud-fields.js";

export const CONDITION = "Condition tree of spec 2.9 without the population-only fields (populations, account tags, status, risk_range); reads add fullConditionDescription";

export const CreatePopulationInput = builder.inputType("CreatePopulationInput", {
  description: "Give exactly one of libraryId, engagementId, analysisId; basePopulationId derives from a population one level up (its condition unless one is given)",
  fields: (t) => ({
    name: t.string({ required: true }),
    description: t.string(),
    category: t.string(),
    libraryId: t.id(),
    engagementId: t.id(),
    analysisId: t.id(),
    analysisTypeId: t.id(),
    basePopulationId: t.id(),
    condition: t.field({ type: "JSON", description: CONDITION }),
    disabled: t.boolean(),
    displayCurrencyCode: t.string(),
    displayLocale: t.string(),
  }),
});
export type CreatePopulationInput = InputOf<typeof CreatePopulationInput>;

export const UpdatePopulationInput = builder.inputType("UpdatePopulationInput", {
  fields: (t) => ({
    name: t.string(),
    description: t.string(),
    category: t.string(),
    condition: t.field({ type: "JSON", description: CONDITION }),
    disabled: t.boolean(),
    reasonForChange: t.string(),
    displayCurrencyCode: t.string(),
    displayLocale: t.string(),
    version: t.int({ required: true }),
  }),
});
export type UpdatePopulationInput = InputOf<typeof UpdatePopulationInput>;
