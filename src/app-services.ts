import { join } from "node:path";
import { createMetrics } from "./core/metrics.js";
import pg from "pg";
import type { Redis } from "ioredis";
import type { App } from "./app-types.js";
import { PrismaPg } from "@prisma/adapter-pg";
import type { Config } from "./config.js";
import type { Logger } from "./core/logger.js";
import { withoutNul } from "./core/db-text.js";
import { MemoryWindowCounter, RedisWindowCounter, type WindowCounter } from "./core/rate-limit.js";
import { endPool } from "./db/end-pool.js";
import { AuthFailureLimiter } from "./auth/auth-failures.js";
import { TokenAuthenticator } from "./auth/authenticate.js";
import { createAppPubSub, type AppPubSub } from "./events/pubsub.js";
import { OutboxRelay } from "./events/outbox.js";
import type { EventHandlerDefinition } from "./jobs/event-handler.js";
import { PrismaClient } from "./generated/prisma/client.js";
import type { JobDefinition } from "./jobs/define.js";
import { JobRuntime } from "./jobs/runtime.js";
import { Scheduler, type ScheduledTaskDefinition } from "./jobs/scheduler.js";
import { InProcessQueue } from "./jobs/runners/in-process.js";
import { createStorage } from "./storage/create-storage.js";
import type { FileStorage } from "./storage/storage.js";

/** One job queue per tenant and database, so deployments (and test servers) sharing a Redis stay apart. */
function jobQueueName(config: Config & { databaseUrl: string }): string {
  const database = new URL(config.databaseUrl).pathname.replace(/^\//, "") || "default";
  return `jobs-${config.tenantId}-${database}`.replace(/[^A-Za-z0-9_-]/g, "_");
}

// Dates come back as JS Date; `date` columns stay plain YYYY-MM-DD strings (no time-zone shifts).
pg.types.setTypeParser(1082, (value) => value);

const WRITES = new Set(["create", "createMany", "createManyAndReturn", "update", "updateMany", "updateManyAndReturn", "upsert"]);

/**
 * The client every module writes through, with NUL characters removed from the values it writes
 * (PostgreSQL text and jsonb cannot hold them; see `core/db-text.ts`). Reads and filters are
 * passed on untouched. A query extension changes no type, so the client keeps its own.
 */
function withoutNulWrites(client: PrismaClient): PrismaClient {
  return client.$extends({
    query: {
      $allModels: {
        $allOperations({ operation, args, query }) {
          if (!WRITES.has(operation)) return query(args);
          let written = args as Record<string, unknown>;
          for (const key of ["data", "create", "update"]) {
            const value = written[key];
            const cleaned = withoutNul(value);
            if (cleaned !== value) written = { ...written, [key]: cleaned };
          }
          return query(written as typeof args);
        },
      },
    },
  }) as unknown as PrismaClient;
}

export type { App } from "./app-types.js";

/** The work this process may run: the families' jobs, scheduled tasks and event handlers (src/modules/index.ts). */
export interface AppWork {
  jobs: Iterable<JobDefinition<any>>;
  tasks: Iterable<ScheduledTaskDefinition>;
  /** Run once per committed event in the deployment, on the relay's transaction. */
  handlers?: Iterable<EventHandlerDefinition>;
}

export async function createAppServices(config: Config & { databaseUrl: string }, logger: Logger, work: AppWork): Promise<App> {
  const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 20 });
  pool.on("error", (error) => logger.warn("idle database connection failed", { error }));
  // Prisma's defaults (2 s to get a connection, 5 s per interactive transaction) fail ordinary
  // writes on a busy machine: creating an engagement copies its library's settings in one
  // transaction, which took over 5 s on two loaded cores. A transaction that runs long still
  // finishes; one that never ends is ended by the larger bound.
  const prisma = withoutNulWrites(new PrismaClient({ adapter: new PrismaPg(pool), transactionOptions: { maxWait: 30_000, timeout: 120_000 } }));

  let redis: Redis | undefined;
  let redisSubscriber: Redis | undefined;
  if (config.redisUrl) {
    // Redis clients and BullMQ only when Redis is configured: importing them costs ~25 MB.
    const { Redis } = await import("ioredis");
    redis = new Redis(config.redisUrl, { maxRetriesPerRequest: null, lazyConnect: false });
    redisSubscriber = new Redis(config.redisUrl, { maxRetriesPerRequest: null });
  }
  const pubsub = createAppPubSub(redis && redisSubscriber ? { publish: redis, subscribe: redisSubscriber } : undefined);
  const relay = new OutboxRelay(pool, pubsub, logger);
  const counters: WindowCounter = redis ? new RedisWindowCounter(redis) : new MemoryWindowCounter();
  const tokens = new TokenAuthenticator(pool, undefined, new AuthFailureLimiter(counters, config.authFailureLimit, config.authFailureWindowSeconds));

  // Any process changing a token tells every process to forget cached tokens.
  const tokenChanges = pubsub.subscribe("auth-tokens-changed");
  void (async () => {
    for await (const _ of tokenChanges) tokens.invalidate();
  })();

  const app: App = {
    config,
    logger,
    pool,
    prisma,
    pubsub,
    relay,
    tokens,
    counters,
    redis,
    // Set below: both need the finished app.
    jobs: undefined as unknown as JobRuntime,
    scheduler: undefined as unknown as Scheduler,
    storage: await createStorage(config),
    metrics: createMetrics(),
    async close() {
      await app.scheduler.close();
      await app.jobs.close();
      await relay.stop();
      await tokenChanges.return?.();
      await prisma.$disconnect().catch(() => undefined);
      await endPool(pool).catch(() => undefined);
      redis?.disconnect();
      redisSubscriber?.disconnect();
    },
  };
  const queue = config.redisUrl ? new (await import("./jobs/runners/bullmq.js")).BullMqQueue(config.redisUrl, jobQueueName(config), config.jobConcurrency, logger) : new InProcessQueue(config.jobConcurrency);
  const jobs = new JobRuntime(app, queue);
  jobs.register(work.jobs);
  for (const handler of work.handlers ?? []) relay.onEventInTransaction((event, client) => handler.handle(app, event, client), (type) => handler.accepts(type));
  const scheduler = new Scheduler(app);
  scheduler.register(work.tasks);
  app.jobs = jobs;
  app.scheduler = scheduler;
  return app;
}
