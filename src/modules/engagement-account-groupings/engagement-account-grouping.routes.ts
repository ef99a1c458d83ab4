import { crudRoutes } from "../../../rest/route-helpers.js";

export const engagementAccountGroupingRoutes = [
  ...crudRoutes({ resource: "engagement-account-groupings", idParam: "engagementAccountGroupingId", entity: "EngagementAccountGrouping", tag: "Engagement account groupings", ops: ["read", "query"] }),
  ...crudRoutes({ resource: "engagement-account-groups", idParam: "engagementAccountGroupId", entity: "EngagementAccountGroup", tag: "Engagement account groupings" }),
];
