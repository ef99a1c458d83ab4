import { createServer, type Server } from "node:http";
import { timingSafeEqual } from "node:crypto";
import type { NextFunction, Request, Response } from "express";
import type { App } from "../src/app-types.js";

/** Paths served outside the REST route table, labelled as they are (anything else is "unmatched"). */
const FIXED_ROUTES = ["/api/graphql", "/api/v1/openapi.json", "/api/v1/docs", "/healthz", "/readyz", "/metrics", "/activate"];

function routeLabel(req: Request, res: Response, restBase: string): string {
  const template = res.locals.routeTemplate as string | undefined;
  if (template) return `${restBase}${template}`;
  const path = req.originalUrl.split("?")[0];
  if (path === "/console" || path.startsWith("/console/")) return "/console";
  return FIXED_ROUTES.find((fixed) => path === fixed || path.startsWith(`${fixed}/`)) ?? "unmatched";
}

/** Counts and times every HTTP request by method, route template and status. */
export function requestMetrics(app: App, restBase: string) {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = performance.now();
    res.once("finish", () => {
      const labels = { method: req.method, route: routeLabel(req, res, restBase), status: String(res.statusCode) };
      app.metrics.httpRequests.inc(labels);
      app.metrics.httpDuration.observe(labels, (performance.now() - started) / 1000);
    });
    next();
  };
}

/** Scrape-time gauges: job queue depth from the async results, and the database pool. */
export function registerScrapeGauges(app: App): void {
  app.metrics.scrapeGauge("job_queue_depth", "Jobs waiting or running (IN_PROGRESS async results), by job name; deployment-wide (read from the database)", ["job", "state"], async (gauge) => {
    const { rows } = await app.pool.query<{ job_name: string; running: string; waiting: string }>(
      `SELECT job_name,
              count(*) FILTER (WHERE lease_expires_at > now()) AS running,
              count(*) FILTER (WHERE lease_expires_at IS NULL OR lease_expires_at <= now()) AS waiting
         FROM async_result WHERE status = 'IN_PROGRESS' GROUP BY job_name`,
    );
    gauge.reset();
    for (const row of rows) {
      gauge.set({ job: row.job_name, state: "running" }, Number(row.running));
      gauge.set({ job: row.job_name, state: "waiting" }, Number(row.waiting));
    }
  });
  app.metrics.scrapeGauge("db_pool_connections", "Connections of this process's PostgreSQL pool: total, idle, and clients waiting for one", ["state"], (gauge) => {
    gauge.set({ state: "total" }, app.pool.totalCount);
    gauge.set({ state: "idle" }, app.pool.idleCount);
    gauge.set({ state: "waiting" }, app.pool.waitingCount);
  });
}

function tokenMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(header?.startsWith("Bearer ") ? header.slice(7) : "");
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** `GET /metrics` in the Prometheus text format; `token` (METRICS_TOKEN) required when given. */
export function metricsHandler(app: App, token: string | undefined) {
  return async (req: Request | import("node:http").IncomingMessage, res: Response | import("node:http").ServerResponse) => {
    if (token !== undefined && !tokenMatches(req.headers.authorization, token)) {
      res.statusCode = 401;
      res.setHeader("www-authenticate", 'Bearer realm="metrics"');
      res.setHeader("content-type", "text/plain; charset=utf-8");
      res.end("401 Unauthorized: send Authorization: Bearer <METRICS_TOKEN>\n");
      return;
    }
    try {
      const body = await app.metrics.registry.metrics();
      res.statusCode = 200;
      res.setHeader("content-type", app.metrics.registry.contentType);
      res.end(body);
    } catch (error) {
      app.logger.error("metrics scrape failed", { error });
      res.statusCode = 500;
      res.end("metrics unavailable\n");
    }
  };
}

/** The separate metrics listener (METRICS_PORT): only /metrics, nothing of the API. */
export async function startMetricsServer(app: App, host: string, port: number, token: string | undefined): Promise<Server> {
  const handler = metricsHandler(app, token);
  const server = createServer((req, res) => {
    if (req.method === "GET" && req.url?.split("?")[0] === "/metrics") return void handler(req, res);
    res.statusCode = 404;
    res.end("not found\n");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
