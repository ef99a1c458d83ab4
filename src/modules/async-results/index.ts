import "./async-result.schema.js";
import { defineFamily } from "../family.js";
import { asyncResultRoutes } from "./async-result.routes.js";

export const asyncResultsFamily = defineFamily({
  name: "async-results",
  routes: asyncResultRoutes,
});
