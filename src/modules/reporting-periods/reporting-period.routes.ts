import { crudRoutes } from "../../../rest/route-helpers.js";

/** Spec 4.4: create, read, delete and query; there is no update. */
export const reportingPeriodRoutes = crudRoutes({
  resource: "reporting-period-config",
  idParam: "reportingPeriodConfigurationId",
  entity: "ReportingPeriodConfiguration",
  tag: "Reporting periods",
  ops: ["create", "read", "delete", "query"],
});
