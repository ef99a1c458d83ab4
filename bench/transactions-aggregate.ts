// The transactions table built from the aggregate summed while staging against the SQL grouping of
// the staged rows (not part of `npm run bench`): stages a generated general ledger as an upload does
// (worker thread, typed shadows), builds both tables from the same staging table, reports each
// statement's wall time and its backend's CPU (from /proc), and the md5 of both tables in row_no
// order. `node --import tsx bench/transactions-aggregate.ts`; BENCH_GL_LINES (1,000,000),
// BENCH_FILE (reuse a generated file), BENCH_ROUNDS (2).
import { existsSync, mkdtempSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { writeGeneralLedgerCsv } from "../test/helpers/gl-generator.js";
import { GENERAL_LEDGER_COLUMNS } from "../test/ingestion/definitions.js";
import { applyColumnMappings } from "../src/ingestion/mapping/apply.js";
import { buildParsePlan } from "../src/ingestion/sql/parse-plan.js";
import { stageFile } from "../src/ingestion/staging/stage.js";
import { buildTransactionsFromAggregate, buildTransactionsFromStaging } from "../src/ingestion/transactions/transactions-table.js";
import { migrate } from "../src/db/migrate.js";
import { benchDatabase, cpuMicros } from "./lib.js";

const LINES = Number(process.env.BENCH_GL_LINES ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const db = await benchDatabase();
const pool = new pg.Pool({ connectionString: db.url, max: 4 });
const log = (line: string) => process.stdout.write(`${line}\n`);

/** Wall ms and backend CPU ms of `work` run on a connection of its own (the pool's clients are reused: the first idle one runs it). */
async function timed<T>(work: () => Promise<T>): Promise<{ value: T; wall: number; cpu: number }> {
  const pids = (await pool.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'")).rows.map((r) => r.pid);
  const before = new Map(pids.map((p) => [p, cpuMicros(p)]));
  const started = performance.now();
  const value = await work();
  const wall = performance.now() - started;
  let cpu = 0;
  const after = (await pool.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'")).rows.map((r) => r.pid);
  for (const p of after) cpu += cpuMicros(p) - (before.get(p) ?? 0);
  return { value, wall, cpu: cpu / 1000 };
}

try {
  await migrate(pool);
  const file = process.env.BENCH_FILE ?? join(mkdtempSync(join(tmpdir(), "tx-aggregate-")), "gl.csv");
  if (!existsSync(file)) await writeGeneralLedgerCsv(file, LINES);
  const staging = "ingest.stg_bench";
  const staged = await stageFile(pool, file, { table: staging, parallel: true });
  const { applied } = applyColumnMappings({ fileInfo: staged.fileInfo, columnDefinitions: GENERAL_LEDGER_COLUMNS, virtualColumnData: [] });
  const plan = buildParsePlan(staged.fileInfo, applied, GENERAL_LEDGER_COLUMNS, [], staged.columns);
  if (!staged.aggregate) throw new Error("nothing was aggregated while staging");
  const selection = { type: "COMBINATION" as const, columnSelection: [staged.aggregate.key] };
  log(`${staged.rowCount} rows staged, ${staged.aggregate.transactions} transactions aggregated; load ${loadavg()[0].toFixed(1)}`);
  // The staging table's pages are read from the OS once by whichever statement comes first: read it once before either.
  await pool.query(`SELECT count(*) FROM ${staging}`);
  for (let round = 0; round < ROUNDS; round++) {
    const sql = await timed(() => buildTransactionsFromStaging(pool, { staging, target: "ingest.tx_sql", plan, transactionIdSelection: selection }));
    const agg = await timed(() => buildTransactionsFromAggregate(pool, { staging, target: "ingest.tx_agg", plan, aggregate: staged.aggregate! }));
    log(`round ${round + 1} (load ${loadavg()[0].toFixed(1)}): grouped in SQL ${sql.wall.toFixed(0)} ms wall, ${sql.cpu.toFixed(0)} ms backend CPU; from the aggregate ${agg.wall.toFixed(0)} ms wall, ${agg.cpu.toFixed(0)} ms CPU`);
  }
  const md5 = async (table: string) => (await pool.query(`SELECT md5(string_agg(t::text, E'\\n' ORDER BY row_no)) AS h, count(*) AS n FROM ${table} t`)).rows[0];
  log(`md5 in row_no order: grouped in SQL ${JSON.stringify(await md5("ingest.tx_sql"))}, from the aggregate ${JSON.stringify(await md5("ingest.tx_agg"))}`);
} finally {
  await pool.end();
  await db.stop();
}
