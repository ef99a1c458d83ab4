import { crudRoutes, route } from "../../../rest/route-helpers.js";

export const engagementAccountGroupingRoutes = [
  ...crudRoutes({ resource: "engagement-account-groupings", idParam: "engagementAccountGroupingId", entity: "EngagementAccountGrouping", tag: "Engagement account groupings", ops: ["read", "query"] }),
  ...crudRoutes({ resource: "engagement-account-groups", idParam: "engagementAccountGroupId", entity: "EngagementAccountGroup", tag: "Engagement account groupings" }),
  route({
    method: "POST",
    path: "/engagement-account-groupings/{engagementAccountGroupingId}/export",
    operation: "mutation",
    field: "exportEngagementAccountGrouping",
    args: { id: { from: "path", name: "engagementAccountGroupingId" } },
    summary: "Export the engagement's grouping to Excel (async result ACCOUNT_GROUPING_EXPORT, target a file result)",
    tag: "Engagement account groupings",
  }),
  route({
    method: "POST",
    path: "/engagement-account-groupings/export",
    operation: "mutation",
    field: "exportEngagementAccountGrouping",
    args: { id: { from: "bodyKey", name: "engagementAccountGroupingId" }, engagementId: { from: "bodyKey", name: "engagementId" } },
    summary: "Export an engagement grouping, named by engagementAccountGroupingId or engagementId, to Excel (async result ACCOUNT_GROUPING_EXPORT)",
    tag: "Engagement account groupings",
  }),
];
