import { builder } from "../../graphql/builder.js";
import { OFF_PATH_STATES, TRANSACTION_ID_TYPES, WORKFLOW_STATES } from "../../ingestion/index.js";
import type { InputFields, InputOf } from "../common/crud-fields.js";

// Every state of the wire enum (wire reference 7), also those off this server's paths: a client
// generated from the schema must be able to read any state the API can name. Requests for an
// off-path target are refused by the workflow planner (400 naming the state).
export const WorkflowStateEnum = builder.enumType("AnalysisSourceWorkflowState", { values: [...WORKFLOW_STATES.map((d) => d.state), ...OFF_PATH_STATES] });
export const VirtualColumnType = builder.enumType("VirtualColumnType", { values: ["DUPLICATE", "SPLIT_BY_POSITION", "SPLIT_BY_DELIMITER", "JOIN"] as const });
export const TransactionIdType = builder.enumType("TransactionIdType", { values: TRANSACTION_ID_TYPES });

const ProposedColumnMappingInput = builder.inputType("ProposedColumnMappingInput", {
  fields: (t) => ({
    columnPosition: t.int(),
    platformField: t.string(),
    additionalColumnName: t.string(),
    virtualColumnIndex: t.int({ description: "Index into proposedVirtualColumns, instead of columnPosition" }),
  }),
});

const virtualColumnFields = (t: InputFields) => ({
  name: t.string({ required: true }),
  type: t.field({ type: VirtualColumnType, required: true }),
  columnIndex: t.int(),
  columnIndices: t.intList(),
  delimiter: t.string(),
  splitIndex: t.int(),
  startPosition: t.int(),
  endPosition: t.int(),
});

const ProposedVirtualColumnInput = builder.inputType("ProposedVirtualColumnInput", { fields: (t) => virtualColumnFields(t) });
const VirtualColumnInput = builder.inputType("VirtualColumnInput", {
  description: "An applied virtual column sent back: `version` is the column's as read (0 for a new column), else 409; `position` (as read) names the column, else its name does",
  fields: (t) => ({ ...virtualColumnFields(t), position: t.int(), version: t.int({ required: true }) }),
});

const ProposedAmbiguousColumnResolutionInput = builder.inputType("ProposedAmbiguousColumnResolutionInput", {
  fields: (t) => ({ position: t.int({ required: true }), selectedFormat: t.string({ required: true }) }),
});

const ColumnMappingInput = builder.inputType("ColumnMappingInput", {
  fields: (t) => ({ position: t.int({ required: true }), platformField: t.string(), additionalColumnName: t.string() }),
});

const TransactionIdSelectionInput = builder.inputType("TransactionIdSelectionInput", {
  fields: (t) => ({
    type: t.field({ type: TransactionIdType, required: true }),
    columnSelection: t.intList({ required: true }),
    virtualColumnSelection: t.intList(),
    applySmartSplitter: t.boolean(),
  }),
});

const proposedFields = (t: InputFields) => ({
  proposedColumnMappings: t.field({ type: [ProposedColumnMappingInput] }),
  proposedVirtualColumns: t.field({ type: [ProposedVirtualColumnInput] }),
  proposedAmbiguousColumnResolutions: t.field({ type: [ProposedAmbiguousColumnResolutionInput] }),
  proposedTransactionIdSelection: t.field({ type: TransactionIdSelectionInput }),
});

export const CreateAnalysisSourceInput = builder.inputType("CreateAnalysisSourceInput", {
  fields: (t) => ({
    engagementId: t.id(),
    analysisId: t.id({ required: true }),
    analysisPeriodId: t.id(),
    analysisSourceTypeId: t.id({ required: true }),
    fileManagerFileId: t.id({ required: true }),
    warningsIgnored: t.boolean(),
    targetWorkflowState: t.field({ type: WorkflowStateEnum }),
    applyDegrouper: t.boolean(),
    presetHeaderRowIndex: t.int(),
    additionalDataColumnField: t.string(),
    ...proposedFields(t),
  }),
});
export type CreateAnalysisSourceInput = InputOf<typeof CreateAnalysisSourceInput>;

export const UpdateAnalysisSourceInput = builder.inputType("UpdateAnalysisSourceInput", {
  fields: (t) => ({
    columnMappings: t.field({ type: [ColumnMappingInput] }),
    virtualColumns: t.field({ type: [VirtualColumnInput] }),
    ambiguousColumnResolutions: t.field({ type: [ProposedAmbiguousColumnResolutionInput] }),
    transactionIdSelection: t.field({ type: TransactionIdSelectionInput }),
    targetWorkflowState: t.field({ type: WorkflowStateEnum }),
    warningsIgnored: t.boolean(),
    applyDegrouper: t.boolean(),
    version: t.int({ required: true }),
    ...proposedFields(t),
  }),
});
export type UpdateAnalysisSourceInput = InputOf<typeof UpdateAnalysisSourceInput>;
/** The proposal fields both inputs carry, as the service stores them. */
export type ProposedFields = Pick<CreateAnalysisSourceInput, keyof ReturnType<typeof proposedFields>>;
