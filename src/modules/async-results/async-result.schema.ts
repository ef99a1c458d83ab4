import { defineCrudFields } from "../common/crud-fields.js";
import { Repeater } from "graphql-yoga";
import { asyncResultColumns } from "./async-result.columns.js";
import { builder } from "../../graphql/builder.js";
import { Entity } from "../common/entity.js";
import { ASYNC_ENTITY_TYPES, ASYNC_RESULT_TYPES, ASYNC_STATUSES, JOB_COMPLETED_EVENT, JOB_FAILED_EVENT, JOB_PROGRESS_EVENT, wireEnumValue, type AsyncStatus } from "../../jobs/index.js";
import type { DomainEvent, TransientEvent } from "../../events/domain-event.js";
import * as service from "./async-result.service.js";

export const AsyncResultTypeEnum = builder.enumType("AsyncResultType", { values: ASYNC_RESULT_TYPES });
export const AsyncStatusEnum = builder.enumType("AsyncStatus", { values: ASYNC_STATUSES });
export const AsyncEntityTypeEnum = builder.enumType("AsyncEntityType", { values: ASYNC_ENTITY_TYPES });

export const AsyncResult = builder.prismaObject("AsyncResult", {
  description: "The state of an asynchronous job; the job's outcome is read from its target entity (entityId, entityType)",
  interfaces: [Entity],
  fields: (t) => ({
    type: t.field({ type: AsyncResultTypeEnum, resolve: (r) => wireEnumValue(ASYNC_RESULT_TYPES, r.type) }),
    status: t.field({ type: AsyncStatusEnum, resolve: (r) => r.status }),
    entityId: t.exposeID("entityId", { nullable: true }),
    entityType: t.field({ type: AsyncEntityTypeEnum, nullable: true, resolve: (r) => (r.entityType === null ? null : wireEnumValue(ASYNC_ENTITY_TYPES, r.entityType)) }),
    error: t.exposeString("error", { nullable: true, description: "Why the job failed; set when status is ERROR" }),
  }),
});

defineCrudFields({
  name: "AsyncResult",
  type: AsyncResult,
  columns: asyncResultColumns,
  permissions: { read: "authenticated" },
  service: {
    get: service.getAsyncResult,
    query: service.queryAsyncResults,
  },
  descriptions: { get: "Needs the read permission of the target entity type (a file result's job: only the token that started it)", query: "Async results whose targets the token may read; poll with {\"id\":{\"$in\":[...]}}" },
});

interface JobProgress {
  asyncResultId: string;
  status: AsyncStatus;
  percent: number | null;
  message: string | null;
  error: string | null;
}

const JobProgressRef = builder.objectRef<JobProgress>("JobProgress").implement({
  description: "Live progress of a job: percentages while it runs, then its final status",
  fields: (t) => ({
    asyncResultId: t.exposeID("asyncResultId"),
    status: t.field({ type: AsyncStatusEnum, resolve: (p) => p.status }),
    percent: t.exposeInt("percent", { nullable: true }),
    message: t.exposeString("message", { nullable: true }),
    error: t.exposeString("error", { nullable: true }),
  }),
});

builder.subscriptionField("jobProgress", (t) =>
  t.field({
    type: JobProgressRef,
    description: "Progress of one async result until it completes or fails (then the stream ends)",
    authScopes: { authenticated: true },
    args: { asyncResultId: t.arg.id({ required: true }) },
    subscribe: (_root, { asyncResultId }, ctx) =>
      new Repeater<JobProgress>(async (push, stop) => {
        const transient = ctx.app.pubsub.subscribe("transient-event");
        const domain = ctx.app.pubsub.subscribe("domain-event");
        stop.then(() => {
          void transient.return?.();
          void domain.return?.();
        });
        const row = await service.getAsyncResult(ctx, asyncResultId).catch((error) => {
          stop(error);
          return undefined;
        });
        if (!row) return;
        if (row.status !== "IN_PROGRESS") {
          await push({ asyncResultId, status: row.status, percent: row.status === "COMPLETE" ? 100 : null, message: null, error: row.error });
          stop();
          return;
        }
        const forward = async (events: AsyncIterable<TransientEvent | DomainEvent>) => {
          for await (const event of events) {
            const payload = event.payload as { asyncResultId?: string; percent?: number; message?: string; error?: string };
            if (payload.asyncResultId !== asyncResultId) continue;
            if (event.type === JOB_PROGRESS_EVENT) {
              await push({ asyncResultId, status: "IN_PROGRESS", percent: payload.percent ?? null, message: payload.message ?? null, error: null });
            } else if (event.type === JOB_COMPLETED_EVENT || event.type === JOB_FAILED_EVENT) {
              const done = event.type === JOB_COMPLETED_EVENT;
              await push({ asyncResultId, status: done ? "COMPLETE" : "ERROR", percent: done ? 100 : null, message: null, error: payload.error ?? null });
              stop();
              return;
            }
          }
        };
        void forward(transient);
        void forward(domain);
        await stop;
      }),
    resolve: (progress) => progress,
  }),
);
