import { route, type RouteDef } from "../../../rest/route-helpers.js";

const tag = "Admin reports";

export const adminReportRoutes: RouteDef[] = [
  route({ method: "POST", path: "/admin-reports/analysis-overview-report/run", operation: "mutation", field: "runAnalysisOverviewReport", args: {}, summary: "Run the analysis overview report (.xlsx; async result ADMIN_REPORT, target a FILE_RESULT)", tag }),
  route({ method: "POST", path: "/admin-reports/activity-report/run", operation: "mutation", field: "runActivityReport", args: { input: { from: "body" } }, summary: "Run the activity report {start, end, userIds, categories, onlyCompletedAnalyses} (.xlsx; async result ADMIN_REPORT)", tag }),
  route({ method: "POST", path: "/admin-reports/row-usage-report/run", operation: "mutation", field: "runRowUsageReport", args: { input: { from: "body" } }, summary: "Run the row usage report {start, end} (.xlsx; async result ADMIN_REPORT)", tag }),
];
