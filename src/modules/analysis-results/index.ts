import "./analysis-result.schema.js";
import { defineFamily } from "../family.js";
import { analysisResultRoutes } from "./analysis-result.routes.js";
import { analysisRunJob } from "./analysis-result.job.js";
import { orphanedResultTableCleanup } from "./analysis-result.cleanup.js";

export const analysisResultsFamily = defineFamily({
  name: "analysis-results",
  routes: analysisResultRoutes,
  jobs: [analysisRunJob],
  tasks: [orphanedResultTableCleanup],
  events: ["analysis.complete", "analysis.failed", "analysis-result.updated"],
});
