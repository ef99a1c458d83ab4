import { defineCrudFields } from "../common/crud-fields.js";
import { builder } from "../../graphql/builder.js";
import { reportingPeriodColumns } from "./reporting-period.columns.js";
import { Entity } from "../common/entity.js";
import type { MonthlyEntry, WeeklyEntry } from "./reporting-period.rules.js";
import { CreateReportingPeriodConfigurationInput, ReportingPeriodType } from "./reporting-period.inputs.js";
import * as service from "./reporting-period.service.js";

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
    type: t.field({ type: ReportingPeriodType, resolve: (c) => c.type }),
    monthlyEntries: t.field({ type: [MonthlyReportingPeriod], resolve: (c) => c.monthlyEntries }),
    weeklyEntries: t.field({ type: [WeeklyReportingPeriod], resolve: (c) => c.weeklyEntries }),
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
