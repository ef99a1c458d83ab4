import { crudRoutes, route } from "../../../rest/route-helpers.js";

export const analysisSourceRoutes = [
  ...crudRoutes({ resource: "analysis-sources", idParam: "analysisSourceId", entity: "AnalysisSource", tag: "Analysis sources" }),
  route({
    method: "GET",
    path: "/analysis-sources/{analysisSourceId}/effective-date-metrics",
    operation: "query",
    field: "analysisSourceEffectiveDateMetrics",
    args: { id: { from: "path", name: "analysisSourceId" }, period: { from: "query", name: "period" } },
    summary: "Entries by effective date (period DAY, WEEK or MONTH); 400 before EFFECTIVE_DATE_METRICS_ANALYZED",
    tag: "Analysis sources",
  }),
  ...crudRoutes({ resource: "transaction-id-previews", idParam: "transactionIdPreviewId", entity: "TransactionIdPreview", tag: "Analysis sources", ops: ["read", "query"] }),
];
