import type pg from "pg";
import type { Redis } from "ioredis";
import type { Config } from "./config.js";
import type { Logger } from "./core/logger.js";
import type { WindowCounter } from "./core/rate-limit.js";
import type { Metrics } from "./core/metrics.js";
import type { AuthInfo, TokenAuthenticator } from "./auth/authenticate.js";
import type { AppPubSub } from "./events/pubsub.js";
import type { OutboxRelay } from "./events/outbox.js";
import type { PrismaClient } from "./generated/prisma/client.js";
import type { FileStorage } from "./storage/storage.js";

/**
 * The shapes every layer above the infrastructure shares: the process-wide services (`App`) and
 * the per-request context. Declared here, below the job runtime, GraphQL and the modules, so each
 * of them can name these types without importing the code that builds them (`app-services.ts`,
 * the composition root, sits at the top).
 */

/** What the rest of the process sees of the job runtime (src/jobs/runtime.ts implements it). */
export interface JobService {
  /** Identifies this process's worker in job leases. */
  readonly workerId: string;
  start(): void;
  close(): Promise<void>;
}

/** What the rest of the process sees of the maintenance scheduler (src/jobs/scheduler.ts). */
export interface SchedulerService {
  start(): void;
  close(): Promise<void>;
}

/**
 * Process-wide services shared by every request: database clients, the event bus and relay,
 * token authentication and rate-limit counters. Built once at start-up, closed once at shutdown.
 */
export interface App {
  /** The configuration, with the database the process really uses (embedded or DATABASE_URL). */
  config: Config & { databaseUrl: string };
  logger: Logger;
  pool: pg.Pool;
  prisma: PrismaClient;
  pubsub: AppPubSub;
  relay: OutboxRelay;
  tokens: TokenAuthenticator;
  counters: WindowCounter;
  redis?: Redis;
  /** Asynchronous jobs (src/jobs): BullMQ when Redis is configured, in-process otherwise. */
  jobs: JobService;
  /** Periodic maintenance tasks, each run once per deployment per interval. */
  scheduler: SchedulerService;
  /** File bytes (uploads, chunks, results): `$DATA_DIR/files` behind the FileStorage interface. */
  storage: FileStorage;
  /** Prometheus metrics of this process (`GET /metrics`). */
  metrics: Metrics;
  close(): Promise<void>;
}

/** Per-request context, built once per HTTP request or WebSocket operation. */
export interface RequestContext {
  app: App;
  prisma: PrismaClient;
  /** The bearer token's identity and permissions; null only while building the context fails. */
  auth: AuthInfo | null;
  requestId: string;
  clientIp: string;
  /** Scheme and host the request was addressed to, honouring TRUST_PROXY: the base of emailed links without PUBLIC_URL. */
  origin?: string;
  /** Files a REST upload route streamed into storage for this request (see src/requests/uploads.ts). */
  uploads?: Map<string, StagedUpload>;
  /** Names this request holds an exclusive claim on for its whole length (src/requests/request-claim.ts). */
  claims?: Set<string>;
}

/**
 * Reads a new file's bytes while they are stored (the file manager's inspection on arrival):
 * `through` passes the bytes on to storage at the reader's pace; `result` is what the reading
 * found, once they have ended. What it made is the file's once `keep` is called; `discard` removes
 * it otherwise (the file was not created).
 */
export interface UploadObserver<R = unknown> {
  through(source: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array>;
  result(): Promise<R>;
  /**
   * The result as soon as it is known, possibly before the reading has ended (its last writes
   * still settling): `result()` then resolves to this same value, or to another one if the
   * reading failed at its very end. Without it, wait for `result()`.
   */
  early?(): Promise<R>;
  keep(): void;
  discard(): Promise<void>;
}

/** Bytes of one multipart file part, already in storage; a mutation takes it over by id. */
export interface StagedUpload {
  id: string;
  key: string;
  fileName: string;
  contentType: string;
  size: number;
  taken: boolean;
  /** What read the bytes as they arrived (an upload route's `observe`); the mutation awaits its result. */
  observer?: UploadObserver;
}
