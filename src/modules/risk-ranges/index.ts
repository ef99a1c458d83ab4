import "./risk-range.schema.js";
import { defineFamily } from "../family.js";
import { riskRangeRoutes } from "./risk-range.routes.js";

export const riskRangesFamily = defineFamily({
  name: "risk-ranges",
  routes: riskRangeRoutes,
  events: ["risk-range.created", "risk-range.updated", "risk-range.deleted"],
});
