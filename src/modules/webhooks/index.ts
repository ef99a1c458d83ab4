import "./webhook.schema.js";
import { defineFamily } from "../family.js";
import { webhookRoutes } from "./webhook.routes.js";
import { deliveryJob, webhookFanOut } from "./webhook.delivery.js";
import { webhookEventLogCleanup } from "./webhook.cleanup.js";

export const webhooksFamily = defineFamily({
  name: "webhooks",
  routes: webhookRoutes,
  jobs: [deliveryJob],
  tasks: [webhookEventLogCleanup],
  handlers: [webhookFanOut],
  events: ["webhook.created", "webhook.updated", "webhook.deleted"],
});
