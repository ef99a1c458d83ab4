import { loadConfig } from "./config.js";
import { createLogger } from "./core/logger.js";
import { startServer, REST_BASE } from "./server.js";

const config = loadConfig();
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
  const shutdown = (signal: string) => {
    logger.info("shutting down", { signal });
    running.close().then(
      () => process.exit(0),
      (error) => {
        logger.error("shutdown failed", { error });
        process.exit(1);
      },
    );
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.once(signal, () => shutdown(signal));
} catch (error) {
  logger.error("start-up failed", { error });
  process.exit(1);
}
