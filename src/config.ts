import { isIP } from "node:net";
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
  /** Where stored files live: a local directory (default `DATA_DIR/files`) or an S3-compatible bucket. */
  storage: StorageConfig;
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
  /**
   * With trustProxy: how many proxies in front of the server append to X-Forwarded-For. The client
   * address is the entry that many places from the right (Express's `trust proxy` = n): entries
   * further left were written by the caller and prove nothing.
   */
  trustProxyHops: number;
  /**
   * Host names (host[:port]) emailed links may be built from when PUBLIC_URL is unset; a request
   * addressed to any other host gets links to the listen address instead (the Host header is the
   * caller's to choose).
   */
  publicHosts: string[];
  /** Failed authentications per client address per window before the address gets 429. */
  authFailureLimit: number;
  authFailureWindowSeconds: number;
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
  /** Temporary bytes (and stored bytes no entity names) older than this are a crash's leftovers. */
  tempFileMaxAgeSeconds: number;
  /** Largest single-file upload in bytes (413 above); the spec's limit is 8 GiB. */
  maxUploadBytes: number;
  /** Data table exports of more rows than this are written unsorted (spec: 2 million). */
  dataTableExportSortLimit: number;
  logLevel: "debug" | "info" | "warn" | "error" | "silent";
  /**
   * Secret (16+ characters) from which the keys encrypting secrets at rest are derived (webhook
   * signing keys, warehouse credentials). Unset: generated into `DATA_DIR/secrets-key` on the first start.
   */
  secretsKey?: string;
  /** Bound on each request to a warehouse (connect, statement, chunk), in seconds. */
  warehouseTimeoutSeconds: number;
  /** PEM file of extra certificate authorities trusted for warehouse HTTPS (a private CA). */
  warehouseCaFile?: string;
  /** Bearer token Prometheus sends to `GET /metrics`; without it (and without `metricsPort`) /metrics is off. */
  metricsToken?: string;
  /** Serve /metrics on this port of `host` instead of the API port (no token needed there unless `metricsToken` is set). */
  metricsPort?: number;
  /** Seconds to wait before each retry of a failed webhook delivery (jittered; Retry-After may lengthen a wait). */
  webhookRetrySchedule: number[];
  /** A delivery attempt not answered within this many seconds failed. */
  webhookTimeoutSeconds: number;
  /**
   * Receivers admitted although they resolve to loopback, private, link-local or metadata addresses
   * (on-premise and test receivers): host names (`hooks.corp.example`, `*.corp.example`) and IP
   * addresses or CIDR ranges.
   */
  webhookAllowedHosts: string[];
  /** PEM file of certificate authorities trusted for webhook receivers besides the system ones. */
  webhookCaFile?: string;
  /** Static host name to address mapping consulted before DNS when delivering webhooks (like curl --resolve). */
  webhookResolve: Record<string, string>;
  /** Webhook event logs older than this many days are deleted by the scheduler. */
  webhookEventLogRetentionDays: number;
}

/** Standard Webhooks-style retry waits: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (8 attempts in all). */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE = "5s,5m,30m,2h,5h,10h,10h";

/** Spec 4.3: exports of more than 2 million rows are unsorted. */
export const DATA_TABLE_EXPORT_SORT_LIMIT = 2_000_000;

export type StorageConfig =
  /** `root` unset: `DATA_DIR/files`, resolved when the storage is made (callers may change dataDir). */
  | { kind: "file"; root?: string }
  /** Credentials come from the AWS SDK's own chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, AWS_PROFILE, instance roles). */
  | { kind: "s3"; bucket: string; prefix: string; endpoint?: string; region: string; forcePathStyle: boolean };

function storageConfig(env: NodeJS.ProcessEnv): StorageConfig {
  const raw = optional(env, "STORAGE_URL");
  if (raw === undefined) return { kind: "file" };
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(raw);
  if (raw.startsWith("file://")) return { kind: "file", root: resolve(raw.slice("file://".length)) };
  if (!match) throw new Error(`STORAGE_URL "${raw}" is not s3://bucket[/prefix] or file:///path`);
  const prefix = (match[2] ?? "").replace(/^\/+|\/+$/g, "");
  if (prefix !== "" && !/^[A-Za-z0-9_.\/-]+$/.test(prefix)) throw new Error(`STORAGE_URL: the prefix "${prefix}" may hold only letters, digits, _ . - and /`);
  const forcePathStyle = optional(env, "S3_FORCE_PATH_STYLE") ?? "false";
  if (!["true", "false"].includes(forcePathStyle)) throw new Error(`S3_FORCE_PATH_STYLE "${forcePathStyle}" is not true or false`);
  return {
    kind: "s3",
    bucket: match[1],
    prefix,
    endpoint: optional(env, "S3_ENDPOINT"),
    region: optional(env, "S3_REGION") ?? optional(env, "AWS_REGION") ?? "us-east-1",
    forcePathStyle: forcePathStyle === "true",
  };
}

export const CONFIG_VARIABLES: Array<{ name: string; default: string; meaning: string }> = [
  { name: "PORT", default: "8080", meaning: "HTTP port" },
  { name: "HOST", default: "0.0.0.0", meaning: "listen address" },
  { name: "DATABASE_URL", default: "(unset: embedded PostgreSQL)", meaning: "PostgreSQL connection string" },
  { name: "DATA_DIR", default: "./data", meaning: "embedded PostgreSQL data, stored files, admin-token file" },
  { name: "STORAGE_URL", default: "(unset: DATA_DIR/files)", meaning: "where stored files live: s3://bucket/prefix for S3-compatible object storage (AWS S3, MinIO, Ceph), or file:///path" },
  { name: "S3_ENDPOINT", default: "(AWS)", meaning: "S3 API endpoint of another provider, e.g. http://minio:9000; credentials come from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (or AWS_PROFILE, an instance role)" },
  { name: "S3_REGION", default: "AWS_REGION, else us-east-1", meaning: "region of the bucket" },
  { name: "S3_FORCE_PATH_STYLE", default: "false", meaning: "true addresses the bucket as endpoint/bucket (MinIO, Ceph) instead of bucket.endpoint" },
  { name: "EMBEDDED_PG_PORT", default: "54329", meaning: "port of the embedded PostgreSQL" },
  { name: "REDIS_URL", default: "(unset: in-process pub/sub and queues)", meaning: "Redis for pub/sub, limits and jobs across processes" },
  { name: "SMTP_URL", default: "(unset: local outbox in DATA_DIR/outbox)", meaning: "SMTP server for activation emails" },
  { name: "MAIL_FROM", default: "no-reply@localhost", meaning: "sender address of activation emails" },
  { name: "TENANT_ID", default: "default", meaning: "tenant id shown in webhook payloads" },
  { name: "BOOTSTRAP_TOKEN", default: "(random)", meaning: "value of the first App Admin token" },
  { name: "IP_RATE_LIMIT", default: "6000", meaning: "requests per IP per window before 429" },
  { name: "IP_RATE_LIMIT_WINDOW_SECONDS", default: "30", meaning: "per-IP window length" },
  { name: "MODIFY_USERS_HOURLY_LIMIT", default: "100", meaning: "tenant-wide user create/update/resend calls per hour" },
  { name: "TRUST_PROXY", default: "false", meaning: "true (one proxy) or the number of proxies in front: the client address is the X-Forwarded-For entry that many places from the right; emailed links' scheme and host from X-Forwarded-Proto/-Host (hosts still need PUBLIC_HOSTS)" },
  { name: "PUBLIC_HOSTS", default: "(none)", meaning: "comma-separated host[:port] names emailed links may use when PUBLIC_URL is unset; other requests get links to the listen address" },
  { name: "AUTH_FAILURE_LIMIT", default: "30", meaning: "failed authentications per client address per window before that address gets 429" },
  { name: "AUTH_FAILURE_WINDOW_SECONDS", default: "300", meaning: "length of that window" },
  { name: "JSON_BODY_LIMIT", default: "67108864", meaning: "largest JSON body in bytes (413 above)" },
  { name: "PUBLIC_URL", default: "(the listen address)", meaning: "external base URL used in emailed links; unset: the listen address, or a PUBLIC_HOSTS host the request was sent to" },
  { name: "JOB_CONCURRENCY", default: "2", meaning: "jobs one process runs at once" },
  { name: "JOB_LEASE_SECONDS", default: "30", meaning: "job lease; a job whose process died is resumed after it expires" },
  { name: "JOB_SWEEP_SECONDS", default: "10", meaning: "how often to look for abandoned or unscheduled jobs" },
  { name: "SCHEDULER_TICK_SECONDS", default: "30", meaning: "how often to check for due maintenance tasks" },
  { name: "CLEANUP_INTERVAL_SECONDS", default: "3600", meaning: "interval of the expired chunked file / JSON table cleanup" },
  { name: "TEMP_FILE_MAX_AGE_SECONDS", default: "3600", meaning: "unfinished uploads and writes, and stored bytes no entity refers to, older than this are removed by the cleanup" },
  { name: "MAX_UPLOAD_BYTES", default: "8589934592", meaning: "single-file upload limit (8 GiB; 413 above)" },
  { name: "DATA_TABLE_EXPORT_SORT_LIMIT", default: "2000000", meaning: "data table exports above this many rows are unsorted" },
  { name: "LOG_LEVEL", default: "info", meaning: "debug, info, warn, error or silent" },
  { name: "SECRETS_KEY", default: "(generated into DATA_DIR/secrets-key)", meaning: "secret (at least 16 characters) from which the keys encrypting secrets at rest (webhook signing keys, warehouse credentials) are derived; every process of a deployment needs the same" },
  { name: "WAREHOUSE_CA_FILE", default: "(system CAs only)", meaning: "PEM file of extra certificate authorities trusted for warehouse HTTPS" },
  { name: "WAREHOUSE_TIMEOUT_SECONDS", default: "30", meaning: "bound on each warehouse request (token, statement, result chunk)" },
  { name: "METRICS_TOKEN", default: "(unset)", meaning: "bearer token for GET /metrics (Prometheus); unset and without METRICS_PORT, /metrics is off (404)" },
  { name: "METRICS_PORT", default: "(unset)", meaning: "serve /metrics on this separate port instead of the API port (token only if METRICS_TOKEN is set)" },
  { name: "WEBHOOK_RETRY_SCHEDULE", default: DEFAULT_WEBHOOK_RETRY_SCHEDULE, meaning: "waits before each retry of a failed webhook delivery (s, m, h units; ±10 % jitter; a longer Retry-After wins)" },
  { name: "WEBHOOK_TIMEOUT_SECONDS", default: "15", meaning: "a delivery attempt not answered in time failed" },
  { name: "WEBHOOK_ALLOWED_HOSTS", default: "(none)", meaning: "receivers admitted on loopback, private, link-local or metadata addresses: host names (*.suffix allowed), IP addresses, CIDR ranges" },
  { name: "WEBHOOK_CA_FILE", default: "(system CAs only)", meaning: "PEM file of extra certificate authorities trusted for webhook receivers" },
  { name: "WEBHOOK_RESOLVE", default: "(DNS only)", meaning: "static host=address pairs consulted before DNS for webhook receivers" },
  { name: "WEBHOOK_EVENT_LOG_RETENTION_DAYS", default: "30", meaning: "webhook event logs older than this are deleted" },
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

/** TRUST_PROXY: unset/false/0 trusts no proxy, true one, a number that many. */
function trustProxy(raw: string | undefined): { trustProxy: boolean; trustProxyHops: number } {
  if (raw === undefined || raw === "false" || raw === "0") return { trustProxy: false, trustProxyHops: 0 };
  if (raw === "true") return { trustProxy: true, trustProxyHops: 1 };
  if (/^\d+$/.test(raw)) return { trustProxy: true, trustProxyHops: Number(raw) };
  throw new Error(`TRUST_PROXY must be true, false or the number of proxies in front of the server, got "${raw}"`);
}

const DURATION = /^(\d+)(s|m|h)?$/;

function retrySchedule(raw: string): number[] {
  const waits = raw.split(",").map((part) => part.trim()).filter((part) => part !== "");
  return waits.map((part) => {
    const match = DURATION.exec(part);
    if (!match) throw new Error(`WEBHOOK_RETRY_SCHEDULE: "${part}" is not a duration such as 30, 30s, 5m or 2h`);
    return Number(match[1]) * (match[2] === "h" ? 3600 : match[2] === "m" ? 60 : 1);
  });
}

const HOST_PATTERN = /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

function allowedHosts(raw: string | undefined): string[] {
  const entries = (raw ?? "").split(",").map((e) => e.trim().toLowerCase()).filter((e) => e !== "");
  for (const entry of entries) {
    const [address, prefix, ...rest] = entry.split("/");
    const family = isIP(address);
    const cidrOk = prefix === undefined || (/^\d+$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
    if (family !== 0 ? !cidrOk || rest.length > 0 : !HOST_PATTERN.test(entry)) {
      throw new Error(`WEBHOOK_ALLOWED_HOSTS: "${entry}" is not a host name, *.suffix, IP address or CIDR range`);
    }
  }
  return entries;
}

function hostMapping(raw: string | undefined): Record<string, string> {
  const mapping: Record<string, string> = {};
  for (const pair of (raw ?? "").split(",").map((e) => e.trim()).filter((e) => e !== "")) {
    const [host, address, ...rest] = pair.split("=");
    if (!host || !address || rest.length > 0 || isIP(address.trim()) === 0) throw new Error(`WEBHOOK_RESOLVE: "${pair}" is not host=address (an IPv4 or IPv6 address)`);
    mapping[host.trim().toLowerCase()] = address.trim();
  }
  return mapping;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const logLevel = (optional(env, "LOG_LEVEL") ?? "info") as Config["logLevel"];
  if (!["debug", "info", "warn", "error", "silent"].includes(logLevel)) throw new Error(`LOG_LEVEL "${logLevel}" is not one of debug, info, warn, error, silent`);
  return {
    port: int(env, "PORT", 8080),
    host: optional(env, "HOST") ?? "0.0.0.0",
    databaseUrl: optional(env, "DATABASE_URL"),
    dataDir: resolve(optional(env, "DATA_DIR") ?? "data"),
    storage: storageConfig(env),
    embeddedPostgresPort: int(env, "EMBEDDED_PG_PORT", 54329),
    redisUrl: optional(env, "REDIS_URL"),
    smtpUrl: optional(env, "SMTP_URL"),
    mailFrom: optional(env, "MAIL_FROM") ?? "no-reply@localhost",
    tenantId: optional(env, "TENANT_ID") ?? "default",
    bootstrapToken: optional(env, "BOOTSTRAP_TOKEN"),
    ipRateLimit: int(env, "IP_RATE_LIMIT", 6000),
    ipRateLimitWindowSeconds: int(env, "IP_RATE_LIMIT_WINDOW_SECONDS", 30),
    modifyUsersHourlyLimit: int(env, "MODIFY_USERS_HOURLY_LIMIT", 100),
    ...trustProxy(optional(env, "TRUST_PROXY")),
    publicHosts: (optional(env, "PUBLIC_HOSTS") ?? "").split(",").map((h) => h.trim().toLowerCase()).filter(Boolean),
    authFailureLimit: int(env, "AUTH_FAILURE_LIMIT", 30),
    authFailureWindowSeconds: Math.max(1, int(env, "AUTH_FAILURE_WINDOW_SECONDS", 300)),
    jsonBodyLimit: int(env, "JSON_BODY_LIMIT", 64 * 1024 * 1024),
    publicUrl: optional(env, "PUBLIC_URL"),
    jobConcurrency: Math.max(1, int(env, "JOB_CONCURRENCY", 2)),
    jobLeaseSeconds: Math.max(1, int(env, "JOB_LEASE_SECONDS", 30)),
    jobSweepSeconds: Math.max(1, int(env, "JOB_SWEEP_SECONDS", 10)),
    schedulerTickSeconds: Math.max(1, int(env, "SCHEDULER_TICK_SECONDS", 30)),
    cleanupIntervalSeconds: Math.max(1, int(env, "CLEANUP_INTERVAL_SECONDS", 3600)),
    tempFileMaxAgeSeconds: Math.max(1, int(env, "TEMP_FILE_MAX_AGE_SECONDS", 3600)),
    maxUploadBytes: int(env, "MAX_UPLOAD_BYTES", 8 * 1024 * 1024 * 1024),
    dataTableExportSortLimit: int(env, "DATA_TABLE_EXPORT_SORT_LIMIT", DATA_TABLE_EXPORT_SORT_LIMIT),
    logLevel,
    secretsKey: secretsKey(optional(env, "SECRETS_KEY")),
    warehouseTimeoutSeconds: Math.max(1, int(env, "WAREHOUSE_TIMEOUT_SECONDS", 30)),
    warehouseCaFile: optional(env, "WAREHOUSE_CA_FILE"),
    metricsToken: optional(env, "METRICS_TOKEN"),
    metricsPort: optional(env, "METRICS_PORT") === undefined ? undefined : int(env, "METRICS_PORT", 0),
    webhookRetrySchedule: retrySchedule(optional(env, "WEBHOOK_RETRY_SCHEDULE") ?? DEFAULT_WEBHOOK_RETRY_SCHEDULE),
    webhookTimeoutSeconds: Math.max(1, int(env, "WEBHOOK_TIMEOUT_SECONDS", 15)),
    webhookAllowedHosts: allowedHosts(optional(env, "WEBHOOK_ALLOWED_HOSTS")),
    webhookCaFile: optional(env, "WEBHOOK_CA_FILE"),
    webhookResolve: hostMapping(optional(env, "WEBHOOK_RESOLVE")),
    webhookEventLogRetentionDays: Math.max(1, int(env, "WEBHOOK_EVENT_LOG_RETENTION_DAYS", 30)),
  };
}

function secretsKey(raw: string | undefined): string | undefined {
  if (raw !== undefined && raw.length < 16) throw new Error("SECRETS_KEY must be at least 16 characters (e.g. openssl rand -base64 32)");
  return raw;
}
