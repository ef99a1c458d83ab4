import { crudRoutes } from "../../../rest/route-helpers.js";

export const analysisTypeRoutes = [
  ...crudRoutes({ resource: "analysis-types", idParam: "analysisTypeId", entity: "AnalysisType", tag: "Analysis types", ops: ["read", "query"] }),
  ...crudRoutes({ resource: "analysis-source-types", idParam: "analysisSourceTypeId", entity: "AnalysisSourceType", tag: "Analysis types", ops: ["read", "query"] }),
];
