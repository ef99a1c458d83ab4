import { defineScheduledTask } from "../../jobs/index.js";
import { DELIVERY_JOB } from "./webhook.delivery.js";

/**
 * Webhook event logs are kept WEBHOOK_EVENT_LOG_RETENTION_DAYS; finished deliveries and their
 * (internal) job rows go with them. Pending deliveries stay whatever their age.
 */
export const webhookEventLogCleanup = defineScheduledTask({
  name: "webhooks.event-log-retention",
  interval: (app) => app.config.cleanupIntervalSeconds,
  async run(app) {
    const days = app.config.webhookEventLogRetentionDays;
    const logs = await app.pool.query("DELETE FROM webhook_event_log WHERE attempt_start_date < now() - make_interval(days => $1)", [days]);
    const deliveries = await app.pool.query("DELETE FROM webhook_delivery WHERE finished_at < now() - make_interval(days => $1)", [days]);
    const jobs = await app.pool.query(
      "DELETE FROM async_result WHERE job_name = $1 AND internal AND status <> 'IN_PROGRESS' AND completed_at < now() - make_interval(days => $2)",
      [DELIVERY_JOB, days],
    );
    const removed = (logs.rowCount ?? 0) + (deliveries.rowCount ?? 0) + (jobs.rowCount ?? 0);
    if (removed > 0) app.logger.info("removed expired webhook event logs and deliveries", { logs: logs.rowCount, deliveries: deliveries.rowCount, jobs: jobs.rowCount });
  },
});
