import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import type { App } from "../app-types.js";
import { textWithoutNul } from "../core/db-text.js";
import { isAppError } from "../core/errors.js";
import { inTransaction, type Emit, type Tx } from "../events/outbox.js";
import type { NewDomainEvent } from "../events/domain-event.js";
import { JobError, JobRetry, type FailureContext, type JobContext, type JobDefinition, type JobStarter } from "./define.js";
import { INTERNAL_JOB_STARTED_EVENT, JOB_STARTED_EVENT } from "./start.js";
import type { JobQueue } from "./runners/queue.js";

interface ClaimedRow {
  id: string;
  job_name: string;
  payload: unknown;
  attempts: number;
  max_attempts: number;
  entity_id: string | null;
  entity_type: string | null;
  type: string;
  internal: boolean;
  created_user_id: string | null;
  created_user_name: string | null;
  token_id: string | null;
}

class LeaseLost extends Error {
  constructor(id: string) {
    super(`Job ${id} is no longer leased by this process`);
  }
}

interface Running {
  controller: AbortController;
  done: Promise<void>;
}

export const JOB_COMPLETED_EVENT = "async-result.completed";
export const JOB_FAILED_EVENT = "async-result.failed";
export const JOB_PROGRESS_EVENT = "async-result.progress";

/**
 * Runs jobs. The async result row is the job's state: a process claims it by taking a lease
 * (UPDATE ... WHERE the lease is free or expired), renews the lease while the job runs, and
 * records COMPLETE or ERROR only while it still holds the lease. A process that dies mid-job
 * leaves an expiring lease; the sweep of any process finds it and runs the job again (jobs are
 * idempotent), or fails it when its attempts are used up. The queue only says "look at row X".
 */
export class JobRuntime {
  readonly workerId = `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
  private readonly running = new Map<string, Running>();
  private readonly definitions = new Map<string, JobDefinition<any>>();
  private sweepTimer?: NodeJS.Timeout;
  private sweeping?: Promise<void>;
  private stopping = false;
  private started = false;

  constructor(
    private readonly app: App,
    private readonly queue: JobQueue,
  ) {
    app.relay.onEvent(async (event) => {
      if (event.type !== JOB_STARTED_EVENT && event.type !== INTERNAL_JOB_STARTED_EVENT) return;
      const id = (event.payload as { asyncResultId?: string }).asyncResultId;
      if (id) await this.enqueue(id, 0);
    });
  }

  /** Makes job kinds runnable in this process (the families' jobs, at start-up). */
  register(jobs: Iterable<JobDefinition<any>>): void {
    for (const job of jobs) {
      const known = this.definitions.get(job.name);
      if (known && known !== job) throw new Error(`Job ${job.name} is defined twice`);
      this.definitions.set(job.name, job);
    }
  }

  private get leaseSeconds(): number {
    return this.app.config.jobLeaseSeconds;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.queue.start((id) => this.execute(id));
    this.sweepTimer = setInterval(() => void this.sweep(), this.app.config.jobSweepSeconds * 1000);
    this.sweepTimer.unref();
    void this.sweep();
  }

  async enqueue(id: string, attempts: number, delayMs = 0): Promise<void> {
    if (this.stopping) return;
    await this.queue.enqueue(id, { key: `${id}-${attempts}`, delayMs });
  }

  /** Finds unfinished jobs nobody is running (never scheduled, or their process died) and queues them. */
  sweep(): Promise<void> {
    if (this.stopping) return Promise.resolve();
    this.sweeping ??= (async () => {
      try {
        const { rows } = await this.app.pool.query<{ id: string; attempts: number }>(
          `SELECT id, attempts FROM async_result
            WHERE status = 'IN_PROGRESS' AND run_after <= now()
              AND ((lease_expires_at IS NOT NULL AND lease_expires_at < now())
                OR (lease_expires_at IS NULL AND run_after < now() - make_interval(secs => $1)))
            ORDER BY run_after LIMIT 500`,
          [this.app.config.jobSweepSeconds],
        );
        for (const row of rows) if (!this.running.has(row.id)) await this.enqueue(row.id, row.attempts);
      } catch (error) {
        if (!this.stopping) this.app.logger.warn("job sweep failed", { error });
      } finally {
        this.sweeping = undefined;
      }
    })();
    return this.sweeping;
  }

  /** Claims and runs one job if it is due and nobody else holds it; otherwise does nothing. */
  async execute(id: string): Promise<void> {
    if (this.stopping || this.running.has(id)) return;
    const leaseSeconds = this.leaseSeconds;
    let row: ClaimedRow | undefined;
    try {
      const claimed = await this.app.pool.query<ClaimedRow>(
        `UPDATE async_result SET lease_owner = $2, lease_expires_at = now() + make_interval(secs => $3), attempts = attempts + 1
          WHERE id = $1 AND status = 'IN_PROGRESS' AND run_after <= now() AND (lease_expires_at IS NULL OR lease_expires_at < now())
          RETURNING id, job_name, payload, attempts, max_attempts, entity_id, entity_type, type, internal, created_user_id, created_user_name, token_id`,
        [id, this.workerId, leaseSeconds],
      );
      row = claimed.rows[0];
    } catch (error) {
      this.app.logger.warn("job claim failed", { error, asyncResultId: id });
      return;
    }
    if (!row) return;
    const definition = this.definitions.get(row.job_name);
    const controller = new AbortController();
    let settle!: () => void;
    const done = new Promise<void>((resolve) => (settle = resolve));
    this.running.set(id, { controller, done });
    let retry: { delayMs: number } | undefined;
    try {
      if (!definition) {
        await this.fail(row, undefined, `This server cannot run jobs of kind ${row.job_name}`, "UNKNOWN_JOB");
        return;
      }
      if (row.attempts > row.max_attempts) {
        await this.fail(row, definition, `The job was interrupted (the process running it stopped) and has used all ${row.max_attempts} attempt(s)`, "JOB_INTERRUPTED");
        return;
      }
      retry = await this.run(row, definition, controller);
    } finally {
      this.running.delete(id);
      settle();
    }
    // Scheduled only now: while the job counted as running here, execute() would skip it.
    if (retry) await this.enqueue(id, row.attempts, retry.delayMs).catch((error) => this.app.logger.warn("could not schedule retry; the sweep will", { error }));
  }

  /** Runs a claimed job to its outcome; returns the delay when it should be tried again. */
  private async run(row: ClaimedRow, definition: JobDefinition<unknown>, controller: AbortController): Promise<{ delayMs: number } | undefined> {
    const leaseSeconds = definition.leaseSeconds ?? this.leaseSeconds;
    let progress: number | null = null;
    const heartbeat = setInterval(
      () => {
        this.app.pool
          .query(
            `UPDATE async_result SET lease_expires_at = now() + make_interval(secs => $3), progress = coalesce($4, progress)
              WHERE id = $1 AND lease_owner = $2 AND status = 'IN_PROGRESS'`,
            [row.id, this.workerId, leaseSeconds, progress],
          )
          .then((result) => {
            if (result.rowCount === 0 && !controller.signal.aborted) controller.abort(new LeaseLost(row.id));
          })
          .catch((error) => this.app.logger.warn("job heartbeat failed", { error, asyncResultId: row.id }));
      },
      Math.max(200, (leaseSeconds * 1000) / 3),
    );
    heartbeat.unref();

    let finished = false;
    let lastPublished = 0;
    const context: JobContext = {
      ...this.failureContext(row),
      attempt: row.attempts,
      maxAttempts: row.max_attempts,
      signal: controller.signal,
      progress: (percent, message) => {
        progress = Math.max(0, Math.min(100, Math.round(percent)));
        const now = Date.now();
        if (now - lastPublished < 200 && progress < 100) return;
        lastPublished = now;
        this.app.pubsub.publish("transient-event", {
          type: JOB_PROGRESS_EVENT,
          entityType: row.entity_type ?? "",
          entityId: row.entity_id ?? "",
          payload: { asyncResultId: row.id, percent: progress, ...(message ? { message } : {}) },
          occurredAt: new Date().toISOString(),
        });
      },
      finish: async (work, options) => {
        const value = await this.complete(row, work, options?.commitAfter);
        finished = true;
        return value;
      },
    };

    const started = performance.now();
    const observe = (outcome: "complete" | "error" | "retry" | "lost") => {
      const labels = { job: row.job_name, type: row.internal ? "INTERNAL" : row.type, outcome };
      this.app.metrics.jobs.inc(labels);
      this.app.metrics.jobDuration.observe(labels, (performance.now() - started) / 1000);
    };
    try {
      if (row.attempts > 1) this.app.logger.info("resuming job", { asyncResultId: row.id, job: row.job_name, attempt: row.attempts });
      await definition.run(context, row.payload);
      if (!finished) await this.complete(row, async () => undefined);
      observe("complete");
    } catch (error) {
      const reason = controller.signal.reason;
      if (error instanceof LeaseLost || reason instanceof LeaseLost) {
        this.app.logger.warn("job lost its lease; another process may run it", { asyncResultId: row.id, job: row.job_name });
        observe("lost");
        return undefined;
      }
      if (this.stopping) return undefined; // released in close(); another process (or the next start) resumes it
      if (error instanceof JobRetry) {
        const message = textWithoutNul(error.message);
        if (row.attempts >= row.max_attempts) {
          await this.fail(row, definition, message, "RETRIES_EXHAUSTED");
          return undefined;
        }
        return await this.releaseForRetry(row, definition, message, error.delaySeconds);
      }
      const permanent = error instanceof JobError || isAppError(error);
      const message = permanent ? textWithoutNul((error as Error).message) : `Unexpected error while running the job (reference ${row.id}); the server log has the details`;
      const final = permanent || row.attempts >= row.max_attempts;
      if (!permanent) this.app.logger[final ? "error" : "warn"](final ? "job failed" : "job attempt failed; it will be retried", { error, asyncResultId: row.id, job: row.job_name, attempt: row.attempts });
      observe(final ? "error" : "retry");
      if (final) {
        const code = error instanceof JobError ? error.code : isAppError(error) ? String(error.extensions.code) : "UNEXPECTED_ERROR";
        await this.fail(row, definition, message, code);
        return undefined;
      }
      return await this.releaseForRetry(row, definition, message);
    } finally {
      clearInterval(heartbeat);
    }
    return undefined;
  }

  private failureContext(row: ClaimedRow): FailureContext {
    const startedBy: JobStarter = { userId: row.created_user_id ?? "", userName: row.created_user_name ?? "", tokenId: row.token_id };
    return { app: this.app, logger: this.app.logger, asyncResultId: row.id, entityId: row.entity_id, entityType: row.entity_type, startedBy };
  }

  private statusEvent(row: ClaimedRow, type: string, extra: Record<string, unknown>): NewDomainEvent {
    return {
      type,
      entityType: row.entity_type ?? "",
      entityId: row.entity_id,
      userId: row.created_user_id,
      payload: { asyncResultId: row.id, type: row.type, ...extra },
    };
  }

  /** The job's final writes and COMPLETE in one transaction, only while this process holds the lease. */
  private async complete<T>(row: ClaimedRow, work: (tx: Tx, emit: Emit) => Promise<T>, commitAfter?: Promise<unknown>): Promise<T> {
    return inTransaction(
      this.app,
      async (tx, emit) => {
        const held = await tx.$queryRaw<Array<{ id: string }>>`SELECT id FROM async_result WHERE id = ${row.id} AND lease_owner = ${this.workerId} AND status = 'IN_PROGRESS' FOR UPDATE`;
        if (held.length === 0) throw new LeaseLost(row.id);
        const result = await work(tx, emit);
        await tx.$executeRaw`UPDATE async_result SET status = 'COMPLETE', error = NULL, progress = 100, lease_owner = NULL, lease_expires_at = NULL,
            completed_at = now(), last_modified_date = now(), version = version + 1 WHERE id = ${row.id}`;
        if (!row.internal) emit(this.statusEvent(row, JOB_COMPLETED_EVENT, { status: "COMPLETE" }));
        return result;
      },
      { timeout: 10 * 60_000, maxWait: 30_000, commitAfter },
    );
  }

  private async fail(row: ClaimedRow, definition: JobDefinition<unknown> | undefined, message: string, code: string): Promise<void> {
    // Cleanup first: if this process dies here, the job is claimed again and fails again, cleaning up then.
    if (definition?.onFailure) {
      await definition.onFailure(this.failureContext(row), row.payload, message, code).catch((error) => this.app.logger.error("job failure cleanup failed", { error, asyncResultId: row.id }));
    }
    await inTransaction(this.app, async (tx, emit) => {
      const updated = await tx.$executeRaw`UPDATE async_result SET status = 'ERROR', error = ${message}, last_error = ${message}, lease_owner = NULL, lease_expires_at = NULL,
          completed_at = now(), last_modified_date = now(), version = version + 1 WHERE id = ${row.id} AND lease_owner = ${this.workerId} AND status = 'IN_PROGRESS'`;
      if (updated > 0 && !row.internal) emit(this.statusEvent(row, JOB_FAILED_EVENT, { status: "ERROR", error: message }));
    });
  }

  private async releaseForRetry(row: ClaimedRow, definition: JobDefinition<unknown>, message: string, delay?: number): Promise<{ delayMs: number }> {
    const delaySeconds = delay ?? definition.retry.backoffSeconds * 2 ** (row.attempts - 1);
    await this.app.pool.query(
      `UPDATE async_result SET lease_owner = NULL, lease_expires_at = NULL, last_error = $3, run_after = now() + make_interval(secs => $4)
        WHERE id = $1 AND lease_owner = $2 AND status = 'IN_PROGRESS'`,
      [row.id, this.workerId, message, delaySeconds],
    );
    this.app.logger.info("job will be retried", { asyncResultId: row.id, job: row.job_name, attempt: row.attempts, delaySeconds });
    return { delayMs: Math.round(delaySeconds * 1000) };
  }

  /**
   * Stops taking work, asks running jobs to stop, and hands back their leases without counting the
   * attempt, so another process (or this one after a restart) resumes them at once.
   */
  async close(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    await this.sweeping;
    for (const job of this.running.values()) job.controller.abort(new Error("shutting down"));
    const all = Promise.all([...this.running.values()].map((job) => job.done));
    await Promise.race([all, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
    await this.app.pool
      .query(
        `UPDATE async_result SET lease_owner = NULL, lease_expires_at = NULL, attempts = greatest(attempts - 1, 0)
          WHERE lease_owner = $1 AND status = 'IN_PROGRESS'`,
        [this.workerId],
      )
      .catch((error) => this.app.logger.warn("could not release job leases", { error }));
    await this.queue.close();
  }
}
