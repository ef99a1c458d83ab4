import { crudRoutes, route } from "../../../rest/route-helpers.js";

/**
 * Spec 4.4: create, read, delete and query; there is no update. The spec writes the read as
 * "GET /reporting-period-config (by id)" without a path parameter, unlike its DELETE, so the id is
 * also accepted as a query parameter beside the standard GET /reporting-period-config/{id}.
 */
export const reportingPeriodRoutes = [
  ...crudRoutes({
    resource: "reporting-period-config",
    idParam: "reportingPeriodConfigurationId",
    entity: "ReportingPeriodConfiguration",
    tag: "Reporting periods",
    ops: ["create", "read", "delete", "query"],
  }),
  route({
    method: "GET",
    path: "/reporting-period-config",
    operation: "query",
    field: "reportingPeriodConfiguration",
    args: { id: { from: "query", name: "id" } },
    summary: "Read a ReportingPeriodConfiguration by the id in the query string (?id=...)",
    tag: "Reporting periods",
  }),
];
