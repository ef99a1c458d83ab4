import "./account-mapping.schema.js";
import { defineFamily } from "../family.js";
import { accountMappingRoutes } from "./account-mapping.routes.js";
import { accountMappingExportJob } from "./account-mapping.export.js";

export const accountMappingsFamily = defineFamily({
  name: "account-mappings",
  routes: accountMappingRoutes,
  jobs: [accountMappingExportJob],
  events: ["account-mapping.updated", "account-mappings.verified", "account-mappings.deleted-unused", "unmapped.accounts"],
});
