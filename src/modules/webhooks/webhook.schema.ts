import { defineCrudFields } from "../common/crud-fields.js";
import { builder } from "../../graphql/builder.js";
import { whereArg } from "../common/where.js";
import { webhookColumns } from "./webhook.columns.js";
import { webhookEventLogColumns } from "./webhook.columns.js";
import { Entity } from "../common/entity.js";
import { registerEventPermission } from "../events/event-permissions.js";
import { DELIVERY_STATUSES } from "./webhook-events.js";
import { CreateWebhookInput, EVENTS_DESCRIPTION, UpdateWebhookInput, WebhookStatus } from "./webhook.inputs.js";
import * as service from "./webhook.service.js";
import { childrenOf, entityById } from "../common/relations.js";
import { relatedListArgs } from "../common/page.js";

registerEventPermission("WEBHOOK", "api.webhooks.read");

const WebhookDeliveryStatus = builder.enumType("WebhookDeliveryStatus", {
  values: DELIVERY_STATUSES,
  description:
    "IN_PROGRESS: the request is running; COMPLETED: answered 2xx; FAILED: failed, another attempt follows (nextAttemptDate); FAILED_PERMANENTLY: failed, none follows (last attempt, 410 Gone, refused address); DISCONNECTED: not sent, the webhook is INACTIVE",
});

export const Webhook = builder.prismaObject("Webhook", {
  interfaces: [Entity],
  fields: (t) => ({
    name: t.exposeString("name"),
    url: t.exposeString("url"),
    events: t.exposeStringList("events", { description: EVENTS_DESCRIPTION }),
    status: t.field({ type: WebhookStatus, resolve: (w) => w.status }),
    technicalContactId: t.exposeID("technicalContactId", { nullable: true }),
    publicKey: t.exposeString("publicKey", { description: "Ed25519 public key (PEM, SPKI) that verifies this webhook's webhook-signature headers" }),
    keyGenerationTimestamp: t.expose("keyGenerationTimestamp", { type: "DateTime" }),
    technicalContact: t.prismaField({ type: "User", nullable: true, authScopes: { permission: "api.users.read" }, resolve: (_q, p, _a, ctx) => entityById("user")(ctx, p.technicalContactId) }),
    eventLogs: t.prismaField({
      type: ["WebhookEventLog"],
      authScopes: { permission: "api.webhooks.read" },
      args: { ...relatedListArgs(t), ...whereArg(t, "WebhookEventLog", webhookEventLogColumns) },
      resolve: (_q, p, args, ctx) => childrenOf("webhookEventLog", webhookEventLogColumns, "webhookId")(ctx, p.id, args),
    }),
  }),
});

export const WebhookEventLog = builder.prismaObject("WebhookEventLog", {
  interfaces: [Entity],
  description: "One delivery attempt of one event to one webhook",
  fields: (t) => ({
    webhookId: t.exposeID("webhookId"),
    url: t.exposeString("url"),
    eventType: t.exposeString("eventType"),
    eventId: t.exposeID("eventId", { description: "The payload's eventId (and webhook-id header); the same in every attempt" }),
    status: t.field({ type: WebhookDeliveryStatus, resolve: (l) => l.status }),
    requestId: t.exposeID("requestId", { description: "The webhook-id header sent" }),
    requestHeaders: t.field({ type: "JSON", description: "{name: [values]}", resolve: (l) => l.requestHeaders }),
    requestBody: t.exposeString("requestBody"),
    responseStatusCode: t.exposeInt("responseStatusCode", { nullable: true }),
    responseHeaders: t.field({ type: "JSON", nullable: true, description: "{name: [values]}", resolve: (l) => l.responseHeaders }),
    responseBody: t.exposeString("responseBody", { nullable: true, description: "At most 64 KiB of it" }),
    responseTimeSec: t.exposeFloat("responseTimeSec", { nullable: true }),
    retryCount: t.exposeInt("retryCount", { description: "0 for the first attempt" }),
    attemptStartDate: t.expose("attemptStartDate", { type: "DateTime" }),
    nextAttemptDate: t.expose("nextAttemptDate", { type: "DateTime", nullable: true, description: "When the next attempt is due (status FAILED)" }),
    failureReason: t.exposeString("failureReason", { nullable: true, description: "Why the attempt failed or was not sent" }),
    webhook: t.prismaField({ type: "Webhook", nullable: true, authScopes: { permission: "api.webhooks.read" }, resolve: (_q, p, _a, ctx) => entityById("webhook")(ctx, p.webhookId) }),
  }),
});

defineCrudFields({
  name: "WebhookEventLog",
  type: WebhookEventLog,
  columns: webhookEventLogColumns,
  permissions: { read: "api.webhooks.read" },
  service: {
    get: service.getWebhookEventLog,
    query: service.queryWebhookEventLogs,
  },
});

defineCrudFields({
  name: "Webhook",
  type: Webhook,
  columns: webhookColumns,
  createInput: CreateWebhookInput,
  updateInput: UpdateWebhookInput,
  permissions: { read: "api.webhooks.read", write: "api.webhooks.write", delete: "api.webhooks.delete" },
  service: {
    get: service.getWebhook,
    query: service.queryWebhooks,
    create: service.createWebhook,
    update: service.updateWebhook,
    delete: service.deleteWebhook,
  },
});
