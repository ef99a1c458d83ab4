import "./reporting-period.schema.js";
import { defineFamily } from "../family.js";
import { reportingPeriodRoutes } from "./reporting-period.routes.js";

export const reportingPeriodsFamily = defineFamily({
  name: "reporting-periods",
  routes: reportingPeriodRoutes,
  events: ["reporting-period-configuration.created", "reporting-period-configuration.deleted"],
});
