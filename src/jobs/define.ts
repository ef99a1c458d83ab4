import type { App } from "../app-types.js";
import type { Logger } from "../core/logger.js";
import type { Emit, Tx } from "../events/outbox.js";

/** Async result `type` values (wire reference section 4). */
export const ASYNC_RESULT_TYPES = [
  "ANALYSIS_RUN",
  "ANALYSIS_SOURCE_INGESTION",
  "ADMIN_REPORT",
  "DATA_TABLE_EXPORT",
  "ANALYSIS_ROLL_FORWARD",
  "GDPDU_UNPACK_JOB",
  "ACCOUNT_GROUPING_EXPORT",
  "ACCOUNT_MAPPING_EXPORT",
  "DATA_TRANSFORMATION_JOB",
  "DATA_SOURCE_IMPORT_TASK",
] as const;
export type AsyncResultType = (typeof ASYNC_RESULT_TYPES)[number];

/** Async result `entityType` values: what a job works on or produces. */
export const ASYNC_ENTITY_TYPES = [
  "ORGANIZATION",
  "ENGAGEMENT",
  "ANALYSIS",
  "ANALYSIS_RESULT",
  "ANALYSIS_SOURCE",
  "FILE_RESULT",
  "GDPDU_UNPACK_JOB",
  "ACCOUNT_GROUPING",
  "ENGAGEMENT_ACCOUNT_GROUPING",
  "FILE_MANAGER_FILE",
  "DATA_SOURCE_IMPORT_TASK",
] as const;
export type AsyncEntityType = (typeof ASYNC_ENTITY_TYPES)[number];

/**
 * An async result's `type` or `entityType` as the wire enum: the columns are plain text because
 * internal jobs (file info computation, data table indexes) store names of their own there, but
 * no caller ever sees those rows, so a value outside the enum here is a bug, not a request error.
 */
export function wireEnumValue<V extends string>(values: readonly V[], value: string): V {
  const known: readonly string[] = values;
  if (!known.includes(value)) throw new Error(`${value} is not one of the wire's values (${values.join(", ")})`);
  return values[known.indexOf(value)];
}

export const ASYNC_STATUSES = ["IN_PROGRESS", "COMPLETE", "ERROR"] as const;
export type AsyncStatus = (typeof ASYNC_STATUSES)[number];

/** Who started a job: its changes are attributed to this user, file results belong to this token. */
export interface JobStarter {
  userId: string;
  userName: string;
  tokenId?: string | null;
}

export interface RetryPolicy {
  /** Total attempts including the first (a crash of the process running it counts as one). */
  attempts: number;
  /** Wait before the second attempt; doubles for each further one. */
  backoffSeconds: number;
}

export interface JobContext {
  app: App;
  logger: Logger;
  asyncResultId: string;
  entityId: string | null;
  entityType: string | null;
  /** 1 for the first run; higher when resuming after a failure or a crashed process. */
  attempt: number;
  /** Attempts this job may use in all (`attempt` equal to it: no retry follows a failure). */
  maxAttempts: number;
  startedBy: JobStarter;
  /** Aborted when this process stops or loses the job's lease; long loops should check it. */
  signal: AbortSignal;
  /** Live progress for subscribers (0..100); not persisted, cheap to call often. */
  progress(percent: number, message?: string): void;
  /**
   * Runs `work` in one transaction that also marks the async result COMPLETE, so the job's last
   * writes and its completion commit together. Refused (and rolled back) if this process no
   * longer holds the job's lease. Jobs that do not call it are completed when `run` returns.
   * `commitAfter`: work still running elsewhere that must be done before the completion shows (it
   * never rejects): the transaction's statements run now, its commit waits for it.
   */
  finish<T>(work: (tx: Tx, emit: Emit) => Promise<T>, options?: { commitAfter?: Promise<unknown> }): Promise<T>;
}

export interface FailureContext {
  app: App;
  logger: Logger;
  asyncResultId: string;
  entityId: string | null;
  entityType: string | null;
  startedBy: JobStarter;
}

export interface JobDefinition<P = unknown> {
  /** Unique name, e.g. "file-manager.merge"; stored with each job, so keep it stable. */
  name: string;
  /** The async result type callers see; `null` for internal jobs that callers never poll. */
  type: AsyncResultType | null;
  retry: RetryPolicy;
  /** Overrides the configured lease for jobs whose steps may block for long. */
  leaseSeconds?: number;
  /** Must be idempotent: it may run again after a crash, from the beginning. */
  run(ctx: JobContext, payload: P): Promise<void>;
  /**
   * Called once when the job finally fails (no attempts left): clean up, mark the target failed.
   * `code` is the JobError's code, an API error's code, JOB_INTERRUPTED or UNEXPECTED_ERROR.
   */
  onFailure?(ctx: FailureContext, payload: P, error: string, code: string): Promise<void>;
}

/**
 * A failure that retrying cannot fix (a corrupt archive, a missing input). The job goes to ERROR
 * at once and `message` becomes the async result's `error`, so write it for the caller.
 */
export class JobError extends Error {
  constructor(
    message: string,
    /** A stable code naming the cause (targets that keep their errors show it, e.g. analysis sources). */
    readonly code = "JOB_FAILED",
  ) {
    super(message);
    this.name = "JobError";
  }
}

/**
 * A failure worth trying again after `delaySeconds` (instead of the policy's doubling backoff), e.g.
 * a webhook receiver's Retry-After. Without attempts left the job fails with `message`.
 */
export class JobRetry extends Error {
  constructor(
    message: string,
    readonly delaySeconds: number,
  ) {
    super(message);
    this.name = "JobRetry";
  }
}

/** Declares a job kind; its family lists it (src/modules/<family>/index.ts) so the runtime runs it. */
export function defineJob<P>(definition: Omit<JobDefinition<P>, "retry"> & { retry?: Partial<RetryPolicy> }): JobDefinition<P> {
  const job: JobDefinition<P> = { ...definition, retry: { attempts: definition.retry?.attempts ?? 3, backoffSeconds: definition.retry?.backoffSeconds ?? 5 } };
  if (!Number.isInteger(job.retry.attempts) || job.retry.attempts < 1) throw new Error(`Job ${job.name}: retry.attempts must be at least 1`);
  return job;
}
