import { crudRoutes } from "../../../rest/route-helpers.js";

export const accountGroupingRoutes = [
  ...crudRoutes({ resource: "account-groupings", idParam: "accountGroupingId", entity: "AccountGrouping", tag: "Account groupings", ops: ["read", "update", "delete", "query"] }),
  ...crudRoutes({ resource: "account-groups", idParam: "accountGroupId", entity: "AccountGroup", tag: "Account groupings", ops: ["read", "update", "query"] }),
];
