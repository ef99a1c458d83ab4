import { Readable } from "node:stream";
import { ValidationError } from "../../core/errors.js";
import { inTransaction } from "../../events/outbox.js";
import type { RequestContext } from "../../graphql/context.js";
import { defineJob, jobStarter } from "../../jobs/index.js";
import { startFileResultJob, writeFileResult } from "../file-results/file-result.service.js";
import { activityRows, analysisOverviewRows, rowUsageRows } from "./admin-report.queries.js";
import { workbookOf } from "./admin-report.workbook.js";

const XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
const DATE = "yyyy-mm-dd";
const DATE_TIME = "yyyy-mm-dd hh:mm:ss";
/** DATE columns come back from pg as YYYY-MM-DD text; the sheet gets real dates. */
const day = (v: unknown) => (typeof v === "string" ? new Date(`${v}T00:00:00Z`) : v);
const n = (v: unknown) => (v === null || v === undefined ? null : Number(v));

/** The leading columns of the reports that have a row per engagement (analysis overview, row usage). */
const ENGAGEMENT_COLUMNS = [
  { header: "Organization", key: "organization", width: 28 },
  { header: "Organization id", key: "organization_id", width: 26 },
  { header: "Engagement", key: "engagement", width: 28 },
  { header: "Engagement id", key: "engagement_id", width: 26 },
];

/** ADMIN_REPORT: one row per analysis with its latest run and entry counts per risk level. */
export const analysisOverviewJob = defineJob<Record<string, never>>({
  name: "admin-reports.analysis-overview",
  type: "ADMIN_REPORT",
  retry: { attempts: 3, backoffSeconds: 5 },
  async run(ctx) {
    ctx.progress(1, "reading analyses");
    const rows = (await analysisOverviewRows(ctx.app.pool)).map((r) => ({
      ...r,
      archived: r.archived ? "yes" : "no",
      period_start: day(r.period_start),
      period_end: day(r.period_end),
      entries: n(r.entries),
      transactions: n(r.transactions),
      high: n(r.high),
      medium: n(r.medium),
      low: n(r.low),
      unscored: n(r.unscored),
    }));
    const bytes = await workbookOf([
      {
        name: "Analysis overview",
        columns: [
          ...ENGAGEMENT_COLUMNS,
          { header: "Analysis", key: "analysis", width: 28 },
          { header: "Analysis id", key: "analysis_id", width: 26 },
          { header: "Analysis type", key: "analysis_type", width: 28 },
          { header: "Archived", key: "archived" },
          { header: "Period start", key: "period_start", numFmt: DATE },
          { header: "Period end", key: "period_end", numFmt: DATE },
          { header: "Last run", key: "last_run", width: 20, numFmt: DATE_TIME },
          { header: "Last run status", key: "last_run_status", width: 16 },
          { header: "Entries", key: "entries" },
          { header: "Transactions", key: "transactions" },
          { header: "High risk entries", key: "high", width: 18 },
          { header: "Medium risk entries", key: "medium", width: 20 },
          { header: "Low risk entries", key: "low", width: 18 },
          { header: "Unscored entries", key: "unscored", width: 18 },
        ],
        rows,
      },
    ]);
    await writeFileResult(ctx, Readable.from([bytes]));
  },
});

interface ActivityPayload {
  start: string;
  end: string;
  userIds: string[];
  categories: string[];
  onlyCompletedAnalyses: boolean;
}

export const activityReportJob = defineJob<ActivityPayload>({
  name: "admin-reports.activity",
  type: "ADMIN_REPORT",
  retry: { attempts: 3, backoffSeconds: 5 },
  async run(ctx, p) {
    const rows = await activityRows(ctx.app.pool, { ...p, start: new Date(p.start), end: new Date(p.end) });
    const bytes = await workbookOf([
      {
        name: "Activity",
        columns: [
          { header: "Time (UTC)", key: "created_at", width: 20, numFmt: DATE_TIME },
          { header: "User id", key: "user_id", width: 26 },
          { header: "User", key: "user_name", width: 28 },
          { header: "Category", key: "category", width: 22 },
          { header: "Action", key: "type", width: 28 },
          { header: "Item type", key: "entity_type", width: 24 },
          { header: "Item id", key: "entity_id", width: 26 },
        ],
        rows,
      },
    ]);
    await writeFileResult(ctx, Readable.from([bytes]));
  },
});

export const rowUsageReportJob = defineJob<{ start: string; end: string }>({
  name: "admin-reports.row-usage",
  type: "ADMIN_REPORT",
  retry: { attempts: 3, backoffSeconds: 5 },
  async run(ctx, p) {
    const rows = (await rowUsageRows(ctx.app.pool, { start: new Date(p.start), end: new Date(p.end) })).map((r) => ({ ...r, sources: n(r.sources), rows_ingested: n(r.rows_ingested), runs: n(r.runs), rows_analysed: n(r.rows_analysed) }));
    const bytes = await workbookOf([
      {
        name: "Row usage",
        columns: [
          ...ENGAGEMENT_COLUMNS,
          { header: "Billing code", key: "billing_code", width: 16 },
          { header: "Sources ingested", key: "sources", width: 18 },
          { header: "Rows ingested", key: "rows_ingested", width: 16 },
          { header: "Analysis runs", key: "runs", width: 16 },
          { header: "Rows analysed", key: "rows_analysed", width: 16 },
        ],
        rows,
      },
    ]);
    await writeFileResult(ctx, Readable.from([bytes]));
  },
});

const stamp = () => new Date().toISOString().slice(0, 19).replace(/[-:T]/g, "");

export function runAnalysisOverviewReport(ctx: RequestContext) {
  const startedBy = jobStarter(ctx);
  return inTransaction(ctx.app, (tx) => startFileResultJob(tx, { job: analysisOverviewJob, payload: {}, fileName: `analysis-overview-report-${stamp()}.xlsx`, contentType: XLSX, startedBy }));
}

function checkWindow(input: { start: Date; end: Date }) {
  if (!(input.start < input.end)) throw new ValidationError("end must be after start", { identifier: "end", values: [input.end.toISOString()] });
}

export function runActivityReport(ctx: RequestContext, input: { start: Date; end: Date; userIds?: string[] | null; categories?: string[] | null; onlyCompletedAnalyses?: boolean | null }) {
  checkWindow(input);
  const payload: ActivityPayload = { start: input.start.toISOString(), end: input.end.toISOString(), userIds: [...(input.userIds ?? [])], categories: [...(input.categories ?? [])], onlyCompletedAnalyses: input.onlyCompletedAnalyses ?? false };
  const startedBy = jobStarter(ctx);
  return inTransaction(ctx.app, (tx) => startFileResultJob(tx, { job: activityReportJob, payload, fileName: `activity-report-${stamp()}.xlsx`, contentType: XLSX, startedBy }));
}

export function runRowUsageReport(ctx: RequestContext, input: { start: Date; end: Date }) {
  checkWindow(input);
  const startedBy = jobStarter(ctx);
  return inTransaction(ctx.app, (tx) => startFileResultJob(tx, { job: rowUsageReportJob, payload: { start: input.start.toISOString(), end: input.end.toISOString() }, fileName: `row-usage-report-${stamp()}.xlsx`, contentType: XLSX, startedBy }));
}

/** Wire reference 7: activity categories. */
export const ACTIVITY_CATEGORIES = [
  "ACCOUNT_GROUPING", "ACCOUNT_MAPPING", "ADMIN_REPORT", "ANALYSIS", "ANALYSIS_SETTINGS", "ANALYSIS_TYPE", "API_TOKEN", "AUDIT_ANNOTATION",
  "COLLECTION_ASSIGNMENT", "CUSTOM_CONTROL_POINT", "ENGAGEMENT", "ENGAGEMENT_ACCOUNT_GROUP", "FILE_LOCKER", "FILE_MANAGER", "FILTER", "GDPDU",
  "INGESTION", "INTEGRATIONS", "LIBRARY", "MIGRATION", "ORGANIZATION", "POPULATION", "QUERY", "RATIO", "REPORT_BUILDER", "REPORT",
  "RESULTS_EXPORT", "RISK_RANGES", "RISK_SEGMENTATION_DASHBOARD", "SCIM_API", "SUPPORT_ACCESS", "TASK", "USER", "WORKFLOW", "PAGE_VIEW",
  "ANALYSIS_SOURCE", "WEBHOOK", "CLOUD_ELEMENTS", "ENGAGEMENT_ACCOUNT_GROUPING_NODE",
] as const;
