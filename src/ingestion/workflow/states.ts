/**
 * The analysis source workflow as data (spec 3.1, design notes 3): every state with its kind, its
 * feature and the engine job that runs when the workflow passes it. The order of `WORKFLOW_STATES`
 * is the order of the workflow; a source type's path is the subsequence of states whose feature it
 * has (plus the independent ones).
 */

import { FEATURES, type Feature } from "./features.js";

export type WorkflowFeature = Feature;
export const WORKFLOW_FEATURES: readonly WorkflowFeature[] = FEATURES;

export type StateKind = "Step" | "Transition";

/**
 * What the integrator runs when the workflow passes a state (the engine entry point in brackets):
 * - INITIALISE: nothing but bookkeeping.
 * - DETECT_FORMAT: encoding, delimiter, header row, grouped layout (`detectFormat`).
 * - PREPARE_FILE: stage the file, degrouped when chosen (`stageFile`).
 * - ANALYZE_COLUMNS: file info of the staged data (returned by `stageFile`; or `inspectFile`).
 * - APPLY_COLUMN_MAPPINGS: proposed or recommended mappings become the applied ones (`recommendMappings`).
 * - ANALYZE_EFFECTIVE_DATES: daily summary for the effective date metrics (`summarizeEffectiveDates`).
 * - CHECK_INTEGRITY: transaction id previews and selection (`previewTransactionIds`).
 * - PARSE: typed entries table and account discovery (`parseEntries`, `discoverAccounts`).
 * - NONE: a Step or Transition that only records a decision.
 */
export type WorkflowJob =
  | "INITIALISE"
  | "DETECT_FORMAT"
  | "PREPARE_FILE"
  | "ANALYZE_COLUMNS"
  | "APPLY_COLUMN_MAPPINGS"
  | "ANALYZE_EFFECTIVE_DATES"
  | "CHECK_INTEGRITY"
  | "PARSE"
  | "NONE";

export type WorkflowState =
  | "STARTED"
  | "DETECTING_FORMAT"
  | "FORMAT_DETECTED"
  | "FORMAT_DETECTION_COMPLETED"
  | "ANALYZING_COLUMNS"
  | "COLUMNS_ANALYZED"
  | "DATA_VALIDATION_CONFIRMED"
  | "COLUMN_MAPPINGS_CONFIRMED"
  | "ANALYZING_EFFECTIVE_DATE_METRICS"
  | "EFFECTIVE_DATE_METRICS_ANALYZED"
  | "ANALYSIS_PERIOD_SELECTED"
  | "CHECKING_INTEGRITY"
  | "INTEGRITY_CHECKED"
  | "PARSING"
  | "PARSED"
  | "FUNDS_REVIEWED"
  | "SETTINGS_CONFIRMED"
  | "COMPLETED"
  | "FAILED";

export interface WorkflowStateDefinition {
  state: WorkflowState;
  kind: StateKind;
  /** null = independent of features (present in every path). */
  feature: WorkflowFeature | null;
  job: WorkflowJob;
}

/** Spec 3.1, in workflow order. FAILED is reachable from anywhere and is not part of a path. */
export const WORKFLOW_STATES: readonly WorkflowStateDefinition[] = [
  { state: "STARTED", kind: "Transition", feature: null, job: "INITIALISE" },
  { state: "DETECTING_FORMAT", kind: "Transition", feature: "FORMAT_DETECTION", job: "DETECT_FORMAT" },
  { state: "FORMAT_DETECTED", kind: "Step", feature: "FORMAT_DETECTION", job: "NONE" },
  { state: "FORMAT_DETECTION_COMPLETED", kind: "Transition", feature: "FORMAT_DETECTION", job: "PREPARE_FILE" },
  { state: "ANALYZING_COLUMNS", kind: "Transition", feature: "DATA_VALIDATION", job: "ANALYZE_COLUMNS" },
  { state: "COLUMNS_ANALYZED", kind: "Step", feature: "DATA_VALIDATION", job: "NONE" },
  { state: "DATA_VALIDATION_CONFIRMED", kind: "Step", feature: "COLUMN_MAPPING", job: "APPLY_COLUMN_MAPPINGS" },
  { state: "COLUMN_MAPPINGS_CONFIRMED", kind: "Transition", feature: "COLUMN_MAPPING", job: "NONE" },
  { state: "ANALYZING_EFFECTIVE_DATE_METRICS", kind: "Transition", feature: "EFFECTIVE_DATE_METRICS", job: "ANALYZE_EFFECTIVE_DATES" },
  { state: "EFFECTIVE_DATE_METRICS_ANALYZED", kind: "Step", feature: "EFFECTIVE_DATE_METRICS", job: "NONE" },
  { state: "ANALYSIS_PERIOD_SELECTED", kind: "Transition", feature: "EFFECTIVE_DATE_METRICS", job: "NONE" },
  { state: "CHECKING_INTEGRITY", kind: "Transition", feature: "TRANSACTION_ID_SELECTION", job: "CHECK_INTEGRITY" },
  { state: "INTEGRITY_CHECKED", kind: "Step", feature: "TRANSACTION_ID_SELECTION", job: "NONE" },
  { state: "PARSING", kind: "Transition", feature: "PARSE", job: "PARSE" },
  { state: "PARSED", kind: "Step", feature: "PARSE", job: "NONE" },
  { state: "FUNDS_REVIEWED", kind: "Step", feature: "REVIEW_FUNDS", job: "NONE" },
  { state: "SETTINGS_CONFIRMED", kind: "Transition", feature: "CONFIRM_SETTINGS", job: "NONE" },
  { state: "COMPLETED", kind: "Step", feature: null, job: "NONE" },
  { state: "FAILED", kind: "Step", feature: null, job: "NONE" },
];

/**
 * Workflow-state enum values that exist on the wire but belong to no source type's path here
 * (spec 3.1 "also existing", kind not shown), or to other entities sharing the enum.
 */
export const OFF_PATH_STATES = [
  "SCANNING_TRANSACTION_COMBINATIONS",
  "PARSING_ICEBERG",
  "PREPARING_ICEBERG",
  "CANCELLED",
  "RUNNING",
  "UNPACK_COMPLETE",
  "UPLOADED",
  "AUTHENTICATED",
  "CONFIGURED",
] as const;

/** Spec 3.2: an analysis source may be updated only while it rests in one of these. */
export const UPDATABLE_STATES: readonly WorkflowState[] = [
  "FORMAT_DETECTED",
  "COLUMNS_ANALYZED",
  "DATA_VALIDATION_CONFIRMED",
  "EFFECTIVE_DATE_METRICS_ANALYZED",
  "INTEGRITY_CHECKED",
  "PARSED",
  "FUNDS_REVIEWED",
];

const BY_STATE = new Map(WORKFLOW_STATES.map((d, i) => [d.state, { ...d, order: i }]));

export function stateDefinition(state: WorkflowState): WorkflowStateDefinition & { order: number } {
  const definition = BY_STATE.get(state);
  if (!definition) throw new Error(`Unknown workflow state ${state}`);
  return definition;
}

export function isWorkflowState(value: string): value is WorkflowState {
  return BY_STATE.has(value as WorkflowState);
}

/** The ordered states a source type with these features goes through, STARTED to COMPLETED. */
export function workflowPath(features: readonly WorkflowFeature[]): WorkflowState[] {
  const has = new Set(features);
  return WORKFLOW_STATES.filter((d) => d.state !== "FAILED" && (d.feature === null || has.has(d.feature))).map((d) => d.state);
}

/** Spec 3.2 update and delete rules; `jobRunning`: an asynchronous job for the source is in progress. */
export function updateRefusal(state: WorkflowState, jobRunning: boolean): string | null {
  if (jobRunning) return "an ingestion job for this analysis source is in progress";
  if (!UPDATABLE_STATES.includes(state)) return `analysis sources can be updated only in ${UPDATABLE_STATES.join(", ")}; this one is ${state}`;
  return null;
}

export function deleteRefusal(jobRunning: boolean): string | null {
  return jobRunning ? "an ingestion job for this analysis source is in progress" : null;
}

/** The effective-date-metrics endpoint is usable once the source reached EFFECTIVE_DATE_METRICS_ANALYZED. */
export function effectiveDateMetricsAvailable(state: WorkflowState): boolean {
  return state !== "FAILED" && stateDefinition(state).order >= stateDefinition("EFFECTIVE_DATE_METRICS_ANALYZED").order;
}
