import "./file-result.schema.js";
import { defineFamily } from "../family.js";
import { fileResultRoutes } from "./file-result.routes.js";

export const fileResultsFamily = defineFamily({
  name: "file-results",
  routes: fileResultRoutes,
  events: ["export.ready"],
});
