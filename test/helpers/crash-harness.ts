import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { expect } from "vitest";
import { createTestDatabase } from "./database.js";
import { startChildServer, type ChildServer } from "./child-server.js";
import { RestClient } from "./client.js";

/**
 * Crash tests (issue 16 point 2): a real server process (the compiled build `npm start` runs) on
 * its own database and DATA_DIR, killed with SIGKILL at a chosen moment of an operation and started
 * again. Short job leases and cleanup intervals make recovery quick. Each scenario is one
 * `CrashCase`; `runCrashCase` plays it:
 *
 *   prepare (on the running server) -> begin the operation -> wait for the crash point ->
 *   kill -9 -> checks of what the crash left -> start again -> verify the outcome.
 *
 * Adding a scenario (an analysis run, a webhook retry) is one more CrashCase in a test file.
 */
export class CrashHarness {
  server!: ChildServer;
  api!: RestClient;
  private constructor(
    readonly databaseUrl: string,
    readonly dataDir: string,
    readonly token: string,
    readonly pool: pg.Pool,
    private readonly env: Record<string, string>,
  ) {}

  static async create(extraEnv: Record<string, string> = {}): Promise<CrashHarness> {
    const { url } = await createTestDatabase();
    const dataDir = mkdtempSync(join(tmpdir(), "fap-crash-"));
    const token = `fap_crash_${randomBytes(12).toString("hex")}`;
    const env = {
      DATABASE_URL: url,
      BOOTSTRAP_TOKEN: token,
      JOB_LEASE_SECONDS: "2",
      JOB_SWEEP_SECONDS: "1",
      SCHEDULER_TICK_SECONDS: "1",
      CLEANUP_INTERVAL_SECONDS: "1",
      TEMP_FILE_MAX_AGE_SECONDS: "3",
      TENANT_ID: `crash${randomBytes(3).toString("hex")}`,
      LOG_LEVEL: "error",
      ...extraEnv,
    };
    return new CrashHarness(url, dataDir, token, new pg.Pool({ connectionString: url, max: 3 }), env);
  }

  async start(): Promise<void> {
    this.server = await startChildServer(this.env, { dataDir: this.dataDir, compiled: true });
    this.api = new RestClient(this.server.url, this.token);
  }

  /** kill -9: no shutdown code runs, nothing is flushed or handed back. */
  async crash(): Promise<void> {
    const exited = new Promise((r) => this.server.process.once("exit", r));
    this.server.process.kill("SIGKILL");
    await exited;
  }

  async sql<T extends pg.QueryResultRow = any>(text: string, params: unknown[] = []): Promise<T[]> {
    return (await this.pool.query<T>(text, params)).rows;
  }

  /** Polls `check` every few milliseconds (crash points are short windows) until it is true. */
  async until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000, everyMs = 5): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, everyMs));
    }
  }

  /** Temporary bytes in storage: unfinished writes (`.tmp`) and staged uploads (`uploads`). */
  temporaries(): Array<{ name: string; size: number }> {
    const out: Array<{ name: string; size: number }> = [];
    for (const dir of [".tmp", "uploads"]) {
      const path = join(this.dataDir, "files", dir);
      if (!existsSync(path)) continue;
      for (const name of readdirSync(path)) {
        try {
          out.push({ name: `${dir}/${name}`, size: statSync(join(path, name)).size });
        } catch {
          // renamed away meanwhile
        }
      }
    }
    return out;
  }

  /** Stored objects directly under a storage prefix (`files`, `file-results`, ...). */
  stored(prefix: string): string[] {
    const path = join(this.dataDir, "files", prefix);
    return existsSync(path) ? readdirSync(path) : [];
  }

  async close(): Promise<void> {
    await this.server?.stop("SIGKILL").catch(() => undefined);
    await this.pool.end().catch(() => undefined);
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

export interface CrashCase<S> {
  name: string;
  /** What the operation needs, made through the API of the running server. */
  prepare(h: CrashHarness): Promise<S>;
  /** Starts the operation (without waiting for it to end). */
  begin(h: CrashHarness, state: S): Promise<void>;
  /** True at the moment to crash: the operation is under way. */
  crashPoint(h: CrashHarness, state: S): Promise<boolean> | boolean;
  /** Checks of what the crash left, before the restart (e.g. the interrupted state is stored). */
  afterCrash?(h: CrashHarness, state: S): Promise<void>;
  /** After the restart: the operation resumed or failed with a cause (and a retry works), and the data is exact. */
  verify(h: CrashHarness, state: S): Promise<void>;
}

export async function runCrashCase<S>(h: CrashHarness, scenario: CrashCase<S>): Promise<S> {
  const times: Record<string, number> = {};
  let last = Date.now();
  const lap = (name: string) => {
    times[name] = Date.now() - last;
    last = Date.now();
  };
  const state = await scenario.prepare(h);
  lap("prepare");
  await scenario.begin(h, state);
  await h.until(() => scenario.crashPoint(h, state), `${scenario.name}: its crash point`);
  lap("to crash point");
  await h.crash();
  await scenario.afterCrash?.(h, state);
  await h.start();
  lap("restart");
  await scenario.verify(h, state);
  lap("verify");
  if (process.env.CRASH_TIMES) console.log(scenario.name, JSON.stringify(times));
  return state;
}

/** After every case: no job of the dead process is left IN_PROGRESS (they resume or fail once their lease expires). */
export async function expectNoJobLeftRunning(h: CrashHarness): Promise<void> {
  await h.until(async () => (await h.sql("SELECT count(*)::int AS n FROM async_result WHERE status = 'IN_PROGRESS'"))[0].n === 0, "every job to end", 60_000, 100);
}

/** After the cases: nothing left half-done in storage either. */
export async function expectNothingLeftHalfDone(h: CrashHarness): Promise<void> {
  await expectNoJobLeftRunning(h);
  // Unfinished writes of the dead process are removed by the cleanup once they are older than TEMP_FILE_MAX_AGE_SECONDS.
  await h.until(() => h.temporaries().length === 0, `temporaries to be removed (${JSON.stringify(h.temporaries())})`, 20_000, 100);
  // Every stored file belongs to a row: nothing half-written or unreferenced stays in storage.
  const files = h.stored("files");
  if (files.length > 0) {
    const known = new Set((await h.sql<{ id: string }>("SELECT id FROM file_manager_entity WHERE id = ANY($1)", [files])).map((r) => r.id));
    await h.until(() => h.stored("files").every((id) => known.has(id)), "unreferenced stored files to be removed", 20_000, 100);
  }
  const results = h.stored("file-results");
  if (results.length > 0) {
    const known = new Set((await h.sql<{ id: string }>("SELECT id FROM file_result WHERE id = ANY($1) AND ready", [results])).map((r) => r.id));
    expect(results.filter((id) => !known.has(id))).toEqual([]);
  }
}

/** A balanced general ledger: two lines per journal (cash against revenue), amounts in cents known to the test. */
export function balancedLedger(journals: number) {
  const lines = ["Journal ID,Effective Date,Account,Account Description,Debit,Credit,Memo"];
  let cents = 0;
  for (let i = 0; i < journals; i++) {
    const amount = ((i * 7919) % 99_991) + 1;
    cents += amount;
    const money = `${Math.floor(amount / 100)}.${String(amount % 100).padStart(2, "0")}`;
    const date = `${String((i % 12) + 1).padStart(2, "0")}/${String((i % 28) + 1).padStart(2, "0")}/2023`;
    lines.push(`JE${i},${date},10100,Cash,${money},,"Receipt ${i}, cash"`, `JE${i},${date},40100,Revenue,,${money},"Receipt ${i}, cash"`);
  }
  return { text: lines.join("\n") + "\n", lines: journals * 2, journals, debitCents: cents, creditCents: cents };
}
