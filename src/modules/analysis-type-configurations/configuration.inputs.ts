import { builder } from "../../graphql/builder.js";
import { INTEGER, mapOf, shaped } from "../common/json-shape.js";
import type { InputOf } from "../common/crud-fields.js";

const RiskGroupFilterInput = builder.inputType("RiskGroupFilterInput", { fields: (t) => ({ values: t.stringList({ required: true }) }) });

export const RiskGroupUpdateInput = builder.inputType("RiskGroupUpdateInput", {
  fields: (t) => ({
    id: t.id({ required: true }),
    disabled: t.boolean(),
    controlPointWeights: t.field({ type: "JSON", ...shaped(mapOf(INTEGER)), description: "Control point -> integer weight (0..100); merged into the stored weights" }),
    filter: t.field({ type: RiskGroupFilterInput }),
    applicableRiskRanges: t.idList(),
    selectedRiskRange: t.id(),
  }),
});
export type RiskGroupUpdate = InputOf<typeof RiskGroupUpdateInput>;

const ConfigurationUpdateInput = builder.inputType("AnalysisTypeConfigurationSettingsInput", {
  fields: (t) => ({
    riskGroups: t.field({ type: [RiskGroupUpdateInput] }),
    controlPointSettings: t.field({ type: "JSON", description: "Control point name (or general) -> {setting: value}; merged into the stored settings" }),
    customControlPoints: t.field({ type: "JSON", description: "The full list of custom control points [{id: custom_..., name, status, rules: [{debit, credit, rating}], unexpectedFlowRating}]" }),
  }),
});

export const UpdateAnalysisTypeConfigurationInput = builder.inputType("UpdateAnalysisTypeConfigurationInput", {
  fields: (t) => ({
    configuration: t.field({ type: ConfigurationUpdateInput }),
    system: t.boolean({ description: "true resets weights, filters and enablement to the system defaults before applying riskGroups" }),
    version: t.int({ required: true }),
  }),
});
export type UpdateAnalysisTypeConfigurationInput = InputOf<typeof UpdateAnalysisTypeConfigurationInput>;
