import { RATINGS } from "../../ingestion/analysis/transaction-ids.js";
import { TRANSACTION_ID_TYPES } from "../../ingestion/analysis/transaction-keys.js";
import { ALL_GROUPED_FORMATS } from "../../ingestion/types.js";
import { OFF_PATH_STATES, WORKFLOW_STATES } from "../../ingestion/workflow/states.js";
import { AUDIT_COLUMNS, defineColumns, enumOf, FLAG, ID } from "../../query-language/index.js";

/** Every workflow state of the wire enum (wire reference 7): the path states and the off-path ones (never stored here, so they match nothing). */
const WORKFLOW_STATE_VALUES = [...WORKFLOW_STATES.map((d) => d.state), ...OFF_PATH_STATES];

/** What POST /analysis-sources/query and `analysisSources(filter:)` can filter and sort on. */
export const analysisSourceColumns = defineColumns("analysis source", {
  ...AUDIT_COLUMNS,
  engagementId: ID,
  analysisId: ID,
  analysisPeriodId: ID,
  analysisSourceTypeId: ID,
  fileManagerFileId: ID,
  workflowState: enumOf(WORKFLOW_STATE_VALUES),
  detectedFormat: enumOf(ALL_GROUPED_FORMATS),
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
  type: enumOf(TRANSACTION_ID_TYPES),
  overallRating: enumOf(RATINGS),
  smartSplitter: FLAG,
});
