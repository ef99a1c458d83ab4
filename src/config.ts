import { resolve } from "node:path";

/**
 * Every setting the server reads. Nothing else in the code base looks at process.env,
 * so this file (and the README table generated from the same names) is the whole story.
 */
export interface Config {
  port: number;
  host: string;
  /** External PostgreSQL; when absent an embedded server is started under `dataDir`. */
  databaseUrl?: string;
  dataDir: string;
  embeddedPostgresPort: number;
  /** When set: pub/sub, rate-limit counters and job queues go through Redis so several processes act as one. */
  redisUrl?: string;
  smtpUrl?: string;
  /** Sender of activation emails. */
  mailFrom: string;
  tenantId: string;
  /** Fixed value for the first App Admin token (scripts, containers, tests). */
  bootstrapToken?: string;
  /** Per-IP platform limit: requests per window. */
  ipRateLimit: number;
  ipRateLimitWindowSeconds: number;
  /** Tenant-wide limit on user create/update/resend-activation calls per hour. */
  modifyUsersHourlyLimit: number;
  trustProxy: boolean;
  /** Largest JSON request body accepted, in bytes. */
  jsonBodyLimit: number;
  publicUrl?: string;
  /** Jobs one process runs at the same time. */
  jobConcurrency: number;
  /** A running job renews its lease this often (a third of it); a lease older than this is abandoned work. */
  jobLeaseSeconds: number;
  /** How often each process looks for unfinished jobs whose lease expired. */
  jobSweepSeconds: number;
  /** How often each process checks for due maintenance tasks (cleanup). */
  schedulerTickSeconds: number;
  /** Interval of the cleanup of expired chunked files and JSON tables. */
  cleanupIntervalSeconds: number;
  /** Largest single-file upload in bytes (413 above); the spec's limit is 8 GiB. */
  maxUploadBytes: number;
  /** Data table exports of more rows than this are written unsorted (spec: 2 million). */
  dataTableExportSortLimit: number;
  logLevel: "debug" | "info" | "warn" | "error" | "silent";
  /** Bearer token Prometheus sends to `GET /metrics`; without it (and without `metricsPort`) /metrics is off. */
  metricsToken?: string;
  /** Serve /metrics on this port of `host` instead of the API port (no token needed there unless `metricsToken` is set). */
  metricsPort?: number;
}

/** Spec 4.3: exports of more than 2 million rows are unsorted. */
export const DATA_TABLE_EXPORT_SORT_LIMIT = 2_000_000;

export const CONFIG_VARIABLES: Array<{ name: string; default: string; meaning: string }> = [
  { name: "PORT", default: "8080", meaning: "HTTP port" },
  { name: "HOST", default: "0.0.0.0", meaning: "listen address" },
  { name: "DATABASE_URL", default: "(unset: embedded PostgreSQL)", meaning: "PostgreSQL connection string" },
  { name: "DATA_DIR", default: "./data", meaning: "embedded PostgreSQL data, stored files, admin-token file" },
  { name: "EMBEDDED_PG_PORT", default: "54329", meaning: "port of the embedded PostgreSQL" },
  { name: "REDIS_URL", default: "(unset: in-process pub/sub and queues)", meaning: "Redis for pub/sub, limits and jobs across processes" },
  { name: "SMTP_URL", default: "(unset: local outbox in DATA_DIR/outbox)", meaning: "SMTP server for activation emails" },
  { name: "MAIL_FROM", default: "no-reply@localhost", meaning: "sender address of activation emails" },
  { name: "TENANT_ID", default: "default", meaning: "tenant id shown in webhook payloads" },
  { name: "BOOTSTRAP_TOKEN", default: "(random)", meaning: "value of the first App Admin token" },
  { name: "IP_RATE_LIMIT", default: "6000", meaning: "requests per IP per window before 429" },
  { name: "IP_RATE_LIMIT_WINDOW_SECONDS", default: "30", meaning: "per-IP window length" },
  { name: "MODIFY_USERS_HOURLY_LIMIT", default: "100", meaning: "tenant-wide user create/update/resend calls per hour" },
  { name: "TRUST_PROXY", default: "false", meaning: "take the client address from X-Forwarded-For, and emailed links' scheme and host (without PUBLIC_URL) from X-Forwarded-Proto/-Host" },
  { name: "JSON_BODY_LIMIT", default: "67108864", meaning: "largest JSON body in bytes (413 above)" },
  { name: "PUBLIC_URL", default: "(derived from the request)", meaning: "external base URL used in links; unset: the scheme and host the request was sent to" },
  { name: "JOB_CONCURRENCY", default: "2", meaning: "jobs one process runs at once" },
  { name: "JOB_LEASE_SECONDS", default: "30", meaning: "job lease; a job whose process died is resumed after it expires" },
  { name: "JOB_SWEEP_SECONDS", default: "10", meaning: "how often to look for abandoned or unscheduled jobs" },
  { name: "SCHEDULER_TICK_SECONDS", default: "30", meaning: "how often to check for due maintenance tasks" },
  { name: "CLEANUP_INTERVAL_SECONDS", default: "3600", meaning: "interval of the expired chunked file / JSON table cleanup" },
  { name: "MAX_UPLOAD_BYTES", default: "8589934592", meaning: "single-file upload limit (8 GiB; 413 above)" },
  { name: "DATA_TABLE_EXPORT_SORT_LIMIT", default: "2000000", meaning: "data table exports above this many rows are unsorted" },
  { name: "LOG_LEVEL", default: "info", meaning: "debug, info, warn, error or silent" },
  { name: "METRICS_TOKEN", default: "(unset)", meaning: "bearer token for GET /metrics (Prometheus); unset and without METRICS_PORT, /metrics is off (404)" },
  { name: "METRICS_PORT", default: "(unset)", meaning: "serve /metrics on this separate port instead of the API port (token only if METRICS_TOKEN is set)" },
];

function int(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

function optional(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name];
  return raw === undefined || raw === "" ? undefined : raw;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const logLevel = (optional(env, "LOG_LEVEL") ?? "info") as Config["logLevel"];
  if (!["debug", "info", "warn", "error", "silent"].includes(logLevel)) throw new Error(`LOG_LEVEL "${logLevel}" is not one of debug, info, warn, error, silent`);
  return {
    port: int(env, "PORT", 8080),
    host: optional(env, "HOST") ?? "0.0.0.0",
    databaseUrl: optional(env, "DATABASE_URL"),
    dataDir: resolve(optional(env, "DATA_DIR") ?? "data"),
    embeddedPostgresPort: int(env, "EMBEDDED_PG_PORT", 54329),
    redisUrl: optional(env, "REDIS_URL"),
    smtpUrl: optional(env, "SMTP_URL"),
    mailFrom: optional(env, "MAIL_FROM") ?? "no-reply@localhost",
    tenantId: optional(env, "TENANT_ID") ?? "default",
    bootstrapToken: optional(env, "BOOTSTRAP_TOKEN"),
    ipRateLimit: int(env, "IP_RATE_LIMIT", 6000),
    ipRateLimitWindowSeconds: int(env, "IP_RATE_LIMIT_WINDOW_SECONDS", 30),
    modifyUsersHourlyLimit: int(env, "MODIFY_USERS_HOURLY_LIMIT", 100),
    trustProxy: optional(env, "TRUST_PROXY") === "true",
    jsonBodyLimit: int(env, "JSON_BODY_LIMIT", 64 * 1024 * 1024),
    publicUrl: optional(env, "PUBLIC_URL"),
    jobConcurrency: Math.max(1, int(env, "JOB_CONCURRENCY", 2)),
    jobLeaseSeconds: Math.max(1, int(env, "JOB_LEASE_SECONDS", 30)),
    jobSweepSeconds: Math.max(1, int(env, "JOB_SWEEP_SECONDS", 10)),
    schedulerTickSeconds: Math.max(1, int(env, "SCHEDULER_TICK_SECONDS", 30)),
    cleanupIntervalSeconds: Math.max(1, int(env, "CLEANUP_INTERVAL_SECONDS", 3600)),
    maxUploadBytes: int(env, "MAX_UPLOAD_BYTES", 8 * 1024 * 1024 * 1024),
    dataTableExportSortLimit: int(env, "DATA_TABLE_EXPORT_SORT_LIMIT", DATA_TABLE_EXPORT_SORT_LIMIT),
    logLevel,
    metricsToken: optional(env, "METRICS_TOKEN"),
    metricsPort: optional(env, "METRICS_PORT") === undefined ? undefined : int(env, "METRICS_PORT", 0),
  };
}
