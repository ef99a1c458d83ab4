import pg from "pg";
import { Redis } from "ioredis";
import { PrismaPg } from "@prisma/adapter-pg";
import type { Config } from "./config.js";
import type { Logger } from "./core/logger.js";
import { MemoryWindowCounter, RedisWindowCounter, type WindowCounter } from "./core/rate-limit.js";
import { TokenAuthenticator } from "./auth/authenticate.js";
import { createAppPubSub, type AppPubSub } from "./events/pubsub.js";
import { OutboxRelay } from "./events/outbox.js";
import { PrismaClient } from "./generated/prisma/client.js";

/**
 * Process-wide services shared by every request: database clients, the event bus and relay,
 * token authentication and rate-limit counters. Built once at start-up, closed once at shutdown.
 */
export interface App {
  config: Config;
  logger: Logger;
  pool: pg.Pool;
  prisma: PrismaClient;
  pubsub: AppPubSub;
  relay: OutboxRelay;
  tokens: TokenAuthenticator;
  counters: WindowCounter;
  redis?: Redis;
  close(): Promise<void>;
}

// Dates come back as JS Date; `date` columns stay plain YYYY-MM-DD strings (no time-zone shifts).
pg.types.setTypeParser(1082, (value) => value);

export async function createAppServices(config: Config & { databaseUrl: string }, logger: Logger): Promise<App> {
  const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 20 });
  pool.on("error", (error) => logger.warn("idle database connection failed", { error }));
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });

  let redis: Redis | undefined;
  let redisSubscriber: Redis | undefined;
  if (config.redisUrl) {
    redis = new Redis(config.redisUrl, { maxRetriesPerRequest: null, lazyConnect: false });
    redisSubscriber = new Redis(config.redisUrl, { maxRetriesPerRequest: null });
  }
  const pubsub = createAppPubSub(redis && redisSubscriber ? { publish: redis, subscribe: redisSubscriber } : undefined);
  const relay = new OutboxRelay(pool, pubsub, logger);
  const tokens = new TokenAuthenticator(pool);
  const counters: WindowCounter = redis ? new RedisWindowCounter(redis) : new MemoryWindowCounter();

  // Any process changing a token tells every process to forget cached tokens.
  const tokenChanges = pubsub.subscribe("auth-tokens-changed");
  void (async () => {
    for await (const _ of tokenChanges) tokens.invalidate();
  })();

  return {
    config,
    logger,
    pool,
    prisma,
    pubsub,
    relay,
    tokens,
    counters,
    redis,
    async close() {
      await relay.stop();
      await tokenChanges.return?.();
      await prisma.$disconnect().catch(() => undefined);
      await pool.end().catch(() => undefined);
      redis?.disconnect();
      redisSubscriber?.disconnect();
    },
  };
}
