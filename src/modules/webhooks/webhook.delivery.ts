import type { App } from "../../app-types.js";
import { newId } from "../../core/ids.js";
import type { DomainEvent } from "../../events/domain-event.js";
import { inTransaction } from "../../events/outbox.js";
import { defineEventHandler, defineJob, JobRetry, startJobOn, type JobContext } from "../../jobs/index.js";
import { isWebhookEventType, type DeliveryStatus } from "./webhook-events.js";
import { keyEncryptionKey, signatureHeader, signingKey, SigningKeyUnavailable } from "./webhook-keys.js";
import { post, resolveTarget, RESPONSE_BODY_LIMIT, type Attempt } from "./outbound.js";

export const DELIVERY_JOB = "webhooks.delivery";
const USER_AGENT = "ledger-analytics-webhooks/1 (+Standard Webhooks)";
/** A Retry-After longer than this is not waited for (the schedule's wait applies instead, if longer). */
const MAX_RETRY_AFTER_SECONDS = 24 * 3600;

interface DeliveryPayload {
  deliveryId: string;
}

/**
 * The webhook payload (spec 6.2, wire reference 7): fixed when the event is fanned out, so every
 * attempt sends the same bytes. `senderId` is the webhook that sends it; `data` is the event's own
 * payload plus the deprecated copy of `eventId`.
 */
export function webhookBody(app: Pick<App, "config">, event: DomainEvent, eventId: string, webhookId: string): string {
  return JSON.stringify({
    type: event.type,
    eventId,
    tenantId: app.config.tenantId,
    senderId: webhookId,
    userId: event.userId,
    timestamp: event.occurredAt,
    data: { ...event.payload, eventId },
  });
}

/**
 * Fans each committed event out to the ACTIVE webhooks subscribed to its type: one delivery row
 * and one job each, written on the relay's transaction, so an event is fanned out exactly once in
 * the deployment and never lost (the relay hands the event over again if this does not commit).
 */
export const webhookFanOut = defineEventHandler({
  name: "webhooks.fan-out",
  accepts: isWebhookEventType,
  async handle(app, event, client) {
    const { rows } = await client.query<{ id: string; created_user_id: string | null; created_user_name: string | null }>(
      "SELECT id, created_user_id, created_user_name FROM webhook WHERE status = 'ACTIVE' AND events @> ARRAY[$1]::text[] ORDER BY id",
      [event.type],
    );
    if (rows.length === 0) return;
    const eventId = newId();
    const maxAttempts = 1 + app.config.webhookRetrySchedule.length;
    for (const webhook of rows) {
      const deliveryId = newId();
      const inserted = await client.query(
        `INSERT INTO webhook_delivery (id, webhook_id, outbox_event_id, event_id, event_type, body) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (outbox_event_id, webhook_id) DO NOTHING`,
        [deliveryId, webhook.id, event.id, eventId, event.type, webhookBody(app, event, eventId, webhook.id)],
      );
      if (inserted.rowCount === 0) continue;
      await startJobOn(client, {
        job: deliveryJob,
        payload: { deliveryId },
        entityType: "WEBHOOK",
        entityId: webhook.id,
        startedBy: { userId: webhook.created_user_id ?? "", userName: webhook.created_user_name ?? "" },
        maxAttempts,
      });
    }
  },
});

/**
 * Each attempt of one delivery: the job runtime runs it once per attempt (leased, so once across
 * processes; resumed after a crash), and this decides when the next attempt happens (JobRetry).
 */
export const deliveryJob = defineJob<DeliveryPayload>({
  name: DELIVERY_JOB,
  type: null,
  // Unexpected errors (a database outage) back off like other jobs; the attempts come from the configuration.
  retry: { attempts: 8, backoffSeconds: 5 },
  run: (ctx, payload) => attemptDelivery(ctx, payload.deliveryId),
  async onFailure(ctx, payload, error) {
    // Out of attempts because processes died mid-attempt, or an unexpected error: close what is open.
    await closeOpenAttempts(ctx.app, payload.deliveryId, "FAILED_PERMANENTLY", `no attempt left: ${error}`);
    await finishDelivery(ctx.app, payload.deliveryId, "FAILED");
  },
});

interface DeliveryRow {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  body: string;
  status: string;
  url: string;
  webhook_status: string;
  private_key_encrypted: string;
  created_user_id: string | null;
  created_user_name: string | null;
}

type Outcome = { status: DeliveryStatus; reason?: string; retryAfterSeconds?: number; gone?: boolean; retryable: boolean };

async function attemptDelivery(ctx: JobContext, deliveryId: string): Promise<void> {
  const app = ctx.app;
  const { rows } = await app.pool.query<DeliveryRow>(
    `SELECT d.id, d.webhook_id, d.event_id, d.event_type, d.body, d.status, w.url, w.status AS webhook_status, w.private_key_encrypted,
            w.created_user_id, w.created_user_name
       FROM webhook_delivery d JOIN webhook w ON w.id = d.webhook_id WHERE d.id = $1`,
    [deliveryId],
  );
  const delivery = rows[0];
  if (!delivery || delivery.status !== "PENDING") return; // webhook deleted (cascade), or already finished
  await closeOpenAttempts(app, deliveryId, "FAILED", "interrupted: the process running this attempt stopped before it finished; the receiver may have got it (same webhook-id)");

  const attemptStartDate = new Date();
  const log = {
    webhookId: delivery.webhook_id,
    deliveryId,
    url: delivery.url,
    eventType: delivery.event_type,
    eventId: delivery.event_id,
    requestId: delivery.event_id,
    requestBody: delivery.body,
    retryCount: ctx.attempt - 1,
    attemptStartDate,
    createdUserId: delivery.created_user_id,
    createdUserName: delivery.created_user_name,
    lastModifiedUserId: delivery.created_user_id,
    lastModifiedUserName: delivery.created_user_name,
  };
  if (delivery.webhook_status !== "ACTIVE") {
    await app.prisma.webhookEventLog.create({
      data: { id: newId(), ...log, status: "DISCONNECTED", requestHeaders: {}, failureReason: `not sent: the webhook is ${delivery.webhook_status}` },
    });
    await finishDelivery(app, deliveryId, "DISCONNECTED");
    return;
  }

  const timestamp = Math.floor(attemptStartDate.getTime() / 1000);
  let signature: string;
  try {
    signature = signatureHeader(signingKey(keyEncryptionKey(app.config), delivery.webhook_id, delivery.private_key_encrypted), delivery.event_id, timestamp, delivery.body);
  } catch (error) {
    if (!(error instanceof SigningKeyUnavailable)) throw error;
    app.logger.error("webhook delivery cannot be signed", { webhookId: delivery.webhook_id, reason: error.message });
    await app.prisma.webhookEventLog.create({ data: { id: newId(), ...log, status: "FAILED_PERMANENTLY", requestHeaders: {}, failureReason: `not sent: ${error.message}` } });
    await finishDelivery(app, deliveryId, "FAILED");
    return;
  }
  const headers = {
    "content-type": "application/json",
    "user-agent": USER_AGENT,
    "webhook-id": delivery.event_id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signature,
  };
  const logId = newId();
  await app.prisma.webhookEventLog.create({
    data: { id: logId, ...log, status: "IN_PROGRESS", requestHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])) },
  });

  const url = new URL(delivery.url);
  const target = await resolveTarget(app.config, url.hostname);
  const attempt: Attempt | undefined = target.ok ? await post(app.config, url, target, headers, delivery.body, ctx.signal) : undefined;
  if (ctx.signal.aborted) {
    await closeOpenAttempts(app, deliveryId, "FAILED", "interrupted: the server stopped during the attempt; it is attempted again");
    throw ctx.signal.reason ?? new Error("aborted");
  }
  const outcome: Outcome = target.ok ? outcomeOf(attempt!) : { status: "FAILED", reason: target.reason, retryable: target.retryable };
  const response =
    attempt?.kind === "response"
      ? { responseStatusCode: attempt.statusCode, responseHeaders: attempt.headers, responseBody: attempt.truncated ? `${attempt.body}\n[truncated after ${RESPONSE_BODY_LIMIT} bytes]` : attempt.body }
      : {};
  const responseTimeSec = attempt ? Math.round(attempt.seconds * 1000) / 1000 : null;
  app.metrics.webhookDeliveries.inc({ event: delivery.event_type, status: outcome.status });
  if (attempt) app.metrics.webhookDuration.observe({ status: outcome.status }, attempt.seconds);

  if (outcome.status === "COMPLETED") {
    await inTransaction(app, async (tx) => {
      await tx.webhookEventLog.update({ where: { id: logId }, data: { ...response, responseTimeSec, status: "COMPLETED", lastModifiedDate: new Date() } });
      await tx.webhookDelivery.update({ where: { id: deliveryId }, data: { status: "COMPLETED", finishedAt: new Date() } });
    });
    return;
  }
  const lastAttempt = ctx.attempt >= ctx.maxAttempts;
  if (outcome.retryable && !lastAttempt) {
    const delaySeconds = nextDelaySeconds(app.config.webhookRetrySchedule, ctx.attempt - 1, outcome.retryAfterSeconds);
    await app.prisma.webhookEventLog.update({
      where: { id: logId },
      data: { ...response, responseTimeSec, status: "FAILED", failureReason: outcome.reason, nextAttemptDate: new Date(Date.now() + delaySeconds * 1000), lastModifiedDate: new Date() },
    });
    throw new JobRetry(`webhook delivery attempt ${ctx.attempt} failed: ${outcome.reason}`, delaySeconds);
  }
  const reason = outcome.retryable ? `${outcome.reason}; that was the last of ${ctx.maxAttempts} attempts` : outcome.reason;
  await app.prisma.webhookEventLog.update({ where: { id: logId }, data: { ...response, responseTimeSec, status: "FAILED_PERMANENTLY", failureReason: reason, lastModifiedDate: new Date() } });
  await finishDelivery(app, deliveryId, "FAILED");
  if (outcome.gone) await deactivate(app, delivery.webhook_id);
}

function outcomeOf(attempt: Attempt): Outcome {
  if (attempt.kind === "error") return { status: "FAILED", reason: attempt.reason, retryable: true };
  const status = attempt.statusCode;
  if (status >= 200 && status < 300) return { status: "COMPLETED", retryable: false };
  if (status === 410) return { status: "FAILED_PERMANENTLY", reason: "410 Gone: the receiver asked for no more deliveries; the webhook was set INACTIVE", gone: true, retryable: false };
  const retryAfterSeconds = retryAfter(attempt.headers["retry-after"]?.[0]);
  if (status >= 300 && status < 400) {
    const location = attempt.headers.location?.[0];
    return { status: "FAILED", reason: `HTTP ${status}: redirects are not followed${location ? ` (Location: ${location})` : ""}; register the final URL`, retryAfterSeconds, retryable: true };
  }
  return { status: "FAILED", reason: `HTTP ${status}: only a 2xx response counts as received`, retryAfterSeconds, retryable: true };
}

/** Retry-After as seconds (delta-seconds or an HTTP date), or undefined when absent or unreadable. */
export function retryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}

/**
 * The wait after failed attempt `index` (0-based): the schedule's entry (its last one past the end)
 * with ±10 % jitter, so receivers recovering from an outage are not hit by every retry at once; a
 * longer Retry-After (capped at a day) wins, since the receiver asked not to be called earlier.
 */
export function nextDelaySeconds(schedule: readonly number[], index: number, retryAfterSeconds?: number, random = Math.random): number {
  const base = schedule.length === 0 ? 0 : schedule[Math.min(index, schedule.length - 1)];
  const jittered = base * (0.9 + 0.2 * random());
  const asked = retryAfterSeconds === undefined ? 0 : Math.min(retryAfterSeconds, MAX_RETRY_AFTER_SECONDS);
  return Math.round(Math.max(jittered, asked) * 1000) / 1000;
}

async function closeOpenAttempts(app: App, deliveryId: string, status: DeliveryStatus, reason: string): Promise<void> {
  await app.pool.query(
    `UPDATE webhook_event_log SET status = $2, failure_reason = coalesce(failure_reason, $3), last_modified_date = now(), version = version + 1
      WHERE delivery_id = $1 AND status = 'IN_PROGRESS'`,
    [deliveryId, status, reason],
  );
}

async function finishDelivery(app: App, deliveryId: string, status: "COMPLETED" | "FAILED" | "DISCONNECTED"): Promise<void> {
  await app.pool.query("UPDATE webhook_delivery SET status = $2, finished_at = now() WHERE id = $1 AND status = 'PENDING'", [deliveryId, status]);
}

/** 410 Gone (Standard Webhooks): the webhook stops receiving until someone sets it ACTIVE again. */
async function deactivate(app: App, webhookId: string): Promise<void> {
  await inTransaction(app, async (tx, emit) => {
    const changed = await tx.webhook.updateMany({
      where: { id: webhookId, status: "ACTIVE" },
      data: { status: "INACTIVE", version: { increment: 1 }, lastModifiedDate: new Date(), lastModifiedUserId: null, lastModifiedUserName: "system (410 Gone from the receiver)" },
    });
    if (changed.count > 0) emit({ type: "webhook.updated", entityType: "WEBHOOK", entityId: webhookId, userId: null, payload: { webhookId, status: "INACTIVE", reason: "410 Gone" } });
  });
}
