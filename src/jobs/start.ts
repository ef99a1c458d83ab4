import { createAudit } from "../entity/audit.js";
import type { Tx } from "../events/outbox.js";
import type { Prisma } from "../generated/prisma/client.js";
import type { RequestContext } from "../app-types.js";
import type { AsyncEntityType, JobDefinition, JobStarter } from "./define.js";

export interface StartJobSpec<P> {
  job: JobDefinition<P>;
  payload: P;
  /** The entity the job works on or produces; it must already exist (callers GET it at once). */
  entityType: AsyncEntityType | (string & {});
  entityId: string;
  startedBy: JobStarter;
  /** Fixed id for the async result, when the target entity must reference it before it exists. */
  id?: string;
}

/** Event that schedules a job once its transaction committed (the relay hands it to the queue). */
export const JOB_STARTED_EVENT = "async-result.started";
export const INTERNAL_JOB_STARTED_EVENT = "job.started";

/** The starter of a job begun by an API request: its token user and the token itself. */
export function jobStarter(ctx: RequestContext): JobStarter {
  if (!ctx.auth) throw new Error("jobStarter called without an authenticated request");
  return { userId: ctx.auth.userId, userName: ctx.auth.userName, tokenId: ctx.auth.tokenId };
}

/**
 * Creates the job's async result inside the caller's transaction (status IN_PROGRESS, target set)
 * and schedules it after commit: the scheduling event goes through the outbox, so a rolled-back
 * start never runs and a committed one is never lost (the recovery sweep is the second net).
 */
export async function startJob<P>(tx: Tx, spec: StartJobSpec<P>) {
  const audit = createAudit({ userId: spec.startedBy.userId, userName: spec.startedBy.userName });
  const internal = spec.job.type === null;
  const row = await tx.asyncResult.create({
    data: {
      ...audit,
      ...(spec.id ? { id: spec.id } : {}),
      type: spec.job.type ?? spec.job.name,
      status: "IN_PROGRESS",
      entityId: spec.entityId,
      entityType: spec.entityType,
      internal,
      jobName: spec.job.name,
      payload: (spec.payload ?? {}) as Prisma.InputJsonValue,
      tokenId: spec.startedBy.tokenId ?? null,
      maxAttempts: spec.job.retry.attempts,
    },
  });
  await tx.outboxEvent.create({
    data: {
      type: internal ? INTERNAL_JOB_STARTED_EVENT : JOB_STARTED_EVENT,
      entityType: spec.entityType,
      entityId: spec.entityId,
      userId: spec.startedBy.userId,
      payload: { asyncResultId: row.id, type: row.type, status: row.status },
    },
  });
  return row;
}
