import { builder } from "../../graphql/builder.js";
import type { InputOf } from "../common/crud-fields.js";
import { WEBHOOK_EVENT_TYPES, WEBHOOK_STATUSES } from "./webhook-events.js";

export const WebhookStatus = builder.enumType("WebhookStatus", { values: WEBHOOK_STATUSES });

export const EVENTS_DESCRIPTION = `Event types (spec 6.5), dotted; the upper-case constants (ANALYSIS_CREATED, ...) are accepted as input aliases. One of: ${WEBHOOK_EVENT_TYPES.join(", ")}`;

export const CreateWebhookInput = builder.inputType("CreateWebhookInput", {
  fields: (t) => ({
    name: t.string({ required: true }),
    url: t.string({ required: true, description: "HTTPS with a fully qualified host name (no IP address); unique" }),
    events: t.stringList({ required: true, description: EVENTS_DESCRIPTION }),
    status: t.field({ type: WebhookStatus, description: "Default ACTIVE" }),
    technicalContactId: t.id({ description: "A user to contact about this receiver" }),
  }),
});
export type CreateWebhookInput = InputOf<typeof CreateWebhookInput>;

export const UpdateWebhookInput = builder.inputType("UpdateWebhookInput", {
  fields: (t) => ({
    name: t.string(),
    url: t.string(),
    events: t.stringList({ description: EVENTS_DESCRIPTION }),
    status: t.field({ type: WebhookStatus }),
    technicalContactId: t.id(),
    version: t.int({ required: true }),
  }),
});
export type UpdateWebhookInput = InputOf<typeof UpdateWebhookInput>;
