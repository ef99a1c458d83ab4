import { builder } from "../../graphql/builder.js";
import type { InputFields, InputOf } from "../common/crud-fields.js";
import { TASK_APPROVAL_STATUSES, TASK_STATUSES, TASK_TYPES } from "./task.columns.js";

/** Most tasks one bulk request creates; the default when `limit` is not given. */
export const MAX_BULK_TASKS = 10_000;
export const DEFAULT_BULK_TASKS = 1_000;

export const TaskType = builder.enumType("TaskType", { values: TASK_TYPES });
export const TaskStatus = builder.enumType("TaskStatus", { values: TASK_STATUSES });
export const TaskApprovalStatus = builder.enumType("TaskApprovalStatus", { values: TASK_APPROVAL_STATUSES });

/** The fields a task's create, update and bulk create share, with the descriptions each gives them. */
const taskFields = (t: InputFields, notes: { approverId?: string; description?: string; taskApprovalStatus?: string } = {}) => ({
  status: t.field({ type: TaskStatus }),
  assignedId: t.id(),
  approverId: t.id({ description: notes.approverId }),
  description: t.string({ description: notes.description }),
  dueDate: t.field({ type: "Date" }),
  sample: t.boolean(),
  tags: t.stringList(),
  assertions: t.stringList(),
  auditAreas: t.stringList(),
  taskApprovalStatus: t.field({ type: TaskApprovalStatus, description: notes.taskApprovalStatus }),
});

export const CreateTaskInput = builder.inputType("CreateTaskInput", {
  description: "A task for one row of a completed result: rowId (any type) or transactionId (TRANSACTION, ENTRY: the txid)",
  fields: (t) => ({
    analysisResultId: t.id({ required: true }),
    engagementId: t.id(),
    rowId: t.field({ type: "Long" }),
    transactionId: t.string(),
    type: t.field({ type: TaskType, description: "Default: ENTRY (AP_ENTRY / AR_ENTRY for payables / receivables results); TRANSACTION when only transactionId is given" }),
    ...taskFields(t, { description: "Default: the row's memo or description", taskApprovalStatus: "APPROVED / REJECTED only by the approver" }),
  }),
});
export type CreateTaskInput = InputOf<typeof CreateTaskInput>;

export const UpdateTaskInput = builder.inputType("UpdateTaskInput", {
  fields: (t) => ({
    ...taskFields(t, { approverId: "A new approver opens a new approval (new approvalId, PENDING)", taskApprovalStatus: "APPROVED / REJECTED only by the task's approver" }),
    version: t.int({ required: true }),
  }),
});
export type UpdateTaskInput = InputOf<typeof UpdateTaskInput>;

export const CreateTasksFromFilterInput = builder.inputType("CreateTasksFromFilterInput", {
  description: `Tasks for every row of a result table the query and/or saved filter select (highest risk first), up to limit (default ${DEFAULT_BULK_TASKS}, at most ${MAX_BULK_TASKS}); rows with a task already are skipped`,
  fields: (t) => ({
    analysisResultId: t.id({ required: true }),
    engagementId: t.id(),
    type: t.field({ type: TaskType, description: "Which table: ENTRY gl_journal_lines, TRANSACTION gl_journal_tx, AP_ENTRY / AR_ENTRY the detail entries" }),
    query: t.field({ type: "JSON", description: "Query language filter over that data table's columns, as POST /data-tables/{id}/data takes it" }),
    savedFilterId: t.id({ description: "A saved filter the token can read, compiled on that data table; with query, both must hold (AND)" }),
    limit: t.int(),
    ...taskFields(t),
  }),
});
export type CreateTasksFromFilterInput = InputOf<typeof CreateTasksFromFilterInput>;
