// Issue 2 benchmark: GET by id and POST /engagements/query through our REST layer (auth, REST ->
// in-process GraphQL -> services -> PostgreSQL) versus a minimal Express + pg handler on the same
// database, both as separate processes, load from a third (autocannon, 10 connections).
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import pg from "pg";
import { benchDatabase, load, machine, startProcess, startServer, today, writeSection } from "./lib.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROWS = 10_000;

const db = await benchDatabase();
const DATA_DIR = `/tmp/fap-bench-data-${process.pid}`;
const cleanup: Array<() => Promise<void>> = [() => db.stop(), async () => rmSync(DATA_DIR, { recursive: true, force: true })];
process.on("uncaughtException", async (error) => {
  process.stderr.write(`${error.stack}\n`);
  for (const stop of cleanup.reverse()) await stop().catch(() => undefined);
  process.exit(1);
});
const token = `fap_bench_${randomBytes(8).toString("hex")}`;
const ours = await startServer({ DATABASE_URL: db.url, BOOTSTRAP_TOKEN: token, LOG_LEVEL: "error", IP_RATE_LIMIT: "100000000", DATA_DIR: DATA_DIR });

const dbUrl = db.url;
cleanup.push(() => ours.stop());
const raw = await startProcess(["bench/raw-handler.ts"], { DATABASE_URL: dbUrl }, "raw ready");
cleanup.push(() => raw.stop());


const auth = { authorization: `Bearer ${token}` };
const organization = await (await fetch(`${ours.url}/api/v1/organizations`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ name: "Bench" }) })).json();
const seed = new pg.Client({ connectionString: dbUrl });
await seed.connect();
await seed.query(
  `INSERT INTO engagement (id, organization_id, name, library_id, fiscal_start_day, fiscal_start_month, frequency, audit_period_end_date)
   SELECT lpad(to_hex(g), 24, '0'), $1, 'Eng ' || g, '5cc9076887f13cb8a7a1926b', 1, 1, 'ANNUAL', DATE '2025-12-31' FROM generate_series(1, $2) g`,
  [organization.id, ROWS],
);
await seed.query("ANALYZE engagement");
await seed.end();
const id = (5000).toString(16).padStart(24, "0");
const filter = JSON.stringify({ organizationId: organization.id, name: { $iprefix: "eng 12" } });

for (const [url, init] of [
  [`${ours.url}/api/v1/engagements/${id}`, { headers: auth }],
  [`${ours.url}/api/v1/engagements/query?size=20`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: filter }],
] as const) {
  const probe = await fetch(url, init);
  if (probe.status !== 200) throw new Error(`${url} answered ${probe.status}: ${await probe.text()}`);
}

const results: Array<{ name: string; ours: number; raw: number; p99: [number, number] }> = [];
// Warm up both (JIT, connection pools, token cache), then measure.
load(`${ours.url}/api/v1/engagements/${id}`, { headers: auth, seconds: 2 });
load(`${raw.url}/raw/engagements/${id}`, { seconds: 2 });
{
  const a = load(`${ours.url}/api/v1/engagements/${id}`, { headers: auth, seconds: SECONDS });
  const b = load(`${raw.url}/raw/engagements/${id}`, { seconds: SECONDS });
  if (a.non2xx || b.non2xx) throw new Error(`non-2xx responses: ours ${a.non2xx}, raw ${b.non2xx}`);
  results.push({ name: "GET /engagements/{id}", ours: a.requestsPerSecond, raw: b.requestsPerSecond, p99: [a.latencyP99, b.latencyP99] });
}
{
  load(`${ours.url}/api/v1/engagements/query?size=20`, { method: "POST", body: filter, headers: auth, seconds: 2 });
  const a = load(`${ours.url}/api/v1/engagements/query?size=20`, { method: "POST", body: filter, headers: auth, seconds: SECONDS });
  const b = load(`${raw.url}/raw/engagements/query?size=20`, { method: "POST", body: filter, seconds: SECONDS });
  if (a.non2xx || b.non2xx) throw new Error(`non-2xx responses: ours ${a.non2xx}, raw ${b.non2xx}`);
  results.push({ name: "POST /engagements/query (filter, page of 20)", ours: a.requestsPerSecond, raw: b.requestsPerSecond, p99: [a.latencyP99, b.latencyP99] });
}

await ours.stop();
await raw.stop();
await db.stop();
rmSync(DATA_DIR, { recursive: true, force: true });

const table = results
  .map((r) => `| ${r.name} | ${Math.round(r.ours)} | ${Math.round(r.raw)} | **${(r.ours / r.raw).toFixed(2)}x** | ${r.p99[0]} / ${r.p99[1]} |`)
  .join("\n");
writeSection(
  "rest-overhead",
  `## REST layer overhead (issue 2)

${today()}, ${machine()}. ${ROWS} engagements; autocannon, 10 connections, ${SECONDS} s per run after a 2 s warm-up; each server a separate process on the same PostgreSQL.
"Ours" is the full path: bearer-token authentication, per-IP limit, REST route -> in-process GraphQL -> service -> PostgreSQL. "Raw" is a minimal Express + pg handler (bench/raw-handler.ts) with no authentication.

| Endpoint | ours req/s | raw req/s | ratio | p99 ms (ours / raw) |
|---|---|---|---|---|
${table}

Target: GET by id at least 0.6x the raw handler.`,
);
process.stdout.write(table + "\n");
