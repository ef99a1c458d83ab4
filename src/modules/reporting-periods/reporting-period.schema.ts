import { builder } from "../../graphql/builder.js";
import { whereArg } from "../common/where.js";
import { reportingPeriodColumns } from "./reporting-period.columns.js";
import { Entity } from "../common/entity.js";
import { DeleteResult } from "../common/delete-result.js";
import { pageArgs, pageOf } from "../common/page.js";
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

builder.queryFields((t) => ({
  reportingPeriodConfiguration: t.field({
    type: ReportingPeriodConfiguration,
    authScopes: { permission: "api.reporting-period-configurations.read" },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => service.getReportingPeriodConfiguration(ctx, id),
  }),
  reportingPeriodConfigurations: t.field({
    type: pageOf(ReportingPeriodConfiguration, "ReportingPeriodConfigurationPage"),
    authScopes: { permission: "api.reporting-period-configurations.read" },
    args: { ...pageArgs(t), ...whereArg(t, "ReportingPeriodConfiguration", reportingPeriodColumns) },
    resolve: (_root, args, ctx) => service.queryReportingPeriodConfigurations(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  createReportingPeriodConfiguration: t.field({
    type: ReportingPeriodConfiguration,
    authScopes: { permission: "api.reporting-period-configurations.write" },
    args: { input: t.arg({ type: CreateReportingPeriodConfigurationInput, required: true }) },
    resolve: (_root, { input }, ctx) => service.createReportingPeriodConfiguration(ctx, input),
  }),
  deleteReportingPeriodConfiguration: t.field({
    type: DeleteResult,
    authScopes: { permission: "api.reporting-period-configurations.delete" },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => service.deleteReportingPeriodConfiguration(ctx, id),
  }),
}));
