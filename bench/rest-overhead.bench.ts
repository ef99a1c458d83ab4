// Issues 2 and 12: GET by id and POST /engagements/query through our REST layer (auth, REST ->
// in-process GraphQL -> services -> PostgreSQL), the same reads through POST /api/graphql, and a
// minimal Express + pg handler on the same database; each a separate process, load from another
// (autocannon, 10 connections), in alternating rounds.
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { print } from "graphql";
import pg from "pg";
import { benchDatabase, cpuMicros, load, machine, startProcess, startServer, today, writeSection, type Proc } from "./lib.js";
import { schema } from "../schema/index.js";
import { routeTable } from "../rest/routes.js";
import { compileRoutes } from "../rest/compile.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
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
// The documents the REST routes run, printed from the route table as the server compiles them.
const routes = compileRoutes(schema, routeTable);
const routeDocument = (method: string, path: string) => print(routes.find((r) => r.method === method && r.path === path)!.document);
const gqlById = JSON.stringify({ query: "query($id: ID!) { engagement(id: $id) { id name organizationId version } }", variables: { id } });
const gqlByIdAll = JSON.stringify({ query: routeDocument("GET", "/engagements/{engagementId}"), variables: { id } });
const gqlPage = JSON.stringify({ query: routeDocument("POST", "/engagements/query"), variables: { filter: JSON.parse(filter), size: 20 } });

for (const [url, init] of [
  [`${ours.url}/api/v1/engagements/${id}`, { headers: auth }],
  [`${ours.url}/api/v1/engagements/query?size=20`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: filter }],
  ...[gqlById, gqlByIdAll, gqlPage].map((body) => [`${ours.url}/api/graphql`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body }] as const),
] as const) {
  const probe = await fetch(url, init);
  const text = await probe.text();
  if (probe.status !== 200 || text.includes(`"errors"`)) throw new Error(`${url} answered ${probe.status}: ${text}`);
}

// Rounds alternate every line, so load from other work on the machine falls on all of them alike:
// compare the ratios within a round rather than absolute numbers across runs.
const lines: Array<{ key: string; name: string; server: Proc; url: string; method?: string; body?: string; headers?: Record<string, string> }> = [
  { key: "rawId", name: "raw GET /raw/engagements/{id}", server: raw, url: `${raw.url}/raw/engagements/${id}` },
  { key: "restId", name: "REST GET /api/v1/engagements/{id}", server: ours, url: `${ours.url}/api/v1/engagements/${id}`, headers: auth },
  { key: "gqlId", name: "GraphQL POST /api/graphql `engagement(id) { id name organizationId version }`", server: ours, url: `${ours.url}/api/graphql`, method: "POST", body: gqlById, headers: auth },
  { key: "gqlIdAll", name: "GraphQL POST /api/graphql, the REST route's document (every field)", server: ours, url: `${ours.url}/api/graphql`, method: "POST", body: gqlByIdAll, headers: auth },
  { key: "rawPage", name: "raw POST /raw/engagements/query?size=20", server: raw, url: `${raw.url}/raw/engagements/query?size=20`, method: "POST", body: filter },
  { key: "restPage", name: "REST POST /api/v1/engagements/query?size=20", server: ours, url: `${ours.url}/api/v1/engagements/query?size=20`, method: "POST", body: filter, headers: auth },
  { key: "gqlPage", name: "GraphQL POST /api/graphql, the REST route's document (page of 20)", server: ours, url: `${ours.url}/api/graphql`, method: "POST", body: gqlPage, headers: auth },
];
const loadBefore = loadavg()[0];
for (const line of lines) load(line.url, { method: line.method, body: line.body, headers: line.headers, seconds: 2 }); // warm-up: JIT, pools, token cache
const perRound: Array<Record<string, { rps: number; p99: number; cpu: number }>> = [];
for (let round = 0; round < ROUNDS; round++) {
  const measured: Record<string, { rps: number; p99: number; cpu: number }> = {};
  for (const line of lines) {
    const cpuBefore = cpuMicros(line.server.child.pid!);
    const result = load(line.url, { method: line.method, body: line.body, headers: line.headers, seconds: SECONDS });
    if (result.non2xx) throw new Error(`${line.name}: ${result.non2xx} non-2xx responses`);
    // The server's own CPU per request (the database's is not counted).
    const cpu = (cpuMicros(line.server.child.pid!) - cpuBefore) / result.requests;
    measured[line.key] = { rps: result.requestsPerSecond, p99: result.latencyP99, cpu };
    process.stdout.write(`round ${round + 1} ${line.name}: ${Math.round(result.requestsPerSecond)} req/s, ${Math.round(cpu)} µs CPU a request\n`);
  }
  perRound.push(measured);
}
const loadAfter = loadavg()[0];

// Above one runnable process per core, the servers wait for CPU: absolute figures then say little
// (and ratios less than usual, since the load varies within a round), so the section says so.
const overloaded = Math.max(loadBefore, loadAfter) > cpus().length;
const loadNote = overloaded
  ? ` **Measured on a loaded machine** (load average above its ${cpus().length} cores): the servers were starved of CPU, so requests per second are far below what this machine serves when quiet and even the ratios are only indicative; run again on a quiet machine before drawing conclusions.`
  : "";
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const rounds = Array.from({ length: ROUNDS }, (_, i) => `round ${i + 1}`);
const rateTable = lines
  .map(
    (line) =>
      `| ${line.name} | ${perRound.map((r) => Math.round(r[line.key].rps)).join(" | ")} | ${Math.round(median(perRound.map((r) => r[line.key].rps)))} | ${median(perRound.map((r) => r[line.key].p99))} | ${Math.round(median(perRound.map((r) => r[line.key].cpu)))} |`,
  )
  .join("\n");
const ratios: Array<[string, string, string, string]> = [
  ["REST by id / raw", "restId", "rawId", "at least 0.6"],
  ["GraphQL by id (4 fields) / REST by id", "gqlId", "restId", "at least 0.9"],
  ["GraphQL by id (REST's document) / REST by id", "gqlIdAll", "restId", "at least 0.9"],
  ["REST page of 20 / raw", "restPage", "rawPage", ""],
  ["GraphQL page of 20 (REST's document) / REST page of 20", "gqlPage", "restPage", "at least 0.9"],
];
const ratioTable = ratios
  .map(([name, a, b, target]) => {
    const each = perRound.map((r) => r[a].rps / r[b].rps);
    const byCpu = median(perRound.map((r) => r[b].cpu / r[a].cpu));
    return `| ${name} | ${each.map((x) => x.toFixed(2)).join(" | ")} | **${median(each).toFixed(2)}x** | ${byCpu.toFixed(2)}x | ${target} |`;
  })
  .join("\n");
await ours.stop();
await raw.stop();
await db.stop();
rmSync(DATA_DIR, { recursive: true, force: true });

writeSection(
  "rest-overhead",
  `## REST and GraphQL overhead (issues 2 and 12)

${today()}, ${machine()}. Load average (1 min) ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after.${loadNote} ${ROWS} engagements; autocannon, 10 connections, ${SECONDS} s per line after a 2 s warm-up, ${ROUNDS} rounds, each round running every line in turn; each server a separate process on the same PostgreSQL.
"REST" and "GraphQL" are the full path: bearer-token authentication, per-IP limit, the in-process GraphQL pipeline (compiled execution), service, PostgreSQL. "Raw" is a minimal Express + pg handler (bench/raw-handler.ts) with no authentication. Server CPU a request is the user + system time of the server process (not PostgreSQL's) over the requests of the run. The GraphQL page line sends the REST route's own document (every field of 20 engagements, with the same filter), so both do the same work; REST drops null fields from its bodies, GraphQL sends them.

Requests per second:

| Line | ${rounds.join(" | ")} | median | p99 ms (median) | server CPU µs a request (median) |
|---|${rounds.map(() => "---|").join("")}---|---|---|
${rateTable}

Ratios within each round (the machine is shared, so ratios are the figures to compare):

| Ratio of requests per second | ${rounds.join(" | ")} | median | inverse ratio of server CPU a request (median) | target |
|---|${rounds.map(() => "---|").join("")}---|---|---|
${ratioTable}

A repeated document is parsed, validated and compiled once (src/graphql/documents.ts; test/graphql-http.test.ts counts it).`,
);
process.stdout.write(`${ratioTable}\n`);
