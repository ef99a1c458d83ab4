/**
 * The ingestion engine: everything between an uploaded tabular file and a typed entries table,
 * without entities or routes (the analysis source service drives it through the workflow). See
 * docs/architecture.md, "Ingestion engine", for the call sequence per workflow state.
 */

// Workflow as data and the move planner (spec 3).
export * from "./workflow/states.js";
export * from "./workflow/planner.js";

// Reading files: detection, file infos, degrouping.
export { ArrivingBytes, fileSource, type ByteSource } from "./byte-source.js";
export { detectFormat, EmptyFileError, NotTabularFileError, type DetectOptions, type FormatDetection } from "./detect.js";
export { inspectFile, type InspectOptions } from "./inspect.js";
export { SUPPORTED_GROUPED_FORMATS, detectGroupedFormat } from "./formats/index.js";
export { mappedMetrics, withRecommendedMetrics } from "./profile/mapped-metrics.js";
export { ALL_GROUPED_FORMATS } from "./types.js";
export type { ColumnData, ColumnDefinition, DataPreview, FilePreview, GroupedFormat, Metric, MetricState, TabularFileInfo, WorkbookInfo } from "./types.js";
export type { DetectedType } from "./profile/classify.js";
export type { FileEncoding } from "./csv/encoding.js";
export { NUMBER_FORMAT_COMMA, NUMBER_FORMAT_DOT } from "./profile/number-shape.js";

// Staging.
export {
  adoptStagingTable,
  describesSameRows,
  dropTables,
  indexStagedRows,
  replaceTables,
  stagedRowCount,
  stageFile,
  stagingIntact,
  type StageOptions,
  type StageResult,
  type StagedColumn,
} from "./staging/stage.js";
export { ingestionTables, INGEST_SCHEMA } from "./sql/identifiers.js";

// Column mapping.
export { applyColumnMappings, validateAppliedMapping, type ApplyMappingInput, type ApplyMappingResult } from "./mapping/apply.js";
export { recommendMappings, type MappingRecommendation, type RecommendOptions } from "./mapping/recommend.js";
export { summarizeColumns, type ColumnSummary } from "./mapping/columns.js";
export { MappingError, placeVirtualColumns, profileVirtualColumns, validateVirtualColumns } from "./mapping/virtual-columns.js";
export type {
  AmbiguousColumnResolution,
  AppliedMapping,
  ColumnMapping,
  MappingType,
  ProposedAmbiguousColumnResolution,
  ProposedColumnMapping,
  VirtualColumn,
  VirtualColumnDefinition,
  VirtualColumnType,
} from "./mapping/model.js";
export { buildParsePlan, FIELDS, signedAmountExpression, type ParsePlan, type ResolvedField } from "./sql/parse-plan.js";

// Analyses of the mapped data.
export { analyzeStagedData, summarizeStagedRows, summarizeWithTransactions, type AnalyzeOptions, type StagedDataAnalysis, type TransactionsAndSummaries } from "./analysis/staged-data.js";
export {
  effectiveDateMetrics,
  loadRows,
  loadStagedRecords,
  periodLabel,
  summarizeEffectiveDates,
  type AnalysisPeriod,
  type EffectiveDateMetrics,
  type EffectiveDateSummary,
  type PeriodType,
} from "./analysis/effective-dates.js";
export {
  bestPreview,
  chooseTransactionId,
  previewFromTransactions,
  previewTransactionIds,
  transactionIdCandidates,
  type EntryPreview,
  type Indicator,
  RATINGS,
  type Rating,
  type TransactionIdPreview,
} from "./analysis/transaction-ids.js";
export { needsWindow, normalizeSelection, sameSelection, selectionProblems, TRANSACTION_ID_TYPES, type TransactionIdSelection, type TransactionIdType } from "./analysis/transaction-keys.js";

// Typed parse and accounts.
export { analyzeTables, discoverAccounts, parseEntries, type DiscoveredAccount, type EntryColumn, type ParseOptions, type ParseResult } from "./parse/parse.js";

// Transactions summarised from the entries (General Ledger Transactions).
export { buildTransactionsFromStaging, buildTransactionsTable, hasTransactions, type TransactionColumn, type TransactionsTableOptions, type TransactionsTableResult } from "./transactions/transactions-table.js";

// The seam to the data tables module.
export * from "./entries-table-hooks.js";
