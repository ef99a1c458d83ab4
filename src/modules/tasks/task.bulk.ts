import { ValidationError } from "../../core/errors.js";
import { assertContent } from "../../entity/index.js";
import { inTransaction } from "../../events/outbox.js";
import type { RequestContext } from "../../graphql/context.js";
import { defineJob, JobError, jobStarter, startJob } from "../../jobs/index.js";
import { checkFilter } from "../../query-language/index.js";
import { columnSet } from "../data-tables/data-table-rows.js";
import { populationQueriesFor } from "../data-tables/data-table-filters.js";
import { savedFilterQuery } from "../saved-filters/saved-filter.service.js";
import { assertUsersExist } from "../users/user.service.js";
import type { TaskType } from "./task.columns.js";
import { checkApproval, checkTaskSizes, emitTask, insertTasks, readyResult, type TaskOptions, type TaskSpec } from "./task.service.js";
import type { CreateTasksFromFilterInput } from "./task.inputs.js";
import { defaultType, matchingRows, tableForType, taskFieldsOfRow, taskTablesOf } from "./task-rows.js";

import { DEFAULT_BULK_TASKS, MAX_BULK_TASKS } from "./task.inputs.js";

export { DEFAULT_BULK_TASKS, MAX_BULK_TASKS };

interface BulkPayload {
  analysisResultId: string;
  type: TaskType;
  query: unknown;
  /** The populations the query names, resolved with the starting token's access. */
  populations?: Record<string, Record<string, unknown>>;
  limit: number;
  options: TaskOptions;
}

/**
 * POST /tasks/create-from-filter: checks everything at once (400 naming the key, 423 while the
 * result is being built); `savedFilterId` compiles the saved filter on the task table (the token
 * must be able to read it: an unknown or unreadable one is a 400 naming `savedFilterId`) and ANDs it
 * with `query`; populations either names are resolved now, with the token's access. Then one job makes a task of every row the filter selects, highest risk
 * first, up to `limit`, skipping rows that already have one. All tasks, their CREATE history
 * entries and `task.created` events commit with the job's completion, so a retried job starts over.
 */
export async function createTasksFromFilter(ctx: RequestContext, input: CreateTasksFromFilterInput) {
  assertContent(input);
  checkTaskSizes(input);
  const limit = input.limit ?? DEFAULT_BULK_TASKS;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_BULK_TASKS) {
    throw new ValidationError(`limit must be a whole number from 1 to ${MAX_BULK_TASKS}`, { identifier: "limit", values: [String(limit)], problemType: limit > MAX_BULK_TASKS ? "LESS_VALUE_REQUIRED" : "GREATER_VALUE_REQUIRED" });
  }
  const result = await readyResult(ctx, input.analysisResultId, input.engagementId);
  const tables = await taskTablesOf(ctx.app, result.id);
  const type = input.type ?? defaultType(tables, false);
  const table = tableForType(tables, type);
  const set = columnSet(table);
  if (input.query != null && (typeof input.query !== "object" || Array.isArray(input.query))) {
    throw new ValidationError("query must be a query-language object such as {\"risk\": {\"$gte\": 5000}}", { identifier: "query", values: [JSON.stringify(input.query)], problemType: "FILTER_CONVERSION_FAILED" });
  }
  if (input.query != null) checkFilter(input.query, set, { populationsSupported: true });
  let query: unknown = input.query ?? {};
  if (input.savedFilterId) {
    const saved = await savedFilterQuery(ctx, input.savedFilterId, set, table);
    query = input.query == null ? saved : { $and: [input.query, saved] };
  }
  const populations = await populationQueriesFor(ctx, query, { ...table, analysisId: result.analysisId, engagementId: result.engagementId });
  await assertUsersExist(ctx, input.assignedId ? [input.assignedId] : [], "assignedId");
  await assertUsersExist(ctx, input.approverId ? [input.approverId] : [], "approverId");
  checkApproval(ctx, input.approverId ?? null, input.taskApprovalStatus);
  const { analysisResultId: _r, engagementId: _e, type: _t, query: _q, savedFilterId: _f, limit: _l, ...options } = input;
  const payload: BulkPayload = { analysisResultId: result.id, type, query, populations, limit, options: JSON.parse(JSON.stringify(options)) as TaskOptions };
  return inTransaction(ctx.app, (tx) => startJob(tx, { job: createTasksJob, payload, entityType: "ANALYSIS_RESULT", entityId: result.id, startedBy: jobStarter(ctx) }));
}

export const createTasksJob = defineJob<BulkPayload>({
  name: "tasks.create-from-filter",
  // The wire's async result types have no task kind; this is a data transformation of the result.
  type: "DATA_TRANSFORMATION_JOB",
  retry: { attempts: 3, backoffSeconds: 5 },
  async run(ctx, payload) {
    const app = ctx.app;
    const result = await app.prisma.analysisResult.findUnique({ where: { id: payload.analysisResultId } });
    if (!result || result.status !== "COMPLETED") throw new JobError(`Analysis result ${payload.analysisResultId} is gone or no longer completed`);
    const analysis = await app.prisma.analysis.findUnique({ where: { id: result.analysisId }, select: { currencyCode: true } });
    const tables = await taskTablesOf(app, result.id);
    const table = tables.get(payload.type);
    if (!table) throw new JobError(`Analysis result ${result.id} has no table of ${payload.type} rows`);
    const filterStatement = JSON.stringify(payload.query);
    const specs: TaskSpec[] = [];
    ctx.progress(5, "selecting rows");
    for await (const rows of matchingRows(app, table, payload.query, payload.limit, payload.populations ?? {})) {
      ctx.signal.throwIfAborted();
      for (const row of rows) specs.push({ result, dataTableId: table.id, type: payload.type, fields: taskFieldsOfRow(payload.type, row, analysis?.currencyCode ?? null), options: payload.options, filterStatement });
    }
    ctx.progress(50, `creating up to ${specs.length} tasks`);
    const actor = { userId: ctx.startedBy.userId, userName: ctx.startedBy.userName };
    await ctx.finish(async (tx, emit) => {
      for (let i = 0; i < specs.length; i += 1000) {
        const tasks = await insertTasks(tx, actor, specs.slice(i, i + 1000));
        for (const task of tasks) emitTask(emit, "task.created", task, actor);
      }
    });
  },
});
