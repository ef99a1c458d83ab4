import { crudRoutes } from "../../../rest/route-helpers.js";

/** Spec 4.4: read, update and query; configurations are created and deleted with their owner. */
export const configurationRoutes = crudRoutes({
  resource: "analysis-type-configuration",
  idParam: "analysisTypeConfigurationId",
  entity: "AnalysisTypeConfiguration",
  tag: "Analysis type configurations",
  ops: ["read", "update", "query"],
});
