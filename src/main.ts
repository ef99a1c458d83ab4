import { loadConfig } from "./config.js";
import { tuneHeapGrowth } from "./core/heap-growth.js";
import { createLogger, type Logger } from "./core/logger.js";
import { startServer, REST_BASE } from "./server.js";

/**
 * A start that fails says why, whatever LOG_LEVEL is, and exits non-zero: the error's message
 * (and cause) on stderr as a plain line, and in the log with its stack. The embedded database
 * started so far was already stopped by startServer.
 */
function startupFailed(logger: Logger, error: unknown): never {
  const message = error instanceof Error ? error.message : error === undefined ? "unknown cause (no error was given)" : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? ` (cause: ${error.cause.message})` : "";
  logger.error("start-up failed", { error: error instanceof Error ? error : { message } });
  process.stderr.write(`start-up failed: ${message}${cause}\n`);
  process.exit(1);
}

tuneHeapGrowth();
let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (error) {
  startupFailed(createLogger("error"), error);
}
const logger = createLogger(config.logLevel);

try {
  const running = await startServer(config, logger);
  if (running.bootstrap) {
    process.stdout.write(
      `\nFirst start: created an App Admin API token with every permission.\n` +
        `  token: ${running.bootstrap.secret}\n` +
        `  saved to ${running.bootstrap.file} (readable only by you); it is not printed again.\n\n`,
    );
  }
  process.stdout.write(`Ready: REST ${running.url}${REST_BASE}  GraphQL ${running.url}/api/graphql  docs ${running.url}${REST_BASE}/docs\n`);
  // Ctrl-C in a terminal reaches this process only (the embedded database runs in its own process
  // group): close() stops subscriptions, HTTP, jobs and the pool, then the database, in that order.
  // A second signal while that runs exits at once; the exit still sends the database its stop signal.
  let shuttingDown = false;
  const shutdown = (signal: string) => {
    if (shuttingDown) {
      logger.warn("second signal during shutdown: exiting now", { signal });
      process.exit(130);
    }
    shuttingDown = true;
    logger.info("shutting down", { signal });
    running.close().then(
      () => process.exit(0),
      (error) => {
        logger.error("shutdown failed", { error });
        process.exit(1);
      },
    );
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => shutdown(signal));
} catch (error) {
  startupFailed(logger, error);
}
