import { builder } from "../../graphql/builder.js";
import type { InputOf } from "../common/crud-fields.js";

export const SegmentInput = builder.inputType("RiskSegmentInput", {
  fields: (t) => ({ name: t.string({ required: true }), rangeStart: t.int({ required: true }), rangeEnd: t.int({ required: true }) }),
});

export const CreateRiskSegmentationConfigInput = builder.inputType("CreateRiskSegmentationConfigInput", {
  description: "A saved Risk Segmentation dashboard view of one analysis's result (default: its latest); never updated",
  fields: (t) => ({
    name: t.string({ required: true }),
    analysisId: t.id({ required: true }),
    analysisResultId: t.id(),
    dataTableLogicalName: t.string({ description: "Default gl_journal_lines" }),
    riskScoreId: t.string({ description: "Score column segmented (default risk)" }),
    segments: t.field({ type: [SegmentInput], required: true, description: "Score bands (PERCENTAGE_FIXED_POINT 0..10000), not overlapping" }),
    summaryColumns: t.stringList({ description: "Numeric columns summed per segment" }),
    dashboardFilters: t.field({ type: "JSON", description: "Query-language filter over the table" }),
  }),
});
export type CreateRiskSegmentationConfigInput = InputOf<typeof CreateRiskSegmentationConfigInput>;
