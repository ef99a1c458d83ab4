import { filter, pipe, Repeater } from "graphql-yoga";
import { builder } from "../../graphql/builder.js";
import type { DomainEvent, TransientEvent } from "../../events/domain-event.js";
import { scopeResolver, type EventScope } from "../../events/scope.js";
import { webhookEventType } from "../webhooks/webhook-events.js";
import { canSeeEvent } from "./event-permissions.js";

export const DomainEventRef = builder.objectRef<DomainEvent>("DomainEvent").implement({
  description: "Something that happened to an entity, delivered after the change committed",
  fields: (t) => ({
    id: t.exposeID("id", { description: "Event sequence number" }),
    type: t.exposeString("type", { description: "e.g. engagement.created, organization.updated" }),
    entityType: t.exposeString("entityType"),
    entityId: t.exposeID("entityId", { nullable: true }),
    userId: t.exposeID("userId", { nullable: true }),
    occurredAt: t.field({ type: "DateTime", resolve: (e) => e.occurredAt }),
    payload: t.field({ type: "JSON", resolve: (e) => e.payload }),
  }),
});

builder.subscriptionField("entityChanged", (t) =>
  t.field({
    type: DomainEventRef,
    description: "Entity events (created, updated, deleted, ...) the token may read, optionally narrowed by entity type, id or event type",
    authScopes: { authenticated: true },
    args: {
      entityType: t.arg.string({ description: "e.g. ENGAGEMENT" }),
      entityId: t.arg.id(),
      types: t.arg.stringList({ description: "event types, e.g. [\"engagement.created\"]" }),
    },
    subscribe: (_root, args, ctx) =>
      pipe(
        ctx.app.pubsub.subscribe("domain-event"),
        filter(
          (event: DomainEvent) =>
            canSeeEvent(ctx.auth!, event) &&
            (!args.entityType || event.entityType === args.entityType) &&
            (!args.entityId || event.entityId === args.entityId) &&
            (!args.types || args.types.includes(event.type)),
        ),
      ),
    resolve: (event) => event,
  }),
);

/** A domain event or a live progress event, with where it happened (its organization, engagement, analysis). */
interface ScopedEvent {
  id: string | null;
  type: string;
  entityType: string;
  entityId: string | null;
  userId: string | null;
  occurredAt: string;
  payload: Record<string, unknown>;
  progress: boolean;
  scope: EventScope;
}

const ScopedEventRef = builder.objectRef<ScopedEvent>("ScopedEvent").implement({
  description:
    "A committed domain event (the types webhooks receive, and every other entity event) or a live progress event (analysis-source.progress, async-result.progress, analysis-result.progress: not stored, never sent to webhooks), with its scope",
  fields: (t) => ({
    id: t.exposeID("id", { nullable: true, description: "Event sequence number; null for progress events" }),
    type: t.exposeString("type", { description: "e.g. ingestion.complete, analysis.created, analysis-source.progress, async-result.progress" }),
    entityType: t.exposeString("entityType"),
    entityId: t.exposeID("entityId", { nullable: true }),
    userId: t.exposeID("userId", { nullable: true }),
    occurredAt: t.field({ type: "DateTime", resolve: (e) => e.occurredAt }),
    payload: t.field({ type: "JSON", description: "The event's data: for the webhook event types, the webhook payload's data keys", resolve: (e) => e.payload }),
    progress: t.exposeBoolean("progress", { description: "True for live progress events" }),
    organizationId: t.id({ nullable: true, resolve: (e) => e.scope.organizationId }),
    engagementId: t.id({ nullable: true, resolve: (e) => e.scope.engagementId }),
    analysisId: t.id({ nullable: true, resolve: (e) => e.scope.analysisId }),
    percent: t.int({ nullable: true, description: "Progress events: overall percentage", resolve: (e) => (e.progress && typeof e.payload.percent === "number" ? e.payload.percent : null) }),
    state: t.string({
      nullable: true,
      description: "Progress events: the analysis source's workflow state, the job's status, or the analysis run's status",
      resolve: (e) => (e.progress ? ((e.payload.workflowState ?? e.payload.status ?? null) as string | null) : null),
    }),
    message: t.string({ nullable: true, resolve: (e) => (e.progress && typeof e.payload.message === "string" ? e.payload.message : null) }),
  }),
});

/** Scheduling of internal jobs (e.g. each webhook delivery): not something a dashboard follows. */
const UNLISTED = new Set(["job.started"]);

builder.subscriptionField("events", (t) =>
  t.field({
    type: ScopedEventRef,
    description:
      "Events the token may read, live: domain events (webhook event types such as ingestion.complete or analysis.created, and the other entity events) and progress events (every analysis source's workflow progress, every job's percentage, analysis runs included), " +
      "optionally narrowed by type and by scope: one organization, engagement or analysis (all given must match). Carried across server processes through Redis.",
    authScopes: { authenticated: true },
    args: {
      types: t.arg.stringList({ description: "Event types; webhook constants (INGESTION_COMPLETE, ...) are accepted as aliases" }),
      organizationId: t.arg.id(),
      engagementId: t.arg.id(),
      analysisId: t.arg.id(),
    },
    subscribe: (_root, args, ctx) => {
      const types = args.types ? new Set(args.types.map((name) => webhookEventType(name) ?? name.trim())) : undefined;
      const scopes = scopeResolver(ctx.app.pool);
      return new Repeater<ScopedEvent>(async (push, stop) => {
        const domain = ctx.app.pubsub.subscribe("domain-event");
        const transient = ctx.app.pubsub.subscribe("transient-event");
        stop.then(() => {
          void domain.return?.();
          void transient.return?.();
        });
        const forward = async (source: AsyncIterable<DomainEvent | TransientEvent>, progress: boolean) => {
          for await (const event of source) {
            if (UNLISTED.has(event.type) || (types && !types.has(event.type))) continue;
            const userId = "userId" in event ? event.userId : null;
            if (!canSeeEvent(ctx.auth!, { entityType: event.entityType, userId })) continue;
            const scope = await scopes.of(event);
            if (args.organizationId && scope.organizationId !== args.organizationId) continue;
            if (args.engagementId && scope.engagementId !== args.engagementId) continue;
            if (args.analysisId && scope.analysisId !== args.analysisId) continue;
            await push({
              id: "id" in event ? event.id : null,
              type: event.type,
              entityType: event.entityType,
              entityId: event.entityId || null,
              userId,
              occurredAt: event.occurredAt,
              payload: event.payload,
              progress,
              scope,
            });
          }
        };
        forward(domain, false).catch((error) => stop(error));
        forward(transient, true).catch((error) => stop(error));
        await stop;
      });
    },
    resolve: (event) => event,
  }),
);
