import { createPubSub } from "graphql-yoga";
import { createRedisEventTarget } from "@graphql-yoga/redis-event-target";
import type { Redis } from "ioredis";
import type { DomainEvent, TransientEvent } from "./domain-event.js";

export type Topics = {
  "domain-event": [DomainEvent];
  "transient-event": [TransientEvent];
  "auth-tokens-changed": [{ at: string }];
};

export type AppPubSub = ReturnType<typeof createAppPubSub>;

/**
 * Subscriptions and cache invalidation ride on this bus. With Redis every process of the
 * deployment sees every message; without it the bus is in-process (embedded mode, one process).
 */
export function createAppPubSub(redis?: { publish: Redis; subscribe: Redis }) {
  return createPubSub<Topics>(redis ? { eventTarget: createRedisEventTarget({ publishClient: redis.publish, subscribeClient: redis.subscribe }) } : undefined);
}
