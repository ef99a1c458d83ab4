import { defineCrudFields } from "../common/crud-fields.js";
import { builder } from "../../graphql/builder.js";
import { reportingPeriodColumns } from "./reporting-period.columns.js";
import { Entity } from "../common/entity.js";
import type { MonthlyEntry, WeeklyEntry } from "./reporting-period.rules.js";
import { REPORTING_PERIOD_TYPES } from "./reporting-period.columns.js";
import * as service from "./reporting-period.service.js";

const ReportingPeriodType = builder.enumType("ReportingPeriodType", {
  description: "MONTHLY: monthly entries only; MONTHLY_AND_WEEKLY: weekly entries describe the same days",
  values: REPORTING_PERIOD_TYPES,
});

const MonthlyReportingPeriod = builder.objectRef<MonthlyEntry>("MonthlyReportingPeriod").implement({
  fields: (t) => ({
    period: t.exposeInt("period"),
    quarter: t.exposeInt("quarter"),
    year: t.exposeInt("year"),
    startDate: t.expose("startDate", { type: "Date" }),
    endDate: t.expose("endDate", { type: "Date" }),
  }),
});

const WeeklyReportingPeriod = builder.objectRef<WeeklyEntry>("WeeklyReportingPeriod").implement({
  fields: (t) => ({
    week: t.exposeInt("week"),
    year: t.exposeInt("year"),
    startDate: t.expose("startDate", { type: "Date" }),
    endDate: t.expose("endDate", { type: "Date" }),
  }),
});

export const ReportingPeriodConfiguration = builder.prismaObject("ReportingPeriodConfiguration", {
  interfaces: [Entity],
  fields: (t) => ({
    name: t.exposeString("name"),
    originalName: t.exposeString("originalName", { nullable: true }),
    type: t.field({ type: ReportingPeriodType, resolve: (c) => c.type as "MONTHLY" | "MONTHLY_AND_WEEKLY" }),
    monthlyEntries: t.field({ type: [MonthlyReportingPeriod], resolve: (c) => c.monthlyEntries }),
    weeklyEntries: t.field({ type: [WeeklyReportingPeriod], resolve: (c) => c.weeklyEntries }),
  }),
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

const CreateReportingPeriodConfigurationInput = builder.inputType("CreateReportingPeriodConfigurationInput", {
  fields: (t) => ({
    name: t.string({ required: true }),
    originalName: t.string({ description: "Defaults to name" }),
    type: t.field({ type: ReportingPeriodType, description: "Derived from the entries when absent" }),
    monthlyEntries: t.field({ type: [MonthlyEntryInput], required: true }),
    weeklyEntries: t.field({ type: [WeeklyEntryInput] }),
  }),
});

defineCrudFields({
  name: "ReportingPeriodConfiguration",
  type: ReportingPeriodConfiguration,
  columns: reportingPeriodColumns,
  createInput: CreateReportingPeriodConfigurationInput,
  permissions: { read: "api.reporting-period-configurations.read", write: "api.reporting-period-configurations.write", delete: "api.reporting-period-configurations.delete" },
  service: {
    get: service.getReportingPeriodConfiguration,
    query: service.queryReportingPeriodConfigurations,
    create: service.createReportingPeriodConfiguration,
    delete: service.deleteReportingPeriodConfiguration,
  },
});
