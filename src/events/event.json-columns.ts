/**
 * The type of `outbox_event.payload`, named in `prisma/schema/events.prisma` and written into the
 * generated client by prisma-json-types-generator: the payload a domain event carries.
 */
import type { DomainEvent } from "./domain-event.js";

declare global {
  namespace PrismaJson {
    type EventPayload = DomainEvent["payload"];
  }
}
