import { crudRoutes, route } from "../../../rest/route-helpers.js";

export const analysisRoutes = [
  ...crudRoutes({ resource: "analyses", idParam: "analysisId", entity: "Analysis", tag: "Analyses", plural: "analyses" }),
  route({ method: "GET", path: "/analyses/{analysisId}/status", operation: "query", field: "analysisStatus", args: { id: { from: "path", name: "analysisId" } }, summary: "Readiness of an analysis to run and its preflight errors", tag: "Analyses" }),
  route({ method: "POST", path: "/analyses/{analysisId}/run", operation: "mutation", field: "runAnalysis", args: { id: { from: "path", name: "analysisId" } }, summary: "Start an analysis run (async result ANALYSIS_RUN); 409 while not ready", tag: "Analyses" }),
  route({ method: "POST", path: "/analyses/engagement-roll-forward", operation: "mutation", field: "rollForwardAnalysis", args: { input: { from: "body" } }, summary: "Roll an analysis forward into another engagement (async result ANALYSIS_ROLL_FORWARD)", tag: "Analyses" }),
];
