import "./analysis.schema.js";
import { defineFamily } from "../family.js";
import { analysisRoutes } from "./analysis.routes.js";
import { rollForwardJob } from "./analysis-roll-forward.js";

export const analysesFamily = defineFamily({
  name: "analyses",
  routes: analysisRoutes,
  jobs: [rollForwardJob],
  events: ["analysis.created", "analysis.updated", "analysis.deleted", "analysis.archived", "analysis.unarchived"],
});
