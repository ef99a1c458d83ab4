import { ConflictError, ForbiddenError, LockedError, NotFoundError, ValidationError } from "../../core/errors.js";
import { newId } from "../../core/ids.js";
import { assertContent, createAudit, findEntity, queryEntities, relatedList, saveVersioned, type Actor, type PageArgs, type RelatedListArgs } from "../../entity/index.js";
import { inTransaction, type Emit, type Tx } from "../../events/outbox.js";
import { actorOf, type RequestContext } from "../../graphql/context.js";
import { assertUsersExist } from "../users/user.service.js";
import { OPEN_STATUSES, taskColumns, taskHistoryColumns, type TaskApprovalStatus, type TaskStatus, type TaskType } from "./task.columns.js";
import { change, diff, historyRow, recordHistory } from "./task.history.js";
import type { CreateTaskInput, UpdateTaskInput } from "./task.inputs.js";
import { defaultType, readResultRow, tableForType, taskFieldsOfRow, taskTablesOf } from "./task-rows.js";

const ENTITY = "Task";

type StoredTask = Awaited<ReturnType<typeof getTask>>;

export function getTask(ctx: RequestContext, id: string) {
  return findEntity(ctx.app, "task", ENTITY, id);
}

export function queryTasks(ctx: RequestContext, args: PageArgs) {
  return queryEntities(ctx.app, { model: "task", columns: taskColumns }, args);
}

export function getTaskHistory(ctx: RequestContext, id: string) {
  return findEntity(ctx.app, "taskHistory", "TaskHistory", id);
}

export function queryTaskHistories(ctx: RequestContext, args: PageArgs) {
  return queryEntities(ctx.app, { model: "taskHistory", columns: taskHistoryColumns }, args);
}

const tasksByResult = relatedList({ model: "task", columns: taskColumns, parentField: "analysisResultId", defaultSort: [{ field: "creationDate", direction: "ASC" }] });
const historyByTask = relatedList({ model: "taskHistory", columns: taskHistoryColumns, parentField: "taskId", defaultSort: [{ field: "dateTime", direction: "ASC" }] });

/** `AnalysisResult.tasks`. */
export function resultTasks(ctx: RequestContext, analysisResultId: string, args: RelatedListArgs) {
  return tasksByResult(ctx.app, ctx, analysisResultId, args);
}

/** `Task.history`: oldest first. */
export function taskHistory(ctx: RequestContext, taskId: string, args: RelatedListArgs) {
  return historyByTask(ctx.app, ctx, taskId, args);
}

/** Tasks of a result per status, and how many are open (OPEN, NORMAL). */
export async function taskCounts(ctx: RequestContext, analysisResultId: string) {
  const rows = await ctx.prisma.task.groupBy({ by: ["status"], where: { analysisResultId }, _count: { _all: true } });
  const byStatus = Object.fromEntries(rows.map((r) => [r.status, r._count._all]));
  const total = rows.reduce((n, r) => n + r._count._all, 0);
  const open = rows.filter((r) => (OPEN_STATUSES as readonly string[]).includes(r.status)).reduce((n, r) => n + r._count._all, 0);
  return { total, open, byStatus };
}

/**
 * The result a task is made from, ready for tasks: 400 when unknown or of another engagement,
 * 423 while it is still being built (callers retry), 409 when its run failed.
 */
export async function readyResult(ctx: RequestContext, analysisResultId: string, engagementId?: string | null) {
  const result = await ctx.prisma.analysisResult.findUnique({ where: { id: analysisResultId } });
  if (!result) throw new ValidationError(`analysisResultId ${analysisResultId} refers to no analysis result`, { identifier: "analysisResultId", values: [analysisResultId] });
  if (engagementId && engagementId !== result.engagementId) {
    throw new ValidationError(`engagementId ${engagementId} is not the engagement of analysis result ${analysisResultId} (${result.engagementId})`, { identifier: "engagementId", values: [engagementId], suggestedValues: [result.engagementId] });
  }
  if (result.status === "RUNNING") {
    throw new LockedError(`Analysis result ${analysisResultId} is still being built; retry once the analysis run has completed`, { identifier: "analysisResultId", entityId: analysisResultId, entityType: "AnalysisResult" });
  }
  if (result.status !== "COMPLETED") {
    throw new ConflictError(`Analysis result ${analysisResultId} is ${result.status}; tasks are made from completed results`, { identifier: "analysisResultId", entityId: analysisResultId, entityType: "AnalysisResult" });
  }
  return result;
}

const dateOf = (value: string | null | undefined) => (value == null ? null : new Date(`${value}T00:00:00Z`));

/**
 * Only the task's approver approves or rejects it (403 otherwise, also when it has none); anyone
 * who may write tasks may set it back to PENDING.
 */
export function checkApproval(ctx: RequestContext, approverId: string | null, status: TaskApprovalStatus | null | undefined) {
  if (status !== "APPROVED" && status !== "REJECTED") return;
  const actor = actorOf(ctx);
  if (!approverId) {
    throw new ForbiddenError(`The task has no approver; assign one (approverId) before it can be ${status.toLowerCase()}`, { identifier: "taskApprovalStatus", values: [status] });
  }
  if (approverId !== actor.userId) {
    throw new ForbiddenError(`Only the task's approver (${approverId}) may set taskApprovalStatus to ${status}`, { identifier: "taskApprovalStatus", values: [status] });
  }
}

export function emitTask(emit: Emit, type: "task.created" | "task.updated" | "task.deleted", task: { id: string; analysisResultId: string; analysisId: string; engagementId: string; status: string }, actor: Actor) {
  emit({ type, entityType: "TASK", entityId: task.id, userId: actor.userId, payload: { taskId: task.id, analysisResultId: task.analysisResultId, analysisId: task.analysisId, engagementId: task.engagementId, status: task.status } });
}

const LISTS = ["tags", "assertions", "auditAreas"] as const;

/** Limits on what a client writes into a task (a review note, not a document store): 400 naming the key past them. */
const MAX_TEXT = 20_000;
const MAX_LIST_ITEMS = 500;
const MAX_LIST_ITEM = 500;

export function checkTaskSizes(input: { description?: string | null; tags?: string[] | null; assertions?: string[] | null; auditAreas?: string[] | null }) {
  if (input.description != null && input.description.length > MAX_TEXT) {
    throw new ValidationError(`description is longer than ${MAX_TEXT} characters`, { identifier: "description", problemType: "LESS_VALUE_REQUIRED" });
  }
  for (const list of LISTS) {
    const values = input[list];
    if (values == null) continue;
    if (values.length > MAX_LIST_ITEMS) throw new ValidationError(`${list} holds more than ${MAX_LIST_ITEMS} values`, { identifier: list, problemType: "LESS_VALUE_REQUIRED" });
    const long = values.findIndex((v) => v.length > MAX_LIST_ITEM);
    if (long >= 0) throw new ValidationError(`${list}[${long}] is longer than ${MAX_LIST_ITEM} characters`, { identifier: `${list}[${long}]`, problemType: "LESS_VALUE_REQUIRED" });
  }
}
const CREATED_FIELDS = ["analysisResultId", "type", "rowId", "transactionId", "name", "status", "assignedId", "approverId", "approvalId", "taskApprovalStatus", "description", "dueDate", "sample", ...LISTS];

export async function createTask(ctx: RequestContext, input: CreateTaskInput) {
  assertContent(input);
  checkTaskSizes(input);
  if (input.rowId == null && input.transactionId == null) {
    throw new ValidationError("Give rowId (the row of the result's data table) or transactionId", { identifier: "rowId" });
  }
  if (input.rowId != null && (!Number.isSafeInteger(input.rowId) || input.rowId < 1)) {
    throw new ValidationError("rowId must be a whole number of at least 1", { identifier: "rowId", values: [String(input.rowId)] });
  }
  const result = await readyResult(ctx, input.analysisResultId, input.engagementId);
  const tables = await taskTablesOf(ctx.app, result.id);
  const type = input.type ?? defaultType(tables, input.rowId == null);
  const table = tableForType(tables, type);
  if (input.rowId == null && !table.columns.some((c) => c.field === "txid")) {
    throw new ValidationError(`${type} rows are identified by rowId`, { identifier: "rowId" });
  }
  const row = await readResultRow(ctx.app, table, input);
  if (!row) {
    const identifier = input.rowId != null ? "rowId" : "transactionId";
    throw new ValidationError(`${table.logicalName} of analysis result ${result.id} has no row with ${identifier} ${input.rowId ?? input.transactionId}`, { identifier, values: [String(input.rowId ?? input.transactionId)] });
  }
  if (input.rowId != null && input.transactionId != null && row.txid !== input.transactionId) {
    throw new ValidationError(`Row ${input.rowId} of ${table.logicalName} belongs to transaction ${String(row.txid ?? "(none)")}, not ${input.transactionId}; give one of rowId and transactionId, or both of the same row`, {
      identifier: "transactionId",
      values: [input.transactionId],
      suggestedValues: row.txid == null ? [] : [String(row.txid)],
    });
  }
  await assertUsersExist(ctx, input.assignedId ? [input.assignedId] : [], "assignedId");
  await assertUsersExist(ctx, input.approverId ? [input.approverId] : [], "approverId");
  checkApproval(ctx, input.approverId ?? null, input.taskApprovalStatus);
  const analysis = await ctx.prisma.analysis.findUnique({ where: { id: result.analysisId }, select: { currencyCode: true } });
  const fields = taskFieldsOfRow(type, row, analysis?.currencyCode ?? null);
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const [task] = await insertTasks(tx, actor, [{ result, dataTableId: table.id, type, fields, options: input, filterStatement: null }]);
    if (!task) {
      throw new ConflictError(`Analysis result ${result.id} already has a ${type} task for row ${fields.rowId}`, { problemType: "NON_UNIQUE_VALUE", identifier: input.rowId != null ? "rowId" : "transactionId", values: [String(input.rowId ?? input.transactionId)], entityType: ENTITY });
    }
    emitTask(emit, "task.created", task, actor);
    return task;
  });
}

export interface TaskOptions {
  status?: TaskStatus | null;
  assignedId?: string | null;
  approverId?: string | null;
  description?: string | null;
  dueDate?: string | null;
  sample?: boolean | null;
  tags?: string[] | null;
  assertions?: string[] | null;
  auditAreas?: string[] | null;
  taskApprovalStatus?: TaskApprovalStatus | null;
}

export interface TaskSpec {
  result: { id: string; engagementId: string; analysisId: string; analysisTypeId: string };
  dataTableId: string;
  type: TaskType;
  fields: ReturnType<typeof taskFieldsOfRow>;
  options: TaskOptions;
  filterStatement: string | null;
}

function taskRecord(actor: Actor, spec: TaskSpec) {
  const { result, fields, options } = spec;
  const { rowDescription, ...rowFields } = fields;
  const approverId = options.approverId ?? null;
  return {
    ...createAudit(actor),
    engagementId: result.engagementId,
    analysisId: result.analysisId,
    analysisResultId: result.id,
    analysisTypeId: result.analysisTypeId,
    dataTableId: spec.dataTableId,
    type: spec.type,
    status: options.status ?? "OPEN",
    ...rowFields,
    rowId: BigInt(fields.rowId),
    amounts: fields.amounts,
    riskScores: fields.riskScores,
    debitValue: fields.debitValue === null ? null : BigInt(fields.debitValue),
    creditValue: fields.creditValue === null ? null : BigInt(fields.creditValue),
    assignedId: options.assignedId ?? null,
    approverId,
    approvalId: approverId ? newId() : null,
    taskApprovalStatus: options.taskApprovalStatus ?? (approverId ? "PENDING" : null),
    description: options.description ?? rowDescription,
    dueDate: dateOf(options.dueDate),
    sample: options.sample ?? false,
    tags: options.tags ?? [],
    assertions: options.assertions ?? [],
    auditAreas: options.auditAreas ?? [],
    filterStatement: spec.filterStatement,
  };
}

/**
 * Inserts tasks and their CREATE history entries (the caller's transaction), set-wise: rows that
 * already have a task of their type in the result are skipped. Returns the tasks inserted.
 */
export async function insertTasks(tx: Tx, actor: Actor, specs: TaskSpec[]) {
  const records = specs.map((spec) => taskRecord(actor, spec));
  if (records.length === 0) return [];
  await tx.task.createMany({ data: records, skipDuplicates: true });
  const tasks = await tx.task.findMany({ where: { id: { in: records.map((r) => r.id) } } });
  const at = new Date();
  await tx.taskHistory.createMany({
    data: tasks.map((task) => {
      const record = task as unknown as Record<string, unknown>;
      const changes = CREATED_FIELDS.filter((f) => record[f] !== null && !(Array.isArray(record[f]) && (record[f] as unknown[]).length === 0)).map((f) =>
        change(f, null, f === "rowId" ? Number(task.rowId) : record[f]),
      );
      return historyRow(task.id, task.analysisResultId, actor, "CREATE", changes, at);
    }),
  });
  return tasks;
}

const UPDATABLE = ["status", "assignedId", "approverId", "approvalId", "taskApprovalStatus", "description", "dueDate", "sample", ...LISTS] as const;

/**
 * PUT /tasks/{id}: the fields sent change (null clears assignee, approver, description, due date);
 * a new approver opens a new approval (new `approvalId`, PENDING); only the approver approves or
 * rejects. The history entry lists each changed field and is written with the change.
 */
export async function updateTask(ctx: RequestContext, id: string, input: UpdateTaskInput) {
  assertContent(input);
  checkTaskSizes(input);
  const current = await getTask(ctx, id);
  const next: Record<string, unknown> = {};
  if (input.status != null) next.status = input.status;
  if (input.assignedId !== undefined) next.assignedId = input.assignedId;
  if (input.description !== undefined) next.description = input.description;
  if (input.dueDate !== undefined) next.dueDate = input.dueDate;
  if (input.sample != null) next.sample = input.sample;
  for (const list of LISTS) if (input[list] != null) next[list] = input[list];
  await assertUsersExist(ctx, input.assignedId ? [input.assignedId] : [], "assignedId");
  await assertUsersExist(ctx, input.approverId ? [input.approverId] : [], "approverId");
  let approverId = current.approverId;
  if (input.approverId !== undefined && input.approverId !== current.approverId) {
    approverId = input.approverId;
    next.approverId = approverId;
    next.approvalId = approverId ? newId() : null;
    next.taskApprovalStatus = approverId ? "PENDING" : null;
  }
  if (input.taskApprovalStatus != null && input.taskApprovalStatus !== (next.taskApprovalStatus ?? current.taskApprovalStatus)) {
    if (!approverId) {
      throw new ForbiddenError("The task has no approver; assign one (approverId) before setting taskApprovalStatus", { identifier: "taskApprovalStatus", values: [input.taskApprovalStatus] });
    }
    checkApproval(ctx, approverId, input.taskApprovalStatus);
    next.taskApprovalStatus = input.taskApprovalStatus;
  }
  const before: Record<string, unknown> = { ...current, dueDate: current.dueDate == null ? null : String(current.dueDate instanceof Date ? current.dueDate.toISOString() : current.dueDate).slice(0, 10) };
  const changes = diff(before, next, UPDATABLE);
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const data: Record<string, unknown> = {};
    for (const c of changes) data[c.fieldName] = c.fieldName === "dueDate" ? dateOf(next.dueDate as string | null) : next[c.fieldName];
    const task = await saveVersioned(tx.task, ENTITY, id, input.version, data, actor);
    if (changes.length > 0) {
      await recordHistory(tx, id, task.analysisResultId, actor, "UPDATE", changes);
      emitTask(emit, "task.updated", task, actor);
    }
    return task;
  });
}

/** POST /tasks/{id}/add-comment: appends `{authorId, captured, commentText}` to `comments`. */
export async function addTaskComment(ctx: RequestContext, id: string, commentText: string) {
  if (typeof commentText !== "string" || commentText.trim() === "") {
    throw new ValidationError("commentText must contain at least one non-blank character", { identifier: "commentText", values: [String(commentText ?? "")] });
  }
  if (commentText.length > 20_000) throw new ValidationError("commentText is longer than 20000 characters", { identifier: "commentText", problemType: "LESS_VALUE_REQUIRED" });
  await getTask(ctx, id);
  const actor = actorOf(ctx);
  const comment = { authorId: actor.userId, captured: new Date().toISOString(), commentText };
  return inTransaction(ctx.app, async (tx, emit) => {
    const rows = await tx.$queryRaw<Array<{ comments: PrismaJson.TaskComments }>>`SELECT comments FROM task WHERE id = ${id} FOR UPDATE`;
    if (rows.length === 0) throw new NotFoundError(ENTITY, id);
    const comments = [...(rows[0].comments ?? []), comment];
    const task = await saveVersioned(tx.task, ENTITY, id, undefined, { comments }, actor);
    await recordHistory(tx, id, task.analysisResultId, actor, "COMMENT", [change("comments", null, comment)]);
    emitTask(emit, "task.updated", task, actor);
    return task;
  });
}

export async function deleteTask(ctx: RequestContext, id: string) {
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const task = await tx.task.findUnique({ where: { id } });
    if (!task) throw new NotFoundError(ENTITY, id);
    await tx.task.delete({ where: { id } });
    await recordHistory(tx, id, task.analysisResultId, actor, "DELETE", [change("status", task.status, null)]);
    emitTask(emit, "task.deleted", task, actor);
    return { id };
  });
}

export type { StoredTask };
