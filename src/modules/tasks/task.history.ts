import { createAudit, type Actor } from "../../entity/index.js";
import type { Tx } from "../../events/outbox.js";

export type HistoryOperation = "CREATE" | "UPDATE" | "COMMENT" | "DELETE";

export interface FieldChange {
  fieldName: string;
  fieldType: string;
  previousValue: unknown;
  newValue: unknown;
  previousValueString: string | null;
  newValueString: string | null;
}

/** The kind of value of each field a history entry can name (wire: `fieldType`). */
export const FIELD_TYPES: Record<string, string> = {
  status: "ENUM",
  type: "ENUM",
  taskApprovalStatus: "ENUM",
  assignedId: "USER",
  approverId: "USER",
  approvalId: "ID",
  description: "STRING",
  name: "STRING",
  dueDate: "DATE",
  sample: "BOOLEAN",
  tags: "STRING_LIST",
  assertions: "STRING_LIST",
  auditAreas: "STRING_LIST",
  comments: "COMMENT",
  rowId: "INT64",
  transactionId: "STRING",
  analysisResultId: "ID",
};

function asString(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.join(", ");
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

const plain = (value: unknown): unknown => (value === undefined ? null : value instanceof Date ? value.toISOString().slice(0, 10) : value);

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(plain(a)) === JSON.stringify(plain(b));
}

export function change(fieldName: string, previousValue: unknown, newValue: unknown): FieldChange {
  return {
    fieldName,
    fieldType: FIELD_TYPES[fieldName] ?? "STRING",
    previousValue: plain(previousValue),
    newValue: plain(newValue),
    previousValueString: asString(plain(previousValue)),
    newValueString: asString(plain(newValue)),
  };
}

/** The changes between `before` and `after` over `fields` (only fields whose value differs). */
export function diff(before: Record<string, unknown>, after: Record<string, unknown>, fields: readonly string[]): FieldChange[] {
  return fields.filter((f) => f in after && !same(before[f], after[f])).map((f) => change(f, before[f], after[f]));
}

export function historyRow(taskId: string, analysisResultId: string, actor: Actor, operation: HistoryOperation, changes: FieldChange[], at = new Date()) {
  return {
    ...createAudit(actor),
    taskId,
    analysisResultId,
    userId: actor.userId,
    userName: actor.userName,
    dateTime: at,
    operation,
    changes,
  };
}

/** Writes one history entry in the transaction of the change it records. */
export async function recordHistory(tx: Tx, taskId: string, analysisResultId: string, actor: Actor, operation: HistoryOperation, changes: FieldChange[]): Promise<void> {
  await tx.taskHistory.create({ data: historyRow(taskId, analysisResultId, actor, operation, changes) });
}
