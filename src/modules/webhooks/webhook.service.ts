import { ConflictError, NotFoundError, ValidationError, type Problem } from "../../core/errors.js";
import { assertContent, createAudit, findEntity, queryEntities, saveVersioned, type PageArgs } from "../../entity/index.js";
import { inTransaction, type Emit } from "../../events/outbox.js";
import { actorOf, type RequestContext } from "../../graphql/context.js";
import { assertUsersExist } from "../users/user.service.js";
import { webhookColumns, webhookEventLogColumns } from "./webhook.columns.js";
import { REMOVED_EVENTS, webhookEventType, WEBHOOK_EVENT_TYPES } from "./webhook-events.js";
import type { CreateWebhookInput, UpdateWebhookInput } from "./webhook.inputs.js";
import { generateSigningKeys, keyEncryptionKey } from "./webhook-keys.js";
import { normaliseWebhookUrl } from "./webhook-url.js";

const ENTITY = "Webhook";

export function getWebhook(ctx: RequestContext, id: string) {
  return findEntity(ctx.app, "webhook", ENTITY, id);
}

export function queryWebhooks(ctx: RequestContext, args: PageArgs) {
  return queryEntities(ctx.app, { model: "webhook", columns: webhookColumns }, args);
}

export function getWebhookEventLog(ctx: RequestContext, id: string) {
  return findEntity(ctx.app, "webhookEventLog", "WebhookEventLog", id);
}

export function queryWebhookEventLogs(ctx: RequestContext, args: PageArgs) {
  return queryEntities(ctx.app, { model: "webhookEventLog", columns: webhookEventLogColumns }, args);
}

/** Dotted names (or their upper-case constants) of spec 6.5, each once, in the order sent. */
function normaliseEvents(events: readonly string[]): string[] {
  const problems: Problem[] = [];
  const out: string[] = [];
  events.forEach((name, index) => {
    const type = webhookEventType(name);
    if (type) {
      if (!out.includes(type)) out.push(type);
      return;
    }
    const removed = REMOVED_EVENTS[name.trim()];
    problems.push({
      problemType: "ILLEGAL_ARGUMENT",
      severity: "ERROR",
      identifier: `events[${index}]`,
      reason: removed ?? `events[${index}] "${name}" is not a webhook event type`,
      values: [name],
      ...(removed ? { suggestedValues: ["connection.data.complete"] } : { suggestedValues: [...WEBHOOK_EVENT_TYPES] }),
    });
  });
  if (problems.length > 0) throw ValidationError.of(problems);
  return out;
}

function urlTaken(url: string): ConflictError {
  return new ConflictError(`A webhook for ${url} already exists; one webhook can send several event types to a URL`, { problemType: "NON_UNIQUE_VALUE", identifier: "url", values: [url] });
}

function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: string }).code === "P2002";
}

function emitWebhookEvent(emit: Emit, verb: "created" | "updated" | "deleted", id: string, userId: string) {
  emit({ type: `webhook.${verb}`, entityType: "WEBHOOK", entityId: id, userId, payload: { webhookId: id } });
}

/**
 * Registers a webhook (spec 6.1) with a new Ed25519 key pair: the public key is returned, the
 * private key stored encrypted. A second webhook for the same URL is 409 NON_UNIQUE_VALUE.
 */
export async function createWebhook(ctx: RequestContext, input: CreateWebhookInput) {
  assertContent(input, ["events"]);
  const url = normaliseWebhookUrl(input.url);
  const events = normaliseEvents(input.events);
  if (input.technicalContactId) await assertUsersExist(ctx, [input.technicalContactId], "technicalContactId");
  const key = keyEncryptionKey(ctx.app.config);
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    if (await tx.webhook.findUnique({ where: { url }, select: { id: true } })) throw urlTaken(url);
    const audit = createAudit(actor);
    const webhook = await tx.webhook.create({
      data: {
        ...audit,
        name: input.name,
        url,
        events,
        status: input.status ?? "ACTIVE",
        technicalContactId: input.technicalContactId ?? null,
        ...generateSigningKeys(key, audit.id),
        keyGenerationTimestamp: audit.creationDate,
      },
    });
    emitWebhookEvent(emit, "created", webhook.id, actor.userId);
    return webhook;
  }).catch((error: unknown) => {
    throw isUniqueViolation(error) ? urlTaken(url) : error;
  });
}

export async function updateWebhook(ctx: RequestContext, id: string, input: UpdateWebhookInput) {
  assertContent(input, ["events"]);
  const url = input.url != null ? normaliseWebhookUrl(input.url) : undefined;
  const events = input.events != null ? normaliseEvents(input.events) : undefined;
  if (input.technicalContactId) await assertUsersExist(ctx, [input.technicalContactId], "technicalContactId");
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    if (url) {
      const holder = await tx.webhook.findUnique({ where: { url }, select: { id: true } });
      if (holder && holder.id !== id) throw urlTaken(url);
    }
    const webhook = await saveVersioned(
      tx.webhook,
      ENTITY,
      id,
      input.version,
      {
        ...(input.name != null ? { name: input.name } : {}),
        ...(url ? { url } : {}),
        ...(events ? { events } : {}),
        ...(input.status != null ? { status: input.status } : {}),
        ...(input.technicalContactId !== undefined ? { technicalContactId: input.technicalContactId } : {}),
      },
      actor,
    );
    emitWebhookEvent(emit, "updated", id, actor.userId);
    return webhook;
  }).catch((error: unknown) => {
    throw isUniqueViolation(error) && url ? urlTaken(url) : error;
  });
}

/** Deletes the webhook and its pending deliveries; its event logs stay until their retention ends. */
export async function deleteWebhook(ctx: RequestContext, id: string) {
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const deleted = await tx.webhook.deleteMany({ where: { id } });
    if (deleted.count === 0) throw new NotFoundError(ENTITY, id);
    emitWebhookEvent(emit, "deleted", id, actor.userId);
    return { id };
  });
}
