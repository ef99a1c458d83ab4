/**
 * Webhook event types (spec 6.5, wire reference section 7): the dotted name is the wire value (in
 * `events`, payload `type`, log `eventType`); the upper-case constant is accepted in `events` as an
 * alias and never emitted. Any outbox event whose type is in this list reaches the webhooks
 * subscribed to it, whichever module emits it (e.g. analysis.complete from the analysis engine).
 */
export const WEBHOOK_EVENTS = [
  { type: "analysis.created", constant: "ANALYSIS_CREATED" },
  { type: "analysis.updated", constant: "ANALYSIS_UPDATED" },
  { type: "analysis.deleted", constant: "ANALYSIS_DELETED" },
  { type: "analysis.archived", constant: "ANALYSIS_ARCHIVED" },
  { type: "analysis.unarchived", constant: "ANALYSIS_UNARCHIVED" },
  { type: "analysis.complete", constant: "INGESTION_ANALYSIS_COMPLETE" },
  { type: "analysis.failed", constant: "INGESTION_ANALYSIS_FAILED" },
  { type: "engagement.created", constant: "ENGAGEMENT_CREATED" },
  { type: "engagement.updated", constant: "ENGAGEMENT_UPDATED" },
  { type: "engagement.deleted", constant: "ENGAGEMENT_DELETED" },
  { type: "unmapped.accounts", constant: "UNMAPPED_ACCOUNTS_DETECTED" },
  { type: "ingestion.complete", constant: "INGESTION_COMPLETE" },
  { type: "ingestion.failed", constant: "INGESTION_FAILED" },
  { type: "export.ready", constant: "EXPORT_READY" },
  { type: "user.invited", constant: "USER_INVITED" },
  { type: "user.role", constant: "USER_ROLE_UPDATED" },
  { type: "user.deleted", constant: "USER_DELETED" },
  { type: "user.login", constant: "USER_LOGIN" },
  { type: "user.status", constant: "USER_STATUS_UPDATED" },
  // Emitted by the connections family once it exists.
  { type: "connection.created" },
  { type: "connection.deleted" },
  { type: "connection.data.complete" },
  { type: "connection.test.complete" },
  // Emitted once the platform has an MCP endpoint; subscribable ahead.
  { type: "mcp.grant.approved" },
  { type: "mcp.grant.denied" },
  { type: "mcp.grant.revoked" },
  { type: "mcp.admin-settings.updated" },
] as const satisfies ReadonlyArray<{ type: string; constant?: string }>;

export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number]["type"];

export const WEBHOOK_EVENT_TYPES: readonly WebhookEventType[] = WEBHOOK_EVENTS.map((e) => e.type);

const BY_NAME = new Map<string, WebhookEventType>();
for (const event of WEBHOOK_EVENTS) {
  BY_NAME.set(event.type, event.type);
  if ("constant" in event) BY_NAME.set(event.constant, event.type);
}

/** Removed in v1.8.6 (spec 6.5, 9): never emitted, so refused in `events` with a pointer to its successor. */
export const REMOVED_EVENTS: Record<string, string> = {
  "data.added": "data.added was removed in v1.8.6 and is never emitted; subscribe to connection.data.complete",
  FILE_MANAGER_FILE_ADDED: "FILE_MANAGER_FILE_ADDED (data.added) was removed in v1.8.6 and is never emitted; subscribe to connection.data.complete",
};

export function isWebhookEventType(type: string): type is WebhookEventType {
  return BY_NAME.get(type) === type;
}

/** The dotted name for a dotted name or its constant; undefined for anything else. */
export function webhookEventType(name: string): WebhookEventType | undefined {
  return BY_NAME.get(name.trim());
}

/** Webhook `status` (wire reference 7; no EXPIRED since v1.8.2). */
export const WEBHOOK_STATUSES = ["ACTIVE", "INACTIVE"] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];

/**
 * Event log `status` (wire reference 7, "Delivery status"), one per attempt:
 * IN_PROGRESS while the request runs; COMPLETED on a 2xx; FAILED when it failed and another attempt
 * follows (`nextAttemptDate`); FAILED_PERMANENTLY when it failed and none follows (last attempt,
 * 410 Gone, a refused address); DISCONNECTED when it was not sent because the webhook is INACTIVE.
 */
export const DELIVERY_STATUSES = ["IN_PROGRESS", "COMPLETED", "FAILED", "FAILED_PERMANENTLY", "DISCONNECTED"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
