import { AUDIT_COLUMNS, defineColumns, enumOf, FLAG, ID, TEXT } from "../../query-language/index.js";

export const TASK_TYPES = ["ENTRY", "TRANSACTION", "AP_ENTRY", "AR_ENTRY", "AP_OUTSTANDING_ENTRY", "AR_OUTSTANDING_ENTRY", "TRA_ENTRY"] as const;
export const TASK_STATUSES = ["OPEN", "NORMAL", "COMPLETED", "DISMISSED", "RESOLVED"] as const;
export const TASK_APPROVAL_STATUSES = ["PENDING", "REJECTED", "APPROVED"] as const;
/** Statuses that count as open work; a completed, dismissed or resolved task leaves the open counts. */
export const OPEN_STATUSES = ["OPEN", "NORMAL"] as const;

export type TaskType = (typeof TASK_TYPES)[number];
export type TaskStatus = (typeof TASK_STATUSES)[number];
export type TaskApprovalStatus = (typeof TASK_APPROVAL_STATUSES)[number];

const STRINGS = { type: "ARRAY_STRINGS", containsSearch: true } as const;

/** What POST /tasks/query and `tasks(filter:)` can filter and sort on. */
export const taskColumns = defineColumns("tasks", {
  ...AUDIT_COLUMNS,
  engagementId: ID,
  analysisId: ID,
  analysisResultId: ID,
  analysisTypeId: ID,
  name: TEXT,
  type: enumOf(TASK_TYPES),
  status: enumOf(TASK_STATUSES),
  rowId: { type: "INT64", equalitySearch: true, rangeSearch: true, sortable: true },
  transactionId: TEXT,
  entryType: TEXT,
  assignedId: ID,
  approverId: ID,
  approvalId: ID,
  taskApprovalStatus: enumOf(TASK_APPROVAL_STATUSES),
  description: TEXT,
  dueDate: { type: "DATE", equalitySearch: true, rangeSearch: true, sortable: true },
  sample: FLAG,
  tags: STRINGS,
  assertions: STRINGS,
  auditAreas: STRINGS,
});

/** What POST /task-histories/query and `taskHistories(filter:)` can filter and sort on. */
export const taskHistoryColumns = defineColumns("task histories", {
  ...AUDIT_COLUMNS,
  taskId: ID,
  analysisResultId: ID,
  userId: ID,
  userName: TEXT,
  dateTime: { type: "DATE_TIME", equalitySearch: true, rangeSearch: true, sortable: true },
  operation: enumOf(["CREATE", "UPDATE", "COMMENT", "DELETE"]),
});
