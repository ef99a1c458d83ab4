import { builder } from "../../graphql/builder.js";
import type { InputOf } from "../common/crud-fields.js";
import { REPORTING_PERIOD_TYPES } from "./reporting-period.columns.js";

export const ReportingPeriodType = builder.enumType("ReportingPeriodType", {
  description: "MONTHLY: monthly entries only; MONTHLY_AND_WEEKLY: weekly entries describe the same days",
  values: REPORTING_PERIOD_TYPES,
});

const MonthlyEntryInput = builder.inputType("MonthlyReportingPeriodInput", {
  fields: (t) => ({
    period: t.int({ required: true }),
    quarter: t.int({ required: true }),
    year: t.int({ required: true }),
    startDate: t.field({ type: "Date", required: true }),
    endDate: t.field({ type: "Date", required: true }),
  }),
});

const WeeklyEntryInput = builder.inputType("WeeklyReportingPeriodInput", {
  fields: (t) => ({
    week: t.int({ required: true }),
    year: t.int({ required: true }),
    startDate: t.field({ type: "Date", required: true }),
    endDate: t.field({ type: "Date", required: true }),
  }),
});

export const CreateReportingPeriodConfigurationInput = builder.inputType("CreateReportingPeriodConfigurationInput", {
  fields: (t) => ({
    name: t.string({ required: true }),
    originalName: t.string({ description: "Defaults to name" }),
    type: t.field({ type: ReportingPeriodType, description: "Derived from the entries when absent" }),
    monthlyEntries: t.field({ type: [MonthlyEntryInput], required: true }),
    weeklyEntries: t.field({ type: [WeeklyEntryInput] }),
  }),
});
export type CreateReportingPeriodConfigurationInput = InputOf<typeof CreateReportingPeriodConfigurationInput>;
