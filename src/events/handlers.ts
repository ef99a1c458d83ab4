import type pg from "pg";
import type { App } from "../app-services.js";
import type { DomainEvent } from "./domain-event.js";

export interface EventHandlerDefinition {
  /** Unique and stable, for logs. */
  name: string;
  /**
   * Runs once per committed event in the whole deployment, on the transaction of the relay that
   * claimed the event (`client`): what it writes there commits together with the event's
   * publication, so it happens exactly once, and never for an event a crash left unpublished.
   */
  handle(app: App, event: DomainEvent, client: pg.ClientBase): Promise<void>;
}

const handlers = new Map<string, EventHandlerDefinition>();

/** Declares a reaction to committed domain events (at import time, like jobs and scheduled tasks). */
export function defineEventHandler(definition: EventHandlerDefinition): EventHandlerDefinition {
  if (handlers.has(definition.name)) throw new Error(`Event handler ${definition.name} is defined twice`);
  handlers.set(definition.name, definition);
  return definition;
}

export function eventHandlers(): EventHandlerDefinition[] {
  return [...handlers.values()];
}
