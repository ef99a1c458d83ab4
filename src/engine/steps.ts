import type pg from "pg";
import { inPgTransaction } from "../db/pg-transaction.js";
import type { RunPlan } from "./run-plan.js";
import { table } from "./sql.js";
import { isDurableTable } from "./tables.js";

/**
 * One step of a run: a group of control points (or a preparation) computed by a few set-based
 * statements. Steps are idempotent: each drops and recreates its own tables, so a run resumed
 * after a crash repeats the interrupted step and skips the ones it recorded as done.
 */
export interface EngineStep {
  name: string;
  /** Control points this step computes (for progress: "computed X of Y control points"). */
  points: string[];
  /** Relative duration, for the percentage. */
  cost: number;
  /**
   * Whether everything the step leaves for later steps is in logged tables (isDurableTable), so a
   * crash of PostgreSQL after it keeps its work; the other steps' UNLOGGED tables come back empty.
   */
  durable?: boolean;
  /**
   * The steps whose work this one reads; by default every step listed before it. A step naming
   * fewer runs beside the later ones it does not read as soon as these are done (runSteps), e.g.
   * the typeahead tables beside the transactions step's small statements, which leave a core idle.
   */
  after?: readonly string[];
  run(ctx: StepContext): Promise<void>;
}

/**
 * Runs the steps not in `done`, each once the steps it reads (`after`) are done: in list order, a
 * step with its own `after` beside those it does not read. Each step's `run` records it done (the
 * caller's); a resumed run passes what is done and the rest follows the same rule. Resolves when
 * every step ran; on a failure starts no other step, waits for the ones running (no statement
 * outlives the attempt), then rejects with the first failure.
 */
export async function runSteps(steps: readonly EngineStep[], done: readonly string[], run: (step: EngineStep) => Promise<void>): Promise<void> {
  const finished = new Set(done);
  const running = new Map<string, Promise<void>>();
  let failure: { error: unknown } | null = null;
  const reads = (step: EngineStep, index: number) => step.after ?? steps.slice(0, index).map((s) => s.name);
  for (;;) {
    if (!failure) {
      for (const [index, step] of steps.entries()) {
        if (finished.has(step.name) || running.has(step.name) || !reads(step, index).every((name) => finished.has(name))) continue;
        const settled = run(step).then(
          () => void finished.add(step.name),
          (error) => void (failure ??= { error }),
        );
        running.set(step.name, settled.finally(() => running.delete(step.name)));
      }
    }
    if (running.size === 0) break;
    await Promise.race(running.values());
  }
  if (failure) throw (failure as { error: unknown }).error;
  const left = steps.filter((s) => !finished.has(s.name)).map((s) => s.name);
  if (left.length > 0) throw new Error(`engine steps ${left.join(", ")} read steps that never run`);
}

/**
 * Runs independent tasks (each its own engine transaction) on `lanes` connections side by side, in
 * the order given (longest first keeps the lanes even): one statement keeps one core busy, and a
 * step of several leaves the other idle. After a failure no new task starts; the ones running are
 * awaited (no statement outlives the step) and the first error is thrown.
 */
export async function sideBySide(lanes: number, tasks: ReadonlyArray<() => Promise<void>>): Promise<void> {
  const queue = [...tasks];
  let failure: { error: unknown } | null = null;
  const lane = async () => {
    for (let task = queue.shift(); task && !failure; task = queue.shift()) {
      try {
        await task();
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(lanes, tasks.length) }, lane));
  if (failure) throw (failure as { error: unknown }).error;
}

export interface StepContext {
  pool: pg.Pool;
  plan: RunPlan;
  signal: AbortSignal;
  /** Reports control points finished inside the step (per statement). */
  pointsDone(names: string[]): void;
}

/** Facts a run derives once and later steps (and explain) read: thresholds, materiality, counts. */
export type RunFacts = Record<string, number | string | null>;

/**
 * Runs `work` in one transaction with the settings of the engine's big statements: memory enough
 * to hash and sort a million-row ledger in one pass, and no nested loops. The engine's tables have
 * no indexes, so a nested loop is only ever chosen on a row estimate gone wrong (joins on window
 * function outputs are estimated at one row), and then it is quadratic: 85 s instead of 0.1 s for
 * the exact flow pairs of 5,000 transactions.
 */
export function engineTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return inPgTransaction(pool, async (client) => {
    // A small ANALYZE sample: the engine's joins need row counts and distinct counts, not fine histograms (the default sample cost seconds on a 50,000-row table with array columns).
    // synchronous_commit off: the step's tables are nothing until the run records the step as done,
    // in a synchronous commit after this one, whose WAL flush covers this commit too; a crash
    // before that re-runs the step. (New logged tables are fsynced at commit either way.)
    await client.query("SET LOCAL work_mem = '256MB'; SET LOCAL statement_timeout = 0; SET LOCAL enable_nestloop = off; SET LOCAL default_statistics_target = 10; SET LOCAL synchronous_commit = off");
    return work(client);
  });
}

/** Tables the engine writes once and reads a few times: no autovacuum racing the next statement. */
export const WRITE_ONCE = "WITH (autovacuum_enabled = false)";

/**
 * DROP + CREATE TABLE AS in the caller's transaction (idempotent re-run), then ANALYZE for the
 * planner. Work tables (all but isDurableTable's) are UNLOGGED: no WAL and no fsync of the table
 * at commit, 170-450 ms per 46 MB table at 200,000 lines; a crash of PostgreSQL empties them.
 */
export async function createTableAs(client: pg.PoolClient, name: string, select: string, options: { analyze?: boolean } = {}): Promise<number> {
  await client.query(`DROP TABLE IF EXISTS ${table(name)}`);
  const durable = isDurableTable(name);
  // A logged table created in its transaction (wal_level=minimal) is fsynced at COMMIT, where
  // nothing else of the run's chain runs (the step after it reads it). With backend_flush_after
  // the pages the statement writes out go to the kernel's writeback as it goes, so the COMMIT
  // waits for the tail only (as the ingestion's WRITE_ONCE_SETTINGS). Set from the first logged
  // table on, for the rest of its transaction (the flows step INSERTs into its table after): work
  // tables are never synced, and writing them back early would be disk work for nothing.
  if (durable) await client.query("SET LOCAL backend_flush_after = '2MB'");
  const result = await client.query(`CREATE ${durable ? "" : "UNLOGGED "}TABLE ${table(name)} ${WRITE_ONCE} AS ${select}`);
  if (options.analyze !== false) await client.query(`ANALYZE ${table(name)}`);
  return result.rowCount ?? 0;
}

export async function writeFacts(client: pg.PoolClient, plan: RunPlan, facts: RunFacts): Promise<void> {
  const name = plan.tables.work("facts");
  await client.query(`CREATE TABLE IF NOT EXISTS ${table(name)} (key text PRIMARY KEY, value jsonb)`);
  for (const [key, value] of Object.entries(facts)) {
    await client.query(`INSERT INTO ${table(name)} (key, value) VALUES ($1, $2::jsonb) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, [key, JSON.stringify(value)]);
  }
}

export async function readFacts(pool: pg.Pool | pg.PoolClient, plan: RunPlan): Promise<RunFacts> {
  const name = plan.tables.work("facts");
  const exists = await pool.query<{ ok: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS ok`, [name]);
  if (!exists.rows[0].ok) return {};
  const { rows } = await pool.query<{ key: string; value: number | string | null }>(`SELECT key, value FROM ${table(name)}`);
  return Object.fromEntries(rows.map((r) => [r.key, r.value]));
}

/**
 * The steps of an interrupted run whose work is still there. A crash of PostgreSQL empties every
 * UNLOGGED table, the run's `alive` marker (one row, written before any step's work) among them:
 * then only the leading durable steps stand (GL: prepare and statistics), and the run recomputes
 * from the first step whose work was unlogged. A run whose steps are all done needs none of its
 * work tables any more (the publication reads only durable ones) and keeps them all. A restart
 * without a crash (the server killed, PostgreSQL shut down cleanly) keeps unlogged tables and the
 * marker: nothing is recomputed. Leaves the marker in place for this attempt.
 */
export async function survivingSteps(pool: pg.Pool, plan: RunPlan, steps: readonly EngineStep[], done: readonly string[]): Promise<string[]> {
  const marker = plan.tables.work("alive");
  const exists = (await pool.query<{ ok: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS ok`, [marker])).rows[0].ok;
  const alive = exists && (await pool.query<{ ok: boolean }>(`SELECT EXISTS (SELECT FROM ${table(marker)}) AS ok`)).rows[0].ok;
  let surviving = [...done];
  if (!alive && !steps.every((s) => done.includes(s.name))) {
    surviving = [];
    for (const step of steps) {
      if (!step.durable || !done.includes(step.name)) break;
      surviving.push(step.name);
    }
  }
  await pool.query(`CREATE UNLOGGED TABLE IF NOT EXISTS ${table(marker)} (alive boolean)`);
  await pool.query(`INSERT INTO ${table(marker)} SELECT true WHERE NOT EXISTS (SELECT FROM ${table(marker)})`);
  return surviving;
}
