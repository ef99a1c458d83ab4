/**
 * The types of `webhook_event_log.request_headers` and `response_headers` and of the two status
 * columns, named in `prisma/schema/webhooks.prisma` and written into the generated client by
 * prisma-json-types-generator.
 */
import type { DeliveryStatus, WebhookStatus as WebhookStatusValue } from "./webhook-events.js";

declare global {
  namespace PrismaJson {
    /** {name: [values]}, as sent or as received (Node's `headersDistinct`). */
    type HttpHeaders = Record<string, string[]>;
    /** webhook.status. */
    type WebhookStatus = WebhookStatusValue;
    /** webhook_event_log.status. */
    type WebhookDeliveryStatus = DeliveryStatus;
  }
}
