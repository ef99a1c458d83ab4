/**
 * The types of this family's Json columns, named in `prisma/schema/tasks.prisma` and written into
 * the generated client by prisma-json-types-generator: reads and writes are typed.
 */
import type { FieldChange } from "./task.history.js";

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
  }
}
