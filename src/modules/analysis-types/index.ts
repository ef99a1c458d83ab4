import "./analysis-type.schema.js";
import { defineFamily } from "../family.js";
import { analysisTypeRoutes } from "./analysis-type.routes.js";

export const analysisTypesFamily = defineFamily({
  name: "analysis-types",
  routes: analysisTypeRoutes,
});
