import { AUDIT_COLUMNS, defineColumns, ENUM, FLAG, ID } from "../../query-language/index.js";

/** What POST /analysis-sources/query and `analysisSources(filter:)` can filter and sort on. */
export const analysisSourceColumns = defineColumns("analysis source", {
  ...AUDIT_COLUMNS,
  engagementId: ID,
  analysisId: ID,
  analysisPeriodId: ID,
  analysisSourceTypeId: ID,
  fileManagerFileId: ID,
  workflowState: ENUM,
  detectedFormat: ENUM,
  applyDegrouper: FLAG,
  degrouperApplied: FLAG,
  warningsIgnored: FLAG,
});

/** What POST /transaction-id-previews/query can filter and sort on. */
export const transactionIdPreviewColumns = defineColumns("transaction id preview", {
  ...AUDIT_COLUMNS,
  engagementId: ID,
  analysisId: ID,
  analysisSourceId: ID,
  type: ENUM,
  overallRating: ENUM,
  smartSplitter: FLAG,
});
