import { builder } from "../../graphql/builder.js";
import type { InputOf } from "../common/crud-fields.js";
import { FILTER_DATA_TYPES, FILTER_TYPES } from "./saved-filter.columns.js";

export const LANG = "Language code -> text";
export const CONDITION = "Condition tree of spec 2.9 (the top level a GROUP); reads add fullConditionDescription to every condition";

export const FilterType = builder.enumType("FilterType", { values: FILTER_TYPES });
export const FilterDataType = builder.enumType("FilterDataType", { values: FILTER_DATA_TYPES });

export const CreateSavedFilterInput = builder.inputType("CreateSavedFilterInput", {
  description: "LIBRARY filters need libraryId, ORGANIZATION organizationId, ENGAGEMENT engagementId; PRIVATE ones are seen only by their creator",
  fields: (t) => ({
    name: t.field({ type: "JSON", required: true, description: LANG }),
    category: t.field({ type: "JSON", description: LANG }),
    filterType: t.field({ type: FilterType, required: true }),
    dataType: t.field({ type: FilterDataType, required: true }),
    libraryId: t.id(),
    organizationId: t.id(),
    engagementId: t.id(),
    analysisTypeId: t.id(),
    condition: t.field({ type: "JSON", required: true, description: CONDITION }),
    displayCurrencyCode: t.string(),
    displayLocale: t.string(),
  }),
});
export type CreateSavedFilterInput = InputOf<typeof CreateSavedFilterInput>;

export const UpdateSavedFilterInput = builder.inputType("UpdateSavedFilterInput", {
  fields: (t) => ({
    name: t.field({ type: "JSON", description: LANG }),
    category: t.field({ type: "JSON", description: LANG }),
    filterType: t.field({ type: FilterType }),
    condition: t.field({ type: "JSON", description: CONDITION }),
    displayCurrencyCode: t.string(),
    displayLocale: t.string(),
    version: t.int({ required: true }),
  }),
});
export type UpdateSavedFilterInput = InputOf<typeof UpdateSavedFilterInput>;
