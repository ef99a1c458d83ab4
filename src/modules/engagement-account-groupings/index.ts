import "./engagement-account-grouping.schema.js";
import { defineFamily } from "../family.js";
import { engagementAccountGroupingRoutes } from "./engagement-account-grouping.routes.js";
import { engagementAccountGroupingExportJob } from "./engagement-account-grouping.export.js";

export const engagementAccountGroupingsFamily = defineFamily({
  name: "engagement-account-groupings",
  routes: engagementAccountGroupingRoutes,
  jobs: [engagementAccountGroupingExportJob],
  events: ["engagement-account-group.created", "engagement-account-group.updated", "engagement-account-group.deleted"],
});
