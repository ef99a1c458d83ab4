/**
 * The types of this family's Json and enumeration text columns, named in `prisma/schema/tasks.prisma` and written into
 * the generated client by prisma-json-types-generator: reads and writes are typed.
 */
import type { FieldChange } from "./task.history.js";
import type { TaskApprovalStatus as TaskApprovalStatusValue, TaskStatus as TaskStatusValue, TaskType as TaskTypeValue } from "./task.columns.js";

/** One entry of `task.comments` (POST /tasks/{id}/add-comment). */
export interface TaskComment {
  authorId: string;
  /** ISO 8601 instant. */
  captured: string;
  commentText: string;
}

/** A MONEY_100 amount of the task's row, as the data endpoint gives it, with its currency. */
export interface TaskAmount {
  amount: number;
  currency: string | null;
}

declare global {
  namespace PrismaJson {
    type TaskComments = TaskComment[];
    /** amount, debit, credit, monetaryValue, outstandingAmount: those the row has. */
    type TaskAmounts = Record<string, TaskAmount>;
    /** {risk: 0..10000, <control point>: score} for every control point scoring above 0. */
    type TaskRiskScores = Record<string, number>;
    type TaskHistoryChanges = FieldChange[];
    /** task.type, task.status and task.task_approval_status (wire reference 7). */
    type TaskType = TaskTypeValue;
    type TaskStatus = TaskStatusValue;
    type TaskApprovalStatus = TaskApprovalStatusValue;
  }
}
