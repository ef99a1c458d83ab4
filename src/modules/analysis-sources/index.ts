import "./analysis-source.schema.js";
import { defineFamily } from "../family.js";
import { analysisSourceRoutes } from "./analysis-source.routes.js";
import { ingestionJob } from "./analysis-source.workflow.js";
import { orphanedTableCleanup } from "./analysis-source.cleanup.js";

export const analysisSourcesFamily = defineFamily({
  name: "analysis-sources",
  routes: analysisSourceRoutes,
  jobs: [ingestionJob],
  tasks: [orphanedTableCleanup],
  events: ["analysis-source.created", "analysis-source.updated", "analysis-source.deleted", "ingestion.complete", "ingestion.failed"],
});
