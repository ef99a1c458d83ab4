import { builder } from "../../graphql/builder.js";
import type { InputOf } from "../common/crud-fields.js";
const NewPeriodInput = builder.inputType("CreateAnalysisPeriodInput", {
  fields: (t) => ({
    startDate: t.field({ type: "Date", required: true }),
    endDate: t.field({ type: "Date", required: true }),
    interimAsAtDate: t.field({ type: "Date", description: "Interim analyses only: the latest period's as-at date" }),
  }),
});

const PeriodInput = builder.inputType("AnalysisPeriodInput", {
  description: "With id: that period, changed; without: a new period. Stored periods left out are removed",
  fields: (t) => ({
    id: t.id(),
    startDate: t.field({ type: "Date", required: true }),
    endDate: t.field({ type: "Date", required: true }),
    interimAsAtDate: t.field({ type: "Date" }),
  }),
});

export const CreateAnalysisInput = builder.inputType("CreateAnalysisInput", {
  fields: (t) => ({
    engagementId: t.id({ required: true }),
    analysisTypeId: t.id({ required: true }),
    name: t.string({ required: true }),
    analysisPeriods: t.field({ type: [NewPeriodInput], required: true }),
    currencyCode: t.string({ description: "ISO 4217, default USD" }),
    interim: t.boolean(),
    periodic: t.boolean(),
    referenceId: t.string(),
    reportingPeriodConfigurationId: t.id({ description: "Absent: the engagement's applies" }),
  }),
});
export type CreateAnalysisInput = InputOf<typeof CreateAnalysisInput>;

export const RollForwardAnalysisInput = builder.inputType("RollForwardAnalysisInput", {
  fields: (t) => ({
    analysisId: t.id({ required: true, description: "The analysis to roll forward" }),
    targetEngagementId: t.id({ required: true, description: "Another engagement, whose library offers the analysis type" }),
    interim: t.boolean({ description: "Whether the new analysis is interim; default: as the source" }),
  }),
});
export type RollForwardAnalysisInput = InputOf<typeof RollForwardAnalysisInput>;

export const UpdateAnalysisInput = builder.inputType("UpdateAnalysisInput", {
  fields: (t) => ({
    name: t.string(),
    archived: t.boolean(),
    currencyCode: t.string(),
    analysisPeriods: t.field({ type: [PeriodInput] }),
    version: t.int({ required: true }),
  }),
});
export type UpdateAnalysisInput = InputOf<typeof UpdateAnalysisInput>;
