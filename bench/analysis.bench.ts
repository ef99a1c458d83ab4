// Issue 14 benchmark, through the REST API: the generated 1M-line general ledger is ingested once,
// its 400 accounts mapped and verified, then `POST /analyses/{id}/run` is timed until its
// ANALYSIS_RUN async result is COMPLETE (every control point, the scores, the monetary flows, the
// result tables and their data table definitions), against a bare COPY of the same file into a
// 13-text-column table in the same run, with the server's peak RSS. Then filtered pages of the
// result tables (by risk level, by control point, by flow) are timed one request at a time.
// Environment: BENCH_GL_LINES (default 1,000,000), BENCH_ROUNDS (default 2), BENCH_QUERIES (default 30 per filter).
import { randomBytes } from "node:crypto";
import { createReadStream, mkdtempSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { subscribe } from "../test/helpers/ws-client.js";
import { writeGeneralLedgerCsv } from "../test/helpers/gl-generator.js";
import { benchDatabase, benchServerEnv, completedGeneralLedger, machine, quiesce, restCaller, rssSampler, startServer, today, uploadLedgerFile, writeSection } from "./lib.js";

const LINES = Number(process.env.BENCH_GL_LINES ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 30);
const GENERAL_LEDGER_ANALYSIS_TYPE = "4b8360d00000000000000000";
/** The generator's account descriptions end in one of these words; each maps to a MAC code. */
const MAC_BY_KIND: Record<string, string> = { Cash: "1.1.1.2", Receivables: "1.1.2.1", Inventory: "1.1.3.1", Payables: "2.1.1.1", Revenue: "4.1.1.1", Expenses: "5.2.4.1" };

const db = await benchDatabase();
const dir = mkdtempSync(join(tmpdir(), "analysis-bench-"));
const token = `fap_bench_${randomBytes(8).toString("hex")}`;
const server = await startServer(benchServerEnv(db.url, token, join(dir, "data")));
const cleanup = async () => {
  await server.stop().catch(() => undefined);
  await db.stop().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
};
process.on("uncaughtException", async (error) => {
  process.stderr.write(`${error.stack}\n`);
  await cleanup();
  process.exit(1);
});

const api = restCaller(server.url, token);
async function withDatabase<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function bareCopy(file: string): Promise<number> {
  return withDatabase(async (client) => {
    await client.query("DROP TABLE IF EXISTS bench_bare");
    const started = performance.now();
    await client.query("BEGIN");
    await client.query(`CREATE TABLE bench_bare (${Array.from({ length: 13 }, (_, i) => `b${i} text`).join(", ")})`);
    await pipeline(createReadStream(file, { highWaterMark: 1 << 20 }), client.query(copyFrom("COPY bench_bare FROM STDIN WITH (FORMAT csv, HEADER)")));
    await client.query("COMMIT");
    const ms = performance.now() - started;
    await client.query("DROP TABLE bench_bare");
    return ms;
  });
}

async function awaitJob(id: string): Promise<void> {
  const progress = subscribe<{ jobProgress: { status: string; error: string | null } }>(server.url, token, "subscription($id: ID!) { jobProgress(asyncResultId: $id) { status error } }", { id });
  try {
    const end = await progress.next((e) => e.jobProgress.status !== "IN_PROGRESS", 1_800_000);
    if (end.jobProgress.status !== "COMPLETE") throw new Error(`job ${id} failed: ${JSON.stringify(end.jobProgress.error)}`);
  } finally {
    await progress.close();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))];

try {
  const file = join(dir, "general-ledger.csv");
  const generated = await writeGeneralLedgerCsv(file, LINES);
  const megabytes = statSync(file).size / 2 ** 20;
  process.stdout.write(`file: ${LINES} lines, ${generated.transactions} transactions, ${megabytes.toFixed(0)} MiB\n`);
  const organization = await api("POST", "/organizations", { name: "Bench" });
  const engagement = await api("POST", "/engagements", { organizationId: organization.id, name: "Bench", accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" } });
  const fileId = await uploadLedgerFile(server.url, token, engagement.id, file);
  const analysis = await api("POST", "/analyses", { engagementId: engagement.id, analysisTypeId: GENERAL_LEDGER_ANALYSIS_TYPE, name: "Bench", analysisPeriods: [{ startDate: "2023-01-01", endDate: "2023-12-31" }] });
  const source = await api("POST", "/analysis-sources", completedGeneralLedger(engagement.id, analysis.id, analysis.analysisPeriods[0].id, fileId));
  await awaitJob(source.id);
  const mappings = await api("POST", "/account-mappings/query?size=2000", { engagementId: engagement.id });
  for (const m of mappings.content) {
    const kind = Object.keys(MAC_BY_KIND).find((k) => String(m.accountDescription ?? "").endsWith(k)) ?? "Expenses";
    await api("PUT", `/account-mappings/${m.id}`, { code: MAC_BY_KIND[kind], version: m.version });
  }
  await api("POST", "/account-mappings/verify", { engagementId: engagement.id });
  process.stdout.write(`ingested and mapped ${mappings.content.length} accounts\n`);

  const rss = rssSampler(server.child.pid!);
  const loadBefore = loadavg()[0];
  const bare: number[] = [];
  const runs: number[] = [];
  let peakMb = 0;
  let resultId = "";
  for (let round = 0; round < ROUNDS; round++) {
    const runOnce = async () => {
      await withDatabase(quiesce);
      rss.reset();
      const started = performance.now();
      const job = await api("POST", `/analyses/${analysis.id}/run`, {});
      await awaitJob(job.id);
      const ms = performance.now() - started;
      runs.push(ms);
      resultId = job.entityId;
      peakMb = Math.max(peakMb, rss.peakMb());
      process.stdout.write(`round ${round + 1} analysis run: ${Math.round(ms)} ms, server peak RSS ${rss.peakMb().toFixed(0)} MB\n`);
    };
    const copyOnce = async () => {
      await withDatabase(quiesce);
      const ms = await bareCopy(file);
      bare.push(ms);
      process.stdout.write(`round ${round + 1} bare COPY: ${Math.round(ms)} ms\n`);
    };
    if (round % 2 === 0) {
      await copyOnce();
      await runOnce();
    } else {
      await runOnce();
      await copyOnce();
    }
  }
  const loadAfter = loadavg()[0];
  rss.stop();
  const steps = await withDatabase(async (client) => (await client.query("SELECT summary FROM analysis_result WHERE id = $1", [resultId])).rows[0].summary);

  // The run builds the result tables' indexes before it says COMPLETE; any job still running is waited for.
  const indexStarted = performance.now();
  await withDatabase(quiesce);
  const indexMs = performance.now() - indexStarted;
  const tables = await api("POST", "/data-tables/query?include-unstable-schemas=true", { analysisResultId: resultId });
  const table = (name: string) => tables.content.find((t: { logicalName: string }) => t.logicalName === name);
  const lines = table("gl_journal_lines");
  const tx = table("gl_journal_tx");
  const flows = table("flows_compact");
  const [pair] = (await api("POST", `/data-tables/${flows.id}/data`, { pageSize: 1, query: { flow_type: "SIMPLE" } })).content;
  const levels: Record<string, number> = steps.entries.byRiskLevel;
  const rareLevel = (["HIGH", "MEDIUM", "LOW"] as const).find((l) => levels[l] > 0 && levels[l] < steps.entries.total / 2) ?? "LOW";
  const shapes: Array<{ label: string; tableId: string; body: Record<string, unknown> }> = [
    { label: `entries, risk_level ${rareLevel}`, tableId: lines.id, body: { query: { risk_level: rareLevel } } },
    { label: "entries, risk >= 500, by risk descending", tableId: lines.id, body: { query: { risk: { $gte: 500 } }, sort: { field: "risk", direction: "DESC" } } },
    { label: "entries, cp_failed $flags weekend post", tableId: lines.id, body: { query: { cp_failed: { $flags: { journal_entry_weekend_post: true } } } } },
    { label: "entries, cp_failed_journal_entry_high_dollar_value (0.5% of entries)", tableId: lines.id, body: { query: { cp_failed_journal_entry_high_dollar_value: true } } },
    { label: "transactions, cp_failed $flags manual entry", tableId: tx.id, body: { query: { cp_failed: { $flags: { journal_entry_manual_entry: true } } } } },
    { label: `transactions, risk_level ${rareLevel}`, tableId: tx.id, body: { query: { risk_level: rareLevel } } },
    { label: "flows, flow_type COMPLEX", tableId: flows.id, body: { query: { flow_type: "COMPLEX" } } },
    { label: "flows, one debit and credit account", tableId: flows.id, body: { query: { debit_account: pair.debit_account, credit_account: pair.credit_account } } },
  ];
  const timings = shapes.map(() => [] as number[]);
  for (let i = 0; i < QUERIES * shapes.length; i++) {
    const k = i % shapes.length;
    const started = performance.now();
    await api("POST", `/data-tables/${shapes[k].tableId}/data`, { ...shapes[k].body, pageSize: 100, page: Math.floor(i / shapes.length) % 3 });
    timings[k].push(performance.now() - started);
  }
  const all = timings.flat();
  const ratio = median(runs) / median(bare);
  const perRound = runs.map((ms, i) => ms / bare[i]);
  writeSection(
    "analysis",
    `## Analysis runs (issue 14)

${today()}, ${machine()}. \`npm run bench analysis\`. ${LINES.toLocaleString("en-US")}-line general ledger CSV (${megabytes.toFixed(0)} MiB, ${generated.transactions.toLocaleString("en-US")} transactions, 400 accounts, test/helpers/gl-generator.ts) ingested once, its accounts mapped to MAC codes and verified; server a separate process (\`npm start\` with DATABASE_URL) on an embedded PostgreSQL on the same machine; median of ${ROUNDS} rounds, bare COPY and run alternating, each after a quiet machine (no job, no autovacuum, a checkpoint). Load average ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after.

"Run" is \`POST /analyses/{id}/run\` until its ANALYSIS_RUN async result is COMPLETE, as \`jobProgress\` tells it: the 35 for-profit control points, per-transaction and per-entry scores in 4 risk groups, ${steps.flows.total.toLocaleString("en-US")} monetary flows, the result tables (entries, transactions, flows, typeahead) and their data table definitions. The run includes building the indexes the result pages need (before COMPLETE; ${Math.round(indexMs)} ms of other jobs remained after the last round); pages are timed after it. "Bare COPY" is \`COPY ... FROM STDIN (FORMAT csv, HEADER)\` of the same file into 13 text columns.

| Measure | value |
|---|---|
| bare COPY, median ms | ${Math.round(median(bare))} |
| analysis run to COMPLETE, median ms | ${Math.round(median(runs))} |
| **ratio run / bare COPY** | **${ratio.toFixed(2)}x** (target at most 15x); per round ${perRound.map((r) => `${r.toFixed(2)}x`).join(", ")} |
| server peak RSS during runs | **${peakMb.toFixed(0)} MB** (target under 512 MB) |
| filtered result page (100 rows), p50 ms | ${percentile(all, 50).toFixed(1)} |
| **filtered result page (100 rows), p95 ms** | **${percentile(all, 95).toFixed(1)}** (target under 100 ms) |

Entries by risk level: ${["HIGH", "MEDIUM", "LOW", "UNSCORED"].map((l) => `${l} ${(levels[l] ?? 0).toLocaleString("en-US")}`).join(", ")}.

Page shapes, ${QUERIES} requests each through \`POST /data-tables/{id}/data\` (pages 0 to 2, default order unless stated):

| Filter | p50 ms | p95 ms |
|---|---|---|
${shapes.map((s, i) => `| ${s.label}: \`${JSON.stringify(s.body.query)}\` | ${percentile(timings[i], 50).toFixed(1)} | ${percentile(timings[i], 95).toFixed(1)} |`).join("\n")}`,
  );
} finally {
  await cleanup();
}
