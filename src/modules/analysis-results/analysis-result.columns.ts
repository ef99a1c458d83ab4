import { AUDIT_COLUMNS, defineColumns, enumOf, FLAG, ID } from "../../query-language/index.js";

export const RESULT_STATUSES = ["RUNNING", "COMPLETED", "FAILED"] as const;

/** POST /analysis-results/query and `Analysis.results(filter:)`: by analysis (wire reference 2), status, dates. */
export const analysisResultColumns = defineColumns("analysis results", {
  ...AUDIT_COLUMNS,
  engagementId: ID,
  analysisId: ID,
  analysisTypeId: ID,
  interim: FLAG,
  status: enumOf(RESULT_STATUSES),
});
