import { crudRoutes, route } from "../../../rest/route-helpers.js";

export const analysisRoutes = [
  ...crudRoutes({ resource: "analyses", idParam: "analysisId", entity: "Analysis", tag: "Analyses", plural: "analyses" }),
  route({ method: "GET", path: "/analyses/{analysisId}/status", operation: "query", field: "analysisStatus", args: { id: { from: "path", name: "analysisId" } }, summary: "Readiness of an analysis to run and its preflight errors", tag: "Analyses" }),
  ...crudRoutes({ resource: "analysis-results", idParam: "analysisResultId", entity: "AnalysisResult", tag: "Analyses", ops: ["read", "query"] }),
];
