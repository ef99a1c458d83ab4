// Issue 16 point 3: 50 concurrent clients mixing reads, queries, creates, read-modify-write updates
// (some with stale versions) and small uploads for 60 s, first against one server process, then
// against two processes sharing one PostgreSQL and one Redis. Only 2xx, 404, 409 and 429 may come
// back, and every acknowledged update must be in the final state. p50/p99 per route go to
// docs/benchmarks.md. The load runs in this process, the servers in their own.
import { randomBytes } from "node:crypto";
import { loadavg } from "node:os";
import { rmSync } from "node:fs";
import { benchDatabase, machine, startServer, today, writeSection, type Proc } from "./lib.js";
import { prepareLoadMix, routeTable, runLoadMix, type LoadMixResult } from "./load-mix.js";
import { startRedis } from "../test/helpers/redis.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 50);

const db = await benchDatabase();
const redis = await startRedis();
const token = `fap_bench_${randomBytes(8).toString("hex")}`;
const dirs: string[] = [];
const procs: Proc[] = [];
async function cleanup() {
  for (const proc of procs) await proc.stop().catch(() => undefined);
  await redis.stop();
  await db.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}
process.on("uncaughtException", async (error) => {
  process.stderr.write(`${error.stack}\n`);
  await cleanup();
  process.exit(1);
});

// The per-address limit would turn most of this load (one client address) into 429s; raised so
// the routes themselves are measured. Failed authentications never happen here.
const env = (extra: Record<string, string>) => {
  const dataDir = `/tmp/fap-load-${process.pid}`;
  dirs.push(dataDir);
  return { DATABASE_URL: db.url, BOOTSTRAP_TOKEN: token, LOG_LEVEL: "error", IP_RATE_LIMIT: "100000000", DATA_DIR: dataDir, ...extra };
};

async function engagement(url: string): Promise<string> {
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const organization = await (await fetch(`${url}/api/v1/organizations`, { method: "POST", headers, body: JSON.stringify({ name: "Load" }) })).json();
  const created = await fetch(`${url}/api/v1/engagements`, { method: "POST", headers, body: JSON.stringify({ organizationId: organization.id, name: "Load", accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" } }) });
  return ((await created.json()) as { id: string }).id;
}

async function run(label: string, urls: string[]): Promise<{ label: string; result: LoadMixResult; load: string }> {
  const engagementId = await engagement(urls[0]);
  const prepared = await prepareLoadMix(urls[0], token);
  // Warm-up (JIT, pools, token cache), not measured.
  await runLoadMix({ urls, token, engagementId, clients: CLIENTS, seconds: 3, ...prepared });
  const fresh = await prepareLoadMix(urls[0], token, 8, 0);
  const result = await runLoadMix({ urls, token, engagementId, clients: CLIENTS, seconds: SECONDS, contended: fresh.contended, readable: prepared.readable });
  const load = loadavg().map((l) => l.toFixed(1)).join(", ");
  process.stdout.write(`${label}: ${result.requests} requests, ${result.perSecond.toFixed(0)}/s, violations ${result.violations.length}, lost updates ${result.updates.lost}\n${routeTable(result)}\n`);
  if (result.violations.length > 0) process.stdout.write(`violations: ${JSON.stringify(result.violations.slice(0, 10))}\n`);
  return { label, result, load };
}

const single = await startServer(env({}));
procs.push(single);
const one = await run("one process", [single.url]);
await single.stop();
procs.splice(procs.indexOf(single), 1);

const shared = env({ REDIS_URL: redis.url, TENANT_ID: `load${process.pid}` });
const [a, b] = await Promise.all([startServer(shared), startServer(shared)]);
procs.push(a, b);
const two = await run("two processes, one PostgreSQL and one Redis", [a.url, b.url]);

const section = (r: { label: string; result: LoadMixResult; load: string }) => `
**${r.label}**: ${r.result.requests} requests in ${r.result.seconds.toFixed(0)} s (${r.result.perSecond.toFixed(0)}/s); answers other than 2xx/404/409/429: ${r.result.violations.length}; acknowledged updates ${r.result.updates.succeeded}, refused as stale (409) ${r.result.updates.conflicts}, lost ${r.result.updates.lost}. Load average at the end: ${r.load}.

${routeTable(r.result)}
`;

writeSection(
  "load-mix",
  `## Mixed load: ${CLIENTS} clients for ${SECONDS} s (\`bench/load.bench.ts\`)

${today()}, ${machine()}. Each client loops over: GET an organization (35 %, a tenth unknown ids: 404), POST /organizations/query (20 %), create an organization (10 %), read-modify-write of one of 8 shared organizations (27 %, a tenth with a stale version: 409), a 16 KiB multipart upload (8 %). The servers run as \`npm start\` does (compiled), on embedded PostgreSQL; the load comes from a separate process; \`IP_RATE_LIMIT\` is raised so the routes rather than the per-address limit are measured. "Lost" counts acknowledged updates missing from the final state (it must be 0). Latencies include the client's own queueing at 50 concurrent requests on a 2-core machine shared with the servers and PostgreSQL.
${section(one)}
${section(two)}`,
);

await cleanup();
const failed = [one, two].some((r) => r.result.violations.length > 0 || r.result.updates.lost > 0);
process.exit(failed ? 1 : 0);
