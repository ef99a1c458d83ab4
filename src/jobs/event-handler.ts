import type pg from "pg";
import type { App } from "../app-types.js";
import type { DomainEvent } from "../events/domain-event.js";

export interface EventHandlerDefinition {
  /** Unique and stable, for logs. */
  name: string;
  /**
   * Runs once per committed event in the whole deployment, on the transaction of the relay that
   * claimed the event (`client`): what it writes there commits together with the event's
   * publication, so it happens exactly once, and never for an event a crash left unpublished.
   */
  handle(app: App, event: DomainEvent, client: pg.ClientBase): Promise<void>;
  /** The event types it handles; the relay skips it (no savepoint, no query) for the others. */
  accepts(type: string): boolean;
}

/** Declares a reaction to committed domain events; its family lists it (`handlers`) so the relay runs it. */
export function defineEventHandler(definition: EventHandlerDefinition): EventHandlerDefinition {
  return definition;
}
