import "./account-grouping.schema.js";
import { defineFamily } from "../family.js";
import { accountGroupingRoutes } from "./account-grouping.routes.js";
import { accountGroupingExportJob } from "./account-grouping.export.js";

export const accountGroupingsFamily = defineFamily({
  name: "account-groupings",
  routes: accountGroupingRoutes,
  jobs: [accountGroupingExportJob],
  events: ["account-grouping.created", "account-grouping.updated", "account-grouping.deleted", "account-group.updated"],
});
