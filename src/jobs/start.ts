import type pg from "pg";
import { createAudit } from "../entity/audit.js";
import { newId } from "../core/ids.js";
import type { Tx } from "../events/outbox.js";
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
  /** Attempts for this run instead of the job's `retry.attempts` (e.g. from configuration). */
  maxAttempts?: number;
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
      // Each job's payload is a JSON object of its definition's shape (JobDefinition<P>).
      payload: (spec.payload ?? {}) as PrismaJson.JobPayload,
      tokenId: spec.startedBy.tokenId ?? null,
      maxAttempts: spec.maxAttempts ?? spec.job.retry.attempts,
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

/**
 * `startJob` on a plain `pg` transaction (the outbox relay's, for handlers whose writes commit with
 * an event's publication): the same async result row and scheduling event, written with SQL.
 */
export async function startJobOn<P>(client: pg.ClientBase, spec: StartJobSpec<P>): Promise<{ id: string }> {
  const id = spec.id ?? newId();
  const internal = spec.job.type === null;
  const type = spec.job.type ?? spec.job.name;
  await client.query(
    `INSERT INTO async_result (id, created_user_id, created_user_name, last_modified_user_id, last_modified_user_name, type, status, entity_id, entity_type,
                               internal, job_name, payload, token_id, max_attempts)
     VALUES ($1, $2, $3, $2, $3, $4, 'IN_PROGRESS', $5, $6, $7, $8, $9, $10, $11)`,
    [id, spec.startedBy.userId, spec.startedBy.userName, type, spec.entityId, spec.entityType, internal, spec.job.name, JSON.stringify(spec.payload ?? {}), spec.startedBy.tokenId ?? null, spec.maxAttempts ?? spec.job.retry.attempts],
  );
  await client.query(`INSERT INTO outbox_event (type, entity_type, entity_id, user_id, payload) VALUES ($1, $2, $3, $4, $5)`, [
    internal ? INTERNAL_JOB_STARTED_EVENT : JOB_STARTED_EVENT,
    spec.entityType,
    spec.entityId,
    spec.startedBy.userId,
    JSON.stringify({ asyncResultId: id, type, status: "IN_PROGRESS" }),
  ]);
  return { id };
}
