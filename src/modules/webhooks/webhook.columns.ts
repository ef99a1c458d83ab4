import { AUDIT_COLUMNS, defineColumns, enumOf, ID, ID_LIST, TEXT } from "../../query-language/index.js";
import { DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES, WEBHOOK_STATUSES } from "./webhook-events.js";

/** What POST /webhooks/query and `webhooks(filter:)` can filter and sort on. */
export const webhookColumns = defineColumns("webhooks", {
  ...AUDIT_COLUMNS,
  name: TEXT,
  url: TEXT,
  // Dotted event names, stored lower-case like ids.
  events: ID_LIST,
  status: enumOf(WEBHOOK_STATUSES),
  technicalContactId: ID,
  keyGenerationTimestamp: { type: "DATE_TIME", equalitySearch: true, rangeSearch: true, sortable: true },
});

/** What POST /webhook-event-logs/query and `webhookEventLogs(filter:)` can filter and sort on. */
export const webhookEventLogColumns = defineColumns("webhook event logs", {
  ...AUDIT_COLUMNS,
  webhookId: ID,
  url: TEXT,
  eventType: enumOf(WEBHOOK_EVENT_TYPES),
  eventId: ID,
  status: enumOf(DELIVERY_STATUSES),
  requestId: ID,
  responseStatusCode: { type: "INT32", equalitySearch: true, rangeSearch: true, sortable: true },
  retryCount: { type: "INT32", equalitySearch: true, rangeSearch: true, sortable: true },
  attemptStartDate: { type: "DATE_TIME", equalitySearch: true, rangeSearch: true, sortable: true },
});
