import { createServer, type IncomingMessage, type Server } from "node:http";
import { randomUUID } from "node:crypto";
import express, { type NextFunction, type Request, type Response } from "express";
import pg from "pg";
import type { Config } from "./config.js";
import type { Logger } from "./core/logger.js";
import { NotFoundError, RateLimitedError } from "./core/errors.js";
import { migrate } from "./db/migrate.js";
import type { EmbeddedDatabase } from "./db/embedded-postgres.js";
import { createAppServices, type App } from "./app-services.js";
import { createGraphqlPipeline, GRAPHQL_PATH } from "./graphql/yoga.js";
import { clientAddress, requestOrigin } from "./auth/request-address.js";
import { createGraphqlHandler } from "./graphql/http.js";
import type { DocumentStats } from "./graphql/documents.js";
import { bootstrapAdminToken } from "./modules/api-tokens/bootstrap.js";
import { keyEncryptionKey } from "./modules/webhooks/webhook-keys.js";
import { schema } from "../schema/index.js";
import { routeTableOf } from "../rest/routes.js";
import { families as allFamilies, type Family } from "./modules/index.js";
import { compileRoutes } from "../rest/compile.js";
import { createRestHandler } from "../rest/router.js";
import { errorBody } from "../rest/error-body.js";
import { buildOpenApi } from "../rest/openapi.js";
import { renderDocsPage } from "../rest/docs-page.js";
import { attachSubscriptions } from "../subscriptions/ws-server.js";
import { ACTIVATION_PATH, activationRouter } from "./modules/users/activation.js";
import { CONSOLE_PATH, consoleRouter } from "../web/console.js";
import { metricsHandler, registerScrapeGauges, requestMetrics, startMetricsServer } from "../web/metrics.js";

export const REST_BASE = "/api/v1";

export interface RunningServer {
  url: string;
  port: number;
  app: App;
  server: Server;
  /** The METRICS_PORT listener's port, when configured. */
  metricsPort?: number;
  /** GraphQL documents parsed, validated and compiled since start-up (the caches' misses). */
  graphqlDocuments: DocumentStats;
  /** Set when this start created the first admin token. */
  bootstrap?: { secret: string; file: string };
  close(): Promise<void>;
}

async function ensureDatabase(adminUrl: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const exists = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Starts everything the service needs and serves it; `close()` stops it all, once. */
export interface StartOptions {
  /** The families whose jobs and scheduled tasks this process runs (default: every family). */
  families?: readonly Family[];
}

export async function startServer(config: Config, logger: Logger, options: StartOptions = {}): Promise<RunningServer> {
  const started: Array<() => Promise<void>> = [];
  try {
    return await startAll(config, logger, options.families ?? allFamilies, started);
  } catch (error) {
    // Whatever started before the failure stops again, the database last: no PostgreSQL is left
    // running behind a start that failed.
    for (const stop of started.reverse()) await stop().catch(() => undefined);
    throw error;
  }
}

async function startAll(config: Config, logger: Logger, families: readonly Family[], started: Array<() => Promise<void>>): Promise<RunningServer> {
  let embedded: EmbeddedDatabase | undefined;
  let databaseUrl = config.databaseUrl;
  if (!databaseUrl) {
    // Imported only when needed: the embedded-postgres package costs ~10 MB a server on DATABASE_URL does not need.
    const { startEmbeddedPostgres } = await import("./db/embedded-postgres.js");
    // close() stops PostgreSQL last, after requests and jobs; main.ts calls it on SIGINT/SIGTERM.
    embedded = await startEmbeddedPostgres(config.dataDir, config.embeddedPostgresPort, logger);
    started.push(embedded.stop);
    databaseUrl = await ensureDatabase(embedded.url, "ledger");
  }
  const migrationPool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  try {
    const ran = await migrate(migrationPool);
    if (ran.length > 0) logger.info("applied migrations", { migrations: ran });
  } finally {
    await migrationPool.end();
  }

  const app = await createAppServices({ ...config, databaseUrl }, logger, {
    jobs: families.flatMap((family) => family.jobs ?? []),
    tasks: families.flatMap((family) => family.tasks ?? []),
    handlers: families.flatMap((family) => family.handlers ?? []),
  });
  started.push(() => app.close());
  const bootstrap = await bootstrapAdminToken(app);
  // Like the admin token: without SECRETS_KEY the first start writes DATA_DIR/secrets-key.
  keyEncryptionKey(config);
  const graphql = createGraphqlPipeline(app, schema);
  const { yoga } = graphql;
  const routes = compileRoutes(schema, routeTableOf(families));
  const openApi = buildOpenApi(schema, routes);

  const identify = (req: IncomingMessage) => ({
    authorization: req.headers.authorization,
    clientIp: clientAddress(req, config),
    origin: requestOrigin(req, config),
    requestId: (req.headers["x-request-id"] as string | undefined) ?? randomUUID(),
  });

  const web = express();
  web.disable("x-powered-by");
  // ETags would hash every JSON body; clients do not use them.
  web.set("etag", false);
  web.set("query parser", "simple");
  // What a security scanner expects of an API: no sniffing, no framing, no caching of answers
  // that carry data, no referrer; a strict CSP except on the two HTML pages that need scripts and
  // styles (GraphiQL and the REST reference). No X-Powered-By or Server header names the software.
  web.use((req, res, next) => {
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setHeader("X-Frame-Options", "DENY");
    res.setHeader("Referrer-Policy", "no-referrer");
    const htmlPage = req.method === "GET" && (req.path === GRAPHQL_PATH || req.path.startsWith(`${REST_BASE}/docs`) || req.path.startsWith(ACTIVATION_PATH));
    if (!htmlPage) res.setHeader("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'");
    if (req.path.startsWith("/api")) res.setHeader("Cache-Control", "no-store");
    next();
  });
  web.use(requestMetrics(app, REST_BASE));
  registerScrapeGauges(app);
  // Off unless configured: METRICS_TOKEN guards it on the API port; METRICS_PORT moves it to a port of its own.
  if (config.metricsToken !== undefined && config.metricsPort === undefined) {
    const scrape = metricsHandler(app, config.metricsToken);
    web.get("/metrics", (req, res) => void scrape(req, res));
  }
  web.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  web.get("/readyz", async (_req, res) => {
    try {
      await app.pool.query("SELECT 1");
      if (app.redis) await app.redis.ping();
      res.json({ status: "ready" });
    } catch (error) {
      res.status(503).json({ status: "unavailable", reason: (error as Error).message });
    }
  });

  // Platform-level per-IP limit (spec 7.9): 429 without X-User-Hour-Limit-Remaining.
  web.use("/api", async (req: Request, res: Response, next: NextFunction) => {
    try {
      const ip = clientAddress(req, config);
      // Keyed by window length too: processes sharing a Redis with another window setting (a
      // second deployment) would otherwise count into, and set the expiry of, each other's window.
      const hit = await app.counters.hit(`ip:${config.ipRateLimitWindowSeconds}s:${ip}`, config.ipRateLimitWindowSeconds);
      if (hit.count > config.ipRateLimit) {
        const error = new RateLimitedError(`Too many requests from ${ip}; retry in about ${hit.resetSeconds} seconds`, undefined, hit.resetSeconds);
        const { status, headers, body } = errorBody(error, { id: randomUUID(), path: req.originalUrl.split("?")[0] });
        res.status(status).set(headers).json(body);
        return;
      }
      next();
    } catch (error) {
      next(error);
    }
  });

  web.get(`${REST_BASE}/openapi.json`, (_req, res) => {
    res.json(openApi);
  });
  const docsHtml = renderDocsPage(routes);
  web.get([`${REST_BASE}/docs`, `${REST_BASE}/docs/`], (_req, res) => {
    res.type("html").send(docsHtml);
  });
  web.use(ACTIVATION_PATH, activationRouter(app));
  web.use(CONSOLE_PATH, consoleRouter());
  web.use(GRAPHQL_PATH, createGraphqlHandler({ yoga, identify, bodyLimit: config.jsonBodyLimit, maskError: graphql.maskError, uploads: { storage: app.storage, maxBytes: config.maxUploadBytes } }));
  web.use(REST_BASE, createRestHandler({ routes, yoga: yoga as never, logger, bodyLimit: config.jsonBodyLimit, identify, storage: app.storage, maxUploadBytes: config.maxUploadBytes }));
  web.use((req: Request, res: Response) => {
    const { status, body } = errorBody(new NotFoundError("Endpoint", `${req.method} ${req.path}`), { id: randomUUID(), path: req.path });
    res.status(status).json(body);
  });
  web.use((error: Error & { status?: number; expose?: boolean }, req: Request, res: Response, _next: NextFunction) => {
    // Body parsers (the activation form) raise 4xx errors of their own: too large, malformed.
    if (typeof error.status === "number" && error.status >= 400 && error.status < 500) {
      const { status, body } = errorBody(
        { message: error.expose ? error.message : "Invalid request", extensions: { code: "VALIDATION", status: error.status, problems: [{ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier: "body", reason: error.expose ? error.message : "Invalid request" }] } },
        { id: randomUUID(), path: req.path },
      );
      res.status(status).json(body);
      return;
    }
    logger.error("unhandled request error", { error, path: req.path });
    const { status, body } = errorBody({ message: "Unexpected error", extensions: {} }, { id: randomUUID(), path: req.path });
    res.status(status).json(body);
  });

  const server = createServer(web);
  // Node ends any request after 5 minutes (requestTimeout); an 8 GiB upload takes longer. A
  // connection that stays silent for 10 minutes is closed instead (a stalled client, or a
  // slow-drip one), which also bounds how long an unfinished upload's temporary file is written.
  server.requestTimeout = 0;
  server.setTimeout(10 * 60_000);
  // Idle keep-alive connections are closed after 65 s rather than Node's 5 s: a client reusing a
  // connection the server is closing that very moment sees "socket hang up" on a request that was
  // never read. Load balancers keep idle connections about 60 s; the server must outlast them.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  const subscriptions = attachSubscriptions(server, yoga, app);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, config.host, () => resolve());
  });
  if (!config.publicUrl) {
    // Emailed links never come from an unchecked Host header (see requestOrigin): say where they point.
    const hosts = config.publicHosts.length > 0 ? `, or the requested host when it is one of PUBLIC_HOSTS (${config.publicHosts.join(", ")})` : "";
    logger.info(`PUBLIC_URL is unset: activation links point at the address the server listens on${hosts}; set PUBLIC_URL to the address users reach`);
  }
  const metricsServer = config.metricsPort === undefined ? undefined : await startMetricsServer(app, config.host, config.metricsPort, config.metricsToken);
  app.relay.start();
  app.jobs.start();
  app.scheduler.start();
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const host = config.host === "0.0.0.0" || config.host === "::" ? "localhost" : config.host;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    port,
    app,
    server,
    metricsPort: metricsServer ? (metricsServer.address() as { port: number }).port : undefined,
    graphqlDocuments: graphql.documents,
    bootstrap,
    close() {
      closing ??= (async () => {
        await subscriptions.close().catch(() => undefined);
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        metricsServer?.closeAllConnections();
        await new Promise<void>((resolve) => (metricsServer ? metricsServer.close(() => resolve()) : resolve()));
        await app.close();
        await embedded?.stop();
      })();
      return closing;
    },
  };
}
