import "./admin-report.schema.js";
import { defineFamily } from "../family.js";
import { adminReportRoutes } from "./admin-report.routes.js";
import { activityReportJob, analysisOverviewJob, rowUsageReportJob } from "./admin-report.service.js";

export const adminReportsFamily = defineFamily({
  name: "admin-reports",
  routes: adminReportRoutes,
  jobs: [analysisOverviewJob, activityReportJob, rowUsageReportJob],
});
