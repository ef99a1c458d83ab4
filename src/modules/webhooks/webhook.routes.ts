import { crudRoutes } from "../../../rest/route-helpers.js";

export const webhookRoutes = [
  ...crudRoutes({ resource: "webhooks", idParam: "webhookId", entity: "Webhook", tag: "Webhooks" }),
  ...crudRoutes({ resource: "webhook-event-logs", idParam: "webhookEventLogId", entity: "WebhookEventLog", tag: "Webhooks", ops: ["read", "query"] }),
];
