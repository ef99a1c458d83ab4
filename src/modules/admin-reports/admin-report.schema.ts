import { builder } from "../../graphql/builder.js";
import { AsyncResult } from "../async-results/async-result.schema.js";
import * as service from "./admin-report.service.js";

const ActivityCategory = builder.enumType("ActivityCategory", { values: service.ACTIVITY_CATEGORIES });

const ActivityReportInput = builder.inputType("ActivityReportInput", {
  fields: (t) => ({
    start: t.field({ type: "DateTime", required: true }),
    end: t.field({ type: "DateTime", required: true }),
    userIds: t.idList({ description: "Only these users' actions (default: everyone's)" }),
    categories: t.field({ type: [ActivityCategory], description: "Only these categories (default: all)" }),
    onlyCompletedAnalyses: t.boolean({ description: "Leave out analysis activity of analyses without a completed run" }),
  }),
});

const RowUsageReportInput = builder.inputType("RowUsageReportInput", {
  fields: (t) => ({
    start: t.field({ type: "DateTime", required: true }),
    end: t.field({ type: "DateTime", required: true }),
  }),
});

const DESCRIPTION = "Starts an ADMIN_REPORT job writing an .xlsx file result (visible to this token only)";

builder.mutationFields((t) => ({
  runAnalysisOverviewReport: t.field({
    type: AsyncResult,
    description: `${DESCRIPTION}: one row per analysis with organization, engagement, type, period, last run, entry counts and counts per risk level`,
    authScopes: { permission: "api.admin-reports.run" },
    resolve: (_root, _args, ctx) => service.runAnalysisOverviewReport(ctx),
  }),
  runActivityReport: t.field({
    type: AsyncResult,
    description: `${DESCRIPTION}: who did what in the window, from the audit trail`,
    authScopes: { permission: "api.admin-reports.run" },
    args: { input: t.arg({ type: ActivityReportInput, required: true }) },
    resolve: (_root, { input }, ctx) => service.runActivityReport(ctx, input),
  }),
  runRowUsageReport: t.field({
    type: AsyncResult,
    description: `${DESCRIPTION}: rows ingested and analysed per organization and engagement in the window`,
    authScopes: { permission: "api.admin-reports.run" },
    args: { input: t.arg({ type: RowUsageReportInput, required: true }) },
    resolve: (_root, { input }, ctx) => service.runRowUsageReport(ctx, input),
  }),
}));
