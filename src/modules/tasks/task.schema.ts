import { defineCrudFields } from "../common/crud-fields.js";
import { taskColumns, taskHistoryColumns } from "./task.columns.js";
import { filter, pipe } from "graphql-yoga";
import { builder } from "../../graphql/builder.js";
import type { DomainEvent } from "../../events/domain-event.js";
import { Entity } from "../common/entity.js";
import { relatedListArgs } from "../common/page.js";
import { canSeeEvent } from "../events/event-permissions.js";
import "../analysis-results/analysis-result.schema.js";
import { AsyncResult } from "../async-results/async-result.schema.js";
import { CreateTaskInput, CreateTasksFromFilterInput, TaskApprovalStatus, TaskStatus, TaskType, UpdateTaskInput } from "./task.inputs.js";
import type { FieldChange } from "./task.history.js";
import type { TaskComment } from "./task.json-columns.js";
import * as service from "./task.service.js";
import * as bulk from "./task.bulk.js";
import { entityById } from "../common/relations.js";
import { User } from "../users/user.schema.js";


type Amount = { amount: number; currency: string | null };

const TaskComment = builder.objectRef<TaskComment>("TaskComment").implement({
  fields: (t) => ({
    authorId: t.exposeID("authorId"),
    author: t.field({ type: User, nullable: true, description: "The user who wrote the comment (authorId)", extensions: { rest: false }, authScopes: { permission: "api.users.read" }, resolve: (c, _a, ctx) => entityById("user")(ctx, c.authorId) }),
    captured: t.field({ type: "DateTime", resolve: (c) => new Date(c.captured) }),
    commentText: t.exposeString("commentText"),
  }),
});

const TaskHistoryChange = builder.objectRef<FieldChange>("TaskHistoryChange").implement({
  fields: (t) => ({
    fieldName: t.exposeString("fieldName"),
    fieldType: t.exposeString("fieldType"),
    previousValue: t.field({ type: "JSON", nullable: true, resolve: (c) => c.previousValue }),
    newValue: t.field({ type: "JSON", nullable: true, resolve: (c) => c.newValue }),
    previousValueString: t.exposeString("previousValueString", { nullable: true }),
    newValueString: t.exposeString("newValueString", { nullable: true }),
  }),
});

export const TaskHistory = builder.prismaObject("TaskHistory", {
  interfaces: [Entity],
  fields: (t) => ({
    taskId: t.exposeID("taskId"),
    userId: t.exposeID("userId", { nullable: true }),
    userName: t.exposeString("userName", { nullable: true }),
    dateTime: t.expose("dateTime", { type: "DateTime" }),
    operation: t.exposeString("operation", { description: "CREATE, UPDATE, COMMENT or DELETE" }),
    changes: t.field({ type: [TaskHistoryChange], resolve: (h) => h.changes }),
    task: t.prismaField({ type: "Task", nullable: true, authScopes: { permission: "api.tasks.read" }, resolve: (_q, p, _a, ctx) => entityById("task")(ctx, p.taskId) }),
    user: t.prismaField({ type: "User", nullable: true, authScopes: { permission: "api.users.read" }, resolve: (_q, p, _a, ctx) => entityById("user")(ctx, p.userId) }),
  }),
});

const date = (value: unknown) => (value == null ? null : value instanceof Date ? value.toISOString().slice(0, 10) : String(value).slice(0, 10));
const long = (value: unknown) => (value == null ? null : Number(value));

export const Task = builder.prismaObject("Task", {
  interfaces: [Entity],
  fields: (t) => ({
    engagementId: t.exposeID("engagementId"),
    analysisId: t.exposeID("analysisId"),
    analysisResultId: t.exposeID("analysisResultId"),
    analysisTypeId: t.exposeID("analysisTypeId"),
    name: t.exposeString("name"),
    type: t.field({ type: TaskType, resolve: (r) => r.type }),
    status: t.field({ type: TaskStatus, resolve: (r) => r.status }),
    rowId: t.field({ type: "Long", description: "rowid of the row in the result's data table (gl_journal_lines, gl_journal_tx, ap/ar_detail_entries)", resolve: (r) => long(r.rowId)! }),
    transactionId: t.exposeString("transactionId", { nullable: true }),
    transaction: t.exposeString("transaction", { nullable: true }),
    entryType: t.exposeString("entryType", { nullable: true }),
    assignedId: t.exposeID("assignedId", { nullable: true }),
    approverId: t.exposeID("approverId", { nullable: true }),
    approvalId: t.exposeID("approvalId", { nullable: true, description: "Id of the current approval: a new one each time an approver is assigned" }),
    taskApprovalStatus: t.field({ type: TaskApprovalStatus, nullable: true, resolve: (r) => r.taskApprovalStatus }),
    description: t.exposeString("description", { nullable: true }),
    dueDate: t.field({ type: "Date", nullable: true, resolve: (r) => date(r.dueDate) }),
    sample: t.exposeBoolean("sample"),
    sampleType: t.exposeString("sampleType", { nullable: true }),
    tags: t.exposeStringList("tags"),
    assertions: t.exposeStringList("assertions"),
    auditAreas: t.exposeStringList("auditAreas"),
    comments: t.field({ type: [TaskComment], resolve: (r) => r.comments }),
    amounts: t.field({ type: "JSON", description: "{key: {amount (MONEY_100, as the data endpoint), currency}}: amount, debit, credit, monetaryValue, outstandingAmount as the row has them", resolve: (r) => r.amounts as Record<string, Amount> }),
    riskScores: t.field({ type: "JSON", description: "{risk: 0..10000, <control point>: score} for every control point scoring above 0", resolve: (r) => r.riskScores }),
    creditValue: t.field({ type: "Long", nullable: true, resolve: (r) => long(r.creditValue) }),
    debitValue: t.field({ type: "Long", nullable: true, resolve: (r) => long(r.debitValue) }),
    customerName: t.exposeString("customerName", { nullable: true }),
    vendorName: t.exposeString("vendorName", { nullable: true }),
    invoiceRef: t.exposeString("invoiceRef", { nullable: true }),
    filterStatement: t.exposeString("filterStatement", { nullable: true, description: "The filter (query language JSON) of the bulk request that created it" }),
    history: t.prismaField({
      type: ["TaskHistory"],
      description: "Every change to the task, oldest first",
      args: relatedListArgs(t),
      resolve: (_query, task, args, ctx) => service.taskHistory(ctx, task.id, args),
    }),
    engagement: t.prismaField({ type: "Engagement", nullable: true, authScopes: { permission: "api.engagements.read" }, resolve: (_q, p, _a, ctx) => entityById("engagement")(ctx, p.engagementId) }),
    analysis: t.prismaField({ type: "Analysis", nullable: true, authScopes: { permission: "api.analyses.read" }, resolve: (_q, p, _a, ctx) => entityById("analysis")(ctx, p.analysisId) }),
    analysisResult: t.prismaField({ type: "AnalysisResult", nullable: true, authScopes: { permission: "api.analyses.read" }, resolve: (_q, p, _a, ctx) => entityById("analysisResult")(ctx, p.analysisResultId) }),
    analysisType: t.prismaField({ type: "AnalysisType", nullable: true, authScopes: { permission: "api.analysis-types.read" }, resolve: (_q, p, _a, ctx) => entityById("analysisType")(ctx, p.analysisTypeId) }),
    assigned: t.prismaField({ type: "User", nullable: true, authScopes: { permission: "api.users.read" }, resolve: (_q, p, _a, ctx) => entityById("user")(ctx, p.assignedId) }),
    approver: t.prismaField({ type: "User", nullable: true, authScopes: { permission: "api.users.read" }, resolve: (_q, p, _a, ctx) => entityById("user")(ctx, p.approverId) }),
  }),
});

const TaskCounts = builder.objectRef<{ total: number; open: number; byStatus: Record<string, number> }>("TaskCounts").implement({
  description: "Tasks of a result: open ones are OPEN or NORMAL (completed, dismissed and resolved tasks leave the open count)",
  fields: (t) => ({
    total: t.exposeInt("total"),
    open: t.exposeInt("open"),
    byStatus: t.field({ type: "JSON", description: "{status: count}", resolve: (c) => c.byStatus }),
  }),
});

builder.prismaObjectFields("AnalysisResult", (t) => ({
  tasks: t.prismaField({
    type: ["Task"],
    description: "The result's tasks (filter and sort as in tasks(filter:))",
    authScopes: { permission: "api.tasks.read" },
    args: relatedListArgs(t),
    resolve: (_query, result, args, ctx) => service.resultTasks(ctx, result.id, args),
  }),
  taskCounts: t.field({
    // GraphQL only: not part of the wire read model of an analysis result.
    extensions: { rest: false },
    type: TaskCounts,
    authScopes: { permission: "api.tasks.read" },
    resolve: (result, _args, ctx) => service.taskCounts(ctx, result.id),
  }),
}));

defineCrudFields({
  name: "TaskHistory",
  plural: "taskHistories",
  type: TaskHistory,
  columns: taskHistoryColumns,
  permissions: { read: "api.tasks.read" },
  service: {
    get: service.getTaskHistory,
    query: service.queryTaskHistories,
  },
});

builder.mutationFields((t) => ({
  addTaskComment: t.field({
    type: Task,
    authScopes: { permission: "api.tasks.write" },
    args: { id: t.arg.id({ required: true }), commentText: t.arg.string({ required: true }) },
    resolve: (_root, { id, commentText }, ctx) => service.addTaskComment(ctx, id, commentText),
  }),
  createTasksFromFilter: t.field({
    type: AsyncResult,
    description: "One async job (DATA_TRANSFORMATION_JOB on the ANALYSIS_RESULT) creating a task per selected row",
    authScopes: { permission: "api.tasks.write" },
    args: { input: t.arg({ type: CreateTasksFromFilterInput, required: true }) },
    resolve: (_root, { input }, ctx) => bulk.createTasksFromFilter(ctx, input),
  }),
}));

defineCrudFields({
  name: "Task",
  type: Task,
  columns: taskColumns,
  createInput: CreateTaskInput,
  updateInput: UpdateTaskInput,
  permissions: { read: "api.tasks.read", write: "api.tasks.write", delete: "api.tasks.delete" },
  service: {
    get: service.getTask,
    query: service.queryTasks,
    create: (ctx, input) => service.createTask(ctx, input),
    update: (ctx, id, input) => service.updateTask(ctx, id, input),
    delete: service.deleteTask,
  },
  descriptions: { create: "423 while the analysis result is still being built (retry)" },
});

const TaskChange = builder.objectRef<DomainEvent>("TaskChange").implement({
  description: "A task was created, updated (fields, approval, comment) or deleted",
  fields: (t) => ({
    type: t.exposeString("type", { description: "task.created, task.updated or task.deleted" }),
    taskId: t.id({ resolve: (e) => e.entityId! }),
    analysisResultId: t.id({ resolve: (e) => String(e.payload.analysisResultId) }),
    status: t.string({ nullable: true, resolve: (e) => (e.payload.status as string | undefined) ?? null }),
    userId: t.id({ nullable: true, resolve: (e) => e.userId }),
    task: t.field({ type: Task, nullable: true, description: "The task as it is now (null once deleted)", resolve: (e, _a, ctx) => (e.type === "task.deleted" ? null : ctx.prisma.task.findUnique({ where: { id: e.entityId! } })) }),
  }),
});

builder.subscriptionField("taskChanged", (t) =>
  t.field({
    type: TaskChange,
    description: "Task changes for a review dashboard, narrowed to a result, an analysis, an engagement or one task",
    authScopes: { permission: "api.tasks.read" },
    args: { analysisResultId: t.arg.id(), analysisId: t.arg.id(), engagementId: t.arg.id(), taskId: t.arg.id() },
    subscribe: (_root, args, ctx) =>
      pipe(
        ctx.app.pubsub.subscribe("domain-event"),
        filter(
          (event: DomainEvent) =>
            event.entityType === "TASK" &&
            canSeeEvent(ctx.auth!, event) &&
            (!args.taskId || event.entityId === args.taskId) &&
            (!args.analysisResultId || event.payload.analysisResultId === args.analysisResultId) &&
            (!args.analysisId || event.payload.analysisId === args.analysisId) &&
            (!args.engagementId || event.payload.engagementId === args.engagementId),
        ),
      ),
    resolve: (event) => event,
  }),
);
