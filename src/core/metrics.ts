import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

/**
 * The Prometheus metrics of one server process (`GET /metrics`). One registry per process (per
 * `App`), not prom-client's global one: tests start several servers in one process, and the
 * global registry refuses a metric registered twice.
 */
export interface Metrics {
  registry: Registry;
  httpRequests: Counter<"method" | "route" | "status">;
  httpDuration: Histogram<"method" | "route" | "status">;
  graphqlOperations: Counter<"type" | "operation" | "outcome">;
  graphqlDuration: Histogram<"type">;
  jobs: Counter<"job" | "type" | "outcome">;
  jobDuration: Histogram<"job" | "type" | "outcome">;
  ingestionRows: Counter<"stage">;
  ingestionRowsPerSecond: Gauge<"stage">;
  webhookDeliveries: Counter<"event" | "status">;
  webhookDuration: Histogram<"status">;
  /** A gauge read at scrape time (queue depth, pool use): `collect` sets its values. */
  scrapeGauge<L extends string>(name: string, help: string, labelNames: L[], collect: (gauge: Gauge<L>) => Promise<void> | void): Gauge<L>;
}

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const JOB_BUCKETS = [0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900, 3600];

export function createMetrics(options: { prefix?: string; defaultMetrics?: boolean } = {}): Metrics {
  const prefix = options.prefix ?? "fap_";
  const registry = new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  const metrics: Metrics = {
    registry,
    httpRequests: new Counter({ name: `${prefix}http_requests_total`, help: "HTTP requests by method, route template and status", labelNames: ["method", "route", "status"], registers: [registry] }),
    httpDuration: new Histogram({ name: `${prefix}http_request_duration_seconds`, help: "HTTP request latency by method, route template and status", labelNames: ["method", "route", "status"], buckets: DURATION_BUCKETS, registers: [registry] }),
    graphqlOperations: new Counter({ name: `${prefix}graphql_operations_total`, help: "GraphQL operations executed (HTTP, REST routes and graphql-ws) by type, operation name and outcome", labelNames: ["type", "operation", "outcome"], registers: [registry] }),
    graphqlDuration: new Histogram({ name: `${prefix}graphql_operation_duration_seconds`, help: "GraphQL query and mutation execution time by operation type", labelNames: ["type"], buckets: DURATION_BUCKETS, registers: [registry] }),
    jobs: new Counter({ name: `${prefix}jobs_total`, help: "Job attempts that ended, by job name, async result type and outcome (complete, error, retry)", labelNames: ["job", "type", "outcome"], registers: [registry] }),
    jobDuration: new Histogram({ name: `${prefix}job_duration_seconds`, help: "Duration of job attempts by job name, async result type and outcome", labelNames: ["job", "type", "outcome"], buckets: JOB_BUCKETS, registers: [registry] }),
    ingestionRows: new Counter({ name: `${prefix}ingestion_rows_total`, help: "Ledger rows ingested: staged from files and parsed into entries", labelNames: ["stage"], registers: [registry] }),
    ingestionRowsPerSecond: new Gauge({ name: `${prefix}ingestion_rows_per_second`, help: "Rows per second of the latest staging or parse step in this process", labelNames: ["stage"], registers: [registry] }),
    webhookDeliveries: new Counter({ name: `${prefix}webhook_delivery_attempts_total`, help: "Webhook delivery attempts by event type and outcome (COMPLETED, FAILED: retried unless out of attempts, FAILED_PERMANENTLY)", labelNames: ["event", "status"], registers: [registry] }),
    webhookDuration: new Histogram({ name: `${prefix}webhook_delivery_duration_seconds`, help: "Time until the receiver answered (or the attempt failed), by outcome", labelNames: ["status"], buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30], registers: [registry] }),
    scrapeGauge(name, help, labelNames, collect) {
      return new Gauge({
        name: `${prefix}${name}`,
        help,
        labelNames,
        registers: [registry],
        async collect() {
          await collect(this);
        },
      });
    },
  };
  return metrics;
}
