// Where the CPU of one ingestion from the upload goes (not part of `npm run bench`): uploads a
// generated general ledger, creates the analysis source (targetWorkflowState COMPLETED) as soon as
// the upload answers, as bench/ingestion-api.bench.ts does, and reports per phase (the upload
// request, then each workflow state from its first progress event to the next state's) the wall
// time and the CPU time of the server's main thread, of its other threads and of PostgreSQL, and
// per PostgreSQL statement (sampled every SAMPLE_MS from pg_stat_activity) its backend's CPU. On a
// shared machine compare the CPU columns, which other load moves far less than the wall times.
// `node --import tsx bench/ingestion-steps.ts`; environment: BENCH_GL_LINES (1,000,000),
// BENCH_ROUNDS (2), BENCH_FILE (reuse a generated file), BENCH_SERVER_NODE_ARGS (e.g. "--cpu-prof
// --cpu-prof-dir=/tmp/prof"), BENCH_SAMPLE_MS (50), BENCH_TIMELINE=1 (from the upload's answer to the
// end, per sample: the cores the server and PostgreSQL kept busy and would have kept busy (demand:
// run + runnable), and the statements running; where demand stays under 2 a quiet machine idles),
// BENCH_TIMELINE_FROM (ms relative to the answer where the timeline starts, e.g. -600 for the
// upload's end), BENCH_MARK_TIMES=1 (each round's upload, answer and end in ms since the server's spawn, to place
// a `--trace-gc` line), BENCH_HEAP_SNAPSHOT_DIR (a heap snapshot of the server before each round;
// start it with BENCH_SERVER_NODE_ARGS="--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=<that dir>").
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { subscribe } from "../test/helpers/ws-client.js";
import { writeGeneralLedgerCsv } from "../test/helpers/gl-generator.js";
import { benchDatabase, benchServerEnv, completedGeneralLedger, postmasterPid, quiesce, restCaller, startServer, uploadLedgerFile } from "./lib.js";

const LINES = Number(process.env.BENCH_GL_LINES ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const SAMPLE_MS = Number(process.env.BENCH_SAMPLE_MS ?? 50);
const GENERAL_LEDGER_ANALYSIS_TYPE = "4b8360d00000000000000000";
const TICK_US = 1e6 / (Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100);

const db = await benchDatabase();
const dir = mkdtempSync(join(tmpdir(), "ingestion-steps-"));
const token = process.env.BENCH_TOKEN ?? `fap_bench_${randomBytes(8).toString("hex")}`;
const spawned = performance.now();
const server = await startServer(
  benchServerEnv(db.url, token, join(dir, "data")),
  process.env.BENCH_SERVER_NODE_ARGS?.split(" ").filter(Boolean),
);
const log = (line: string) => process.stdout.write(`${line}\n`);
const admin = new pg.Client({ connectionString: db.url });
await admin.connect();
const api = restCaller(server.url, token);
const postmaster = await postmasterPid(admin);
const serverPid = server.child.pid!;

const statOf = (path: string) => readFileSync(path, "utf8").split(") ")[1].split(" ");
/** Nanoseconds a thread has run and waited to run (runnable): what it would have used with a core of its own. */
const demandOf = (path: string) => {
  const [run, wait] = readFileSync(path, "utf8").split(" ");
  return Number(run) + Number(wait);
};
/** µs of CPU: [server main thread, server other threads, PostgreSQL (postmaster with reaped children, and live backends)]; then per backend; then µs of demand (run + runnable) of the main thread and of the live backends. */
function totals(): [number, number, number, Map<number, number>, number, number] {
  let main = 0;
  let others = 0;
  let mainDemand = 0;
  let pgDemand = 0;
  // The process's own counters include threads that have exited (a staging worker); the main thread's are its own.
  const process = statOf(`/proc/${serverPid}/stat`);
  const mainStat = statOf(`/proc/${serverPid}/task/${serverPid}/stat`);
  main = (Number(mainStat[11]) + Number(mainStat[12])) * TICK_US;
  others = (Number(process[11]) + Number(process[12])) * TICK_US - main;
  mainDemand = demandOf(`/proc/${serverPid}/task/${serverPid}/schedstat`) / 1000;
  const own = statOf(`/proc/${postmaster}/stat`);
  let pgUs = (Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14])) * TICK_US;
  const backends = new Map<number, number>();
  for (const pid of children) {
    try {
      const f = statOf(`/proc/${pid}/stat`);
      const us = (Number(f[11]) + Number(f[12])) * TICK_US;
      backends.set(pid, us);
      pgUs += us;
      pgDemand += demandOf(`/proc/${pid}/schedstat`) / 1000;
    } catch {
      children.delete(pid);
    }
  }
  return [main, others, pgUs, backends, mainDemand, pgDemand];
}
const children = new Set<number>();
function findChildren(): void {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || children.has(Number(entry))) continue;
    try {
      if (Number(statOf(`/proc/${entry}/stat`)[1]) === postmaster) children.add(Number(entry));
    } catch {
      // exited
    }
  }
}

interface Sample {
  t: number;
  cpu: [number, number, number];
  /** Demand of the main thread and of the live backends (µs), summed from their deltas (backends come and go). */
  demand: [number, number];
  /** Statements running at the previous sample (what the CPU since then is charged to). */
  running?: string[];
}

/** Samples the CPU counters and, per backend, what it runs, until stopped. */
function sampler() {
  const samples: Sample[] = [];
  const statements = new Map<string, number>();
  let last = new Map<number, number>();
  let lastQuery = new Map<number, string>();
  let lastDemand = new Map<number, number>();
  const demand: [number, number] = [0, 0];
  let lastMainDemand = -1;
  let stopped = false;
  let scans = 0;
  const loop = (async () => {
    const sampleClient = new pg.Client({ connectionString: db.url });
    await sampleClient.connect();
    try {
      while (!stopped) {
        if (scans++ % 10 === 0) findChildren();
        const [main, others, pgUs, backends, mainDemand] = totals();
        if (lastMainDemand >= 0) demand[0] += mainDemand - lastMainDemand;
        lastMainDemand = mainDemand;
        const nowDemand = new Map<number, number>();
        for (const pid of backends.keys()) {
          try {
            const d = demandOf(`/proc/${pid}/schedstat`) / 1000;
            nowDemand.set(pid, d);
            const before = lastDemand.get(pid);
            if (before !== undefined) demand[1] += d - before;
          } catch {
            // exited
          }
        }
        lastDemand = nowDemand;
        samples.push({ t: performance.now(), cpu: [main, others, pgUs], demand: [demand[0], demand[1]], running: [...lastQuery.values()] });
        // CPU since the last sample is charged to what the backend ran at the last sample.
        for (const [pid, us] of backends) {
          const before = last.get(pid);
          if (before !== undefined && us > before) {
            const what = lastQuery.get(pid) ?? "(idle or unknown)";
            statements.set(what, (statements.get(what) ?? 0) + (us - before));
          }
        }
        last = backends;
        const { rows } = await sampleClient.query<{ pid: number; q: string }>(
          "SELECT pid, coalesce(nullif(backend_type, 'client backend'), '') || regexp_replace(left(query, 90), '\\s+', ' ', 'g') AS q FROM pg_stat_activity WHERE (state = 'active' AND pid <> pg_backend_pid()) OR backend_type <> 'client backend'",
        );
        lastQuery = new Map(rows.map((r) => [r.pid, r.q]));
        await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
      }
    } finally {
      await sampleClient.end();
    }
  })();
  return {
    samples,
    statements,
    async stop() {
      stopped = true;
      await loop;
      findChildren();
      const [main, others, pgUs] = totals();
      samples.push({ t: performance.now(), cpu: [main, others, pgUs], demand: samples.at(-1)?.demand ?? [0, 0] });
    },
  };
}

/** CPU (ms) between two times, then demand (ms) of the main thread and of the backends, from the samples (each counter linearly interpolated). */
function cpuBetween(samples: Sample[], from: number, to: number): number[] {
  const at = (t: number): number[] => {
    const values = (s: Sample) => [...s.cpu, ...s.demand];
    const i = samples.findIndex((s) => s.t >= t);
    if (i < 0) return values(samples.at(-1)!);
    if (i === 0) return values(samples[0]);
    const a = values(samples[i - 1]);
    const b = values(samples[i]);
    const k = (t - samples[i - 1].t) / Math.max(1e-9, samples[i].t - samples[i - 1].t);
    return a.map((v, j) => v + k * (b[j] - v));
  };
  const x = at(from);
  const y = at(to);
  return x.map((v, j) => (y[j] - v) / 1000);
}

/** Asks the server (started with --heapsnapshot-signal=SIGUSR2 --diagnostic-dir=DIR) for a heap snapshot and waits until it is written. */
async function heapSnapshot(where: string, name: string): Promise<void> {
  const before = new Set(readdirSync(where));
  process.kill(serverPid, "SIGUSR2");
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const made = readdirSync(where).find((f) => !before.has(f) && f.endsWith(".heapsnapshot"));
    if (!made) continue;
    const size = () => statSync(join(where, made)).size;
    const a = size();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    if (size() === a && a > 0) {
      renameSync(join(where, made), join(where, `${name}.heapsnapshot`));
      return;
    }
  }
}

try {
  const file = process.env.BENCH_FILE ?? join(dir, "general-ledger.csv");
  if (!existsSync(file)) await writeGeneralLedgerCsv(file, LINES);
  const organization = await api("POST", "/organizations", { name: "Bench" });
  const engagement = await api("POST", "/engagements", { organizationId: organization.id, name: "Bench", accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" } });
  for (let round = 0; round < ROUNDS; round++) {
    const analysis = await api("POST", "/analyses", { engagementId: engagement.id, analysisTypeId: GENERAL_LEDGER_ANALYSIS_TYPE, name: `Round ${round}`, analysisPeriods: [{ startDate: "2023-01-01", endDate: "2023-12-31" }] });
    await quiesce(admin);
    if (process.env.BENCH_HEAP_SNAPSHOT_DIR) await heapSnapshot(process.env.BENCH_HEAP_SNAPSHOT_DIR, `before-round-${round + 1}`);
    const load = loadavg()[0];
    const sampling = sampler();
    await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS * 2));
    const started = performance.now();
    const fileId = await uploadLedgerFile(server.url, token, engagement.id, file);
    const uploaded = performance.now();
    const job = await api("POST", "/analysis-sources", completedGeneralLedger(engagement.id, analysis.id, analysis.analysisPeriods[0].id, fileId));
    const progress = subscribe<{ jobProgress: { status: string; error: string | null } }>(server.url, token, "subscription($id: ID!) { jobProgress(asyncResultId: $id) { status error } }", { id: job.id });
    const states = subscribe<{ analysisSourceProgress: { workflowState: string } }>(server.url, token, "subscription($id: ID!) { analysisSourceProgress(analysisSourceId: $id) { workflowState } }", { id: job.entityId });
    const end = await progress.next((e) => e.jobProgress.status !== "IN_PROGRESS", 1_800_000);
    const finished = performance.now();
    await progress.close();
    await states.close();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await sampling.stop();
    if (end.jobProgress.status !== "COMPLETE") throw new Error(`ingestion failed: ${JSON.stringify(end.jobProgress.error)}`);
    const marks: [string, number][] = [["upload", started], ["source request and first event", uploaded]];
    const seen = new Set<string>();
    states.events.forEach((e, i) => {
      const state = e.analysisSourceProgress.workflowState;
      if (!seen.has(state)) {
        seen.add(state);
        marks.push([state, states.times[i]]);
      }
    });
    marks.push(["(end)", finished]);
    if (process.env.BENCH_MARK_TIMES) log(`marks since the server's spawn: upload ${(started - spawned).toFixed(0)}, answered ${(uploaded - spawned).toFixed(0)}, finished ${(finished - spawned).toFixed(0)}`);
    log(`round ${round + 1}: ${Math.round(finished - started)} ms from the upload (load ${load.toFixed(1)} before, ${loadavg()[0].toFixed(1)} after)`);
    log(`  ${"phase".padEnd(34)} ${"wall ms".padStart(8)} ${"main".padStart(7)} ${"others".padStart(7)} ${"pg".padStart(7)}   demand: main, backends (run + runnable, ms)`);
    const sum = [0, 0, 0, 0, 0];
    for (let i = 0; i < marks.length - 1; i++) {
      const wall = marks[i + 1][1] - marks[i][1];
      const cpu = cpuBetween(sampling.samples, marks[i][1], marks[i + 1][1]);
      cpu.forEach((v, j) => (sum[j] += v));
      if (wall < 20 && cpu.every((v) => v < 20)) continue;
      log(`  ${marks[i][0].padEnd(34)} ${wall.toFixed(0).padStart(8)} ${cpu.slice(0, 3).map((v) => v.toFixed(0).padStart(7)).join(" ")}   ${cpu.slice(3).map((v) => v.toFixed(0).padStart(7)).join(" ")}`);
    }
    // The tail: from the end of the entries' CREATE TABLE AS (the first sample after the last one
    // that saw it running) to COMPLETED, and PARSING to COMPLETED.
    const lastSeen = sampling.samples.findLastIndex((x) => (x.running ?? []).some((q) => /^CREATE TABLE \S*entries/.test(q)));
    const entriesEnd = lastSeen >= 0 ? (sampling.samples[lastSeen + 1]?.t ?? finished) : NaN;
    const parsing = marks.find(([name]) => name === "PARSING")?.[1] ?? NaN;
    log(`  tail: entries' statement end -> COMPLETED ${(finished - entriesEnd).toFixed(0)} ms (ends at ${(entriesEnd - uploaded).toFixed(0)} after the answer); PARSING -> COMPLETED ${(finished - parsing).toFixed(0)} ms`);
    log(`  ${"total".padEnd(34)} ${(finished - started).toFixed(0).padStart(8)} ${sum.slice(0, 3).map((v) => v.toFixed(0).padStart(7)).join(" ")}   ${sum.slice(3).map((v) => v.toFixed(0).padStart(7)).join(" ")}`);
    if (process.env.BENCH_TIMELINE) {
      log("  timeline from the upload's answer (ms since; cores busy: server main, others, PostgreSQL; demand: main, backends; statements running):");
      const after = sampling.samples.filter((x) => x.t >= uploaded + Number(process.env.BENCH_TIMELINE_FROM ?? 0));
      for (let i = 1; i < after.length; i++) {
        const [a, b] = [after[i - 1], after[i]];
        const dt = (b.t - a.t) * 1000;
        const busy = b.cpu.map((v, j) => (v - a.cpu[j]) / dt);
        const want = b.demand.map((v, j) => (v - a.demand[j]) / dt);
        const what = (b.running ?? []).filter((q) => !q.startsWith("SELECT pid, coalesce")).map((q) => q.slice(0, 48)).join(" | ");
        log(`    ${(b.t - uploaded).toFixed(0).padStart(6)} ${busy.map((v) => v.toFixed(2)).join(" ")}  ${want.map((v) => v.toFixed(2)).join(" ")}  ${what}`);
      }
    }
    log("  PostgreSQL CPU by statement (ms, sampled):");
    for (const [what, us] of [...sampling.statements].sort((a, b) => b[1] - a[1]).slice(0, 16)) if (us >= 20_000) log(`    ${(us / 1000).toFixed(0).padStart(6)}  ${what}`);
  }
} finally {
  await admin.end();
  await server.stop().catch(() => undefined);
  await db.stop().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
}
