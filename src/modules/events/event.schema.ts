import { filter, pipe } from "graphql-yoga";
import { builder } from "../../graphql/builder.js";
import type { DomainEvent } from "../../events/domain-event.js";
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
