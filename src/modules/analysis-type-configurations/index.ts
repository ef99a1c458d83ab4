import "./configuration.schema.js";
import { defineFamily } from "../family.js";
import { configurationRoutes } from "./configuration.routes.js";

export const analysisTypeConfigurationsFamily = defineFamily({
  name: "analysis-type-configurations",
  routes: configurationRoutes,
  events: ["analysis-type-configuration.updated"],
});
