import type { RouteDef } from "../../rest/route-helpers.js";
import type { EventHandlerDefinition, JobDefinition, ScheduledTaskDefinition } from "../jobs/index.js";

/**
 * What one entity family contributes to the service. Each `src/modules/<family>/index.ts` exports
 * one (importing it also registers the family's Pothos types on the builder, as Pothos schemas
 * do); `src/modules/index.ts` lists the families, and the schema, the REST route table, the job
 * runtime and the scheduler are built from that list. Adding a family is a folder plus one line.
 */
export interface Family {
  /** The folder name under src/modules. */
  name: string;
  /** REST entries, in the order they are matched and documented. */
  routes?: readonly RouteDef[];
  /** Job kinds: the runtime runs only jobs that a family declares. */
  jobs?: readonly JobDefinition<any>[];
  /** Periodic maintenance, each run once per deployment per interval. */
  tasks?: readonly ScheduledTaskDefinition[];
  /** Reactions to committed domain events, run once per event in the deployment on the outbox relay's transaction. */
  handlers?: readonly EventHandlerDefinition[];
  /** Domain event types the family writes to the outbox (`<entity>.<verb>`, webhook spelling where one exists). */
  events?: readonly string[];
}

export function defineFamily(family: Family): Family {
  return family;
}
