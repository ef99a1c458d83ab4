// CPU cost of one upload (POST /file-manager/import of a generated general ledger), for comparing
// changes to the upload path on a shared machine, where wall times swing with other load: per
// round, the wall time of the request, the CPU time of the server process and of PostgreSQL (the
// postmaster and all its backends) over the request, and the same for a bare COPY of the file.
// Not part of `npm run bench` (no section of docs/benchmarks.md): `node --import tsx bench/upload-cpu.ts`.
// Environment: BENCH_GL_LINES (1,000,000), BENCH_ROUNDS (3), BENCH_FILE (a path to reuse the
// generated file), BENCH_SERVER_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"),
// BENCH_FILE_NAME (the name it is uploaded as: a .pdf is stored without being read),
// BENCH_FILE_INFO_OUT (writes the last upload's file info as JSON, to compare two versions),
// BENCH_PERF (a path prefix: `perf record -a` of the whole machine during each upload).
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createReadStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { writeGeneralLedgerCsv } from "../test/helpers/gl-generator.js";
import { Readable } from "node:stream";
import { benchDatabase, benchServerEnv, cpuMicros, postmasterPid, quiesce, restCaller, startServer, uploadLedgerFile } from "./lib.js";

const LINES = Number(process.env.BENCH_GL_LINES ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const db = await benchDatabase();
const dir = mkdtempSync(join(tmpdir(), "upload-cpu-"));
const token = process.env.BENCH_TOKEN ?? `fap_bench_${randomBytes(8).toString("hex")}`;
const serverEnv = benchServerEnv(db.url, token, join(dir, "data"));
const server = await startServer(serverEnv, process.env.BENCH_SERVER_NODE_ARGS?.split(" ").filter(Boolean));
const log = (line: string) => process.stdout.write(`${line}\n`);

const admin = new pg.Client({ connectionString: db.url });
await admin.connect();
const api = restCaller(server.url, token);
const postmaster = await postmasterPid(admin);

/** CPU of PostgreSQL so far (µs): the postmaster with its reaped children, and every live backend. */
function pgCpu(): number {
  const stat = (pid: number) => readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  const own = stat(postmaster);
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = stat(Number(entry));
      if (Number(fields[1]) === postmaster) ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // exited meanwhile
    }
  }
  return ticks * 10_000;
}

/** CPU (µs) per thread of a process: its main thread and the others by name (V8 helpers, libuv pool, workers). */
function threadCpu(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const fields = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8").split(") ")[1].split(" ");
      const name = Number(tid) === pid ? "main" : `${readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim()}#${tid}`;
      out.set(name, (Number(fields[11]) + Number(fields[12])) * 10_000);
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/**
 * BENCH_SAMPLE_MS: the upload's threads sampled every that many ms from /proc schedstat (ns of
 * running and of waiting for a core; the rest of the interval the thread slept, i.e. waited for
 * work): the server's main thread, its busiest other thread (the staging worker) and PostgreSQL's
 * busiest backend (the COPY). Sleeping is what a loaded machine does not inflate: it shows where
 * the pipeline's threads waited on each other (start, end, stalls). Printed per sample (ms run /
 * queued) and summed.
 */
function sampler(pid: number, every: number) {
  const rows: string[] = [];
  const sched = (path: string) => {
    try {
      const [run, queue] = readFileSync(path, "utf8").split(" ").map(Number);
      return { run: run / 1e6, queue: queue / 1e6 };
    } catch {
      return null;
    }
  };
  type Snap = { t: number; threads: Map<string, { run: number; queue: number }> };
  const snap = (): Snap => {
    const threads = new Map<string, { run: number; queue: number }>();
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const s = sched(`/proc/${pid}/task/${tid}/schedstat`);
      if (s) threads.set(Number(tid) === pid ? "main" : `t${tid}`, s);
    }
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const f = readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1].split(" ");
        if (Number(f[1]) !== postmaster) continue;
        const s = sched(`/proc/${entry}/schedstat`);
        if (s) threads.set(`pg${entry}`, s);
      } catch {
        // exited
      }
    }
    return { t: performance.now(), threads };
  };
  const snaps: Snap[] = [snap()];
  const timer = setInterval(() => snaps.push(snap()), every);
  return {
    stop() {
      clearInterval(timer);
      snaps.push(snap());
      const first = snaps[0], last = snaps.at(-1)!;
      const total = (name: string) => (last.threads.get(name)?.run ?? 0) - (first.threads.get(name)?.run ?? last.threads.get(name)?.run ?? 0);
      const names = [...last.threads.keys()];
      const worker = names.filter((n) => n.startsWith("t")).sort((x, y) => total(y) - total(x))[0];
      const backend = names.filter((n) => n.startsWith("pg")).sort((x, y) => total(y) - total(x))[0];
      const sums = { main: [0, 0, 0], worker: [0, 0, 0], pg: [0, 0, 0] } as Record<string, number[]>;
      for (let i = 1; i < snaps.length; i++) {
        const dt = snaps[i].t - snaps[i - 1].t;
        const cells = (
          [
            ["main", "main"],
            ["worker", worker],
            ["pg", backend],
          ] as const
        ).map(([label, name]) => {
          const a = snaps[i - 1].threads.get(name) ?? snaps[i].threads.get(name), b = snaps[i].threads.get(name);
          const run = a && b ? b.run - a.run : 0, queue = a && b ? b.queue - a.queue : 0;
          const sleep = Math.max(0, dt - run - queue);
          sums[label][0] += run;
          sums[label][1] += queue;
          sums[label][2] += sleep;
          return `${label} ${run.toFixed(0).padStart(3)}/${queue.toFixed(0).padStart(3)}`;
        });
        rows.push(`${(snaps[i].t - first.t).toFixed(0).padStart(6)} ${cells.join("  ")}`);
      }
      rows.push(`sum (ms run/queued/slept): ${Object.entries(sums).map(([k, [r, q, s]]) => `${k} ${r.toFixed(0)}/${q.toFixed(0)}/${s.toFixed(0)}`).join(", ")}`);
      return rows;
    },
  };
}

async function measure(work: () => Promise<unknown>) {
  const serverBefore = cpuMicros(server.child.pid!);
  const threadsBefore = threadCpu(server.child.pid!);
  const pgBefore = pgCpu();
  const load = loadavg()[0];
  const client = process.cpuUsage();
  const started = performance.now();
  const result = await work();
  const ms = performance.now() - started;
  const clientUsage = process.cpuUsage(client);
  // A backend that just exited is counted once its parent has reaped it.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const threads = new Map<string, number>();
  for (const [name, us] of threadCpu(server.child.pid!)) {
    const delta = us - (threadsBefore.get(name) ?? 0);
    const group = name === "main" ? "main" : name.split("#")[0];
    if (delta > 0) threads.set(group, (threads.get(group) ?? 0) + delta / 1000);
  }
  const serverMs = (cpuMicros(server.child.pid!) - serverBefore) / 1000;
  // Threads that ended meanwhile (the staging worker): the process's counters keep their time.
  const exited = serverMs - [...threads.values()].reduce((a, b) => a + b, 0);
  if (exited > 20) threads.set("exited", exited);
  return { result, ms, serverMs, pgMs: (pgCpu() - pgBefore) / 1000, load, threads, clientMs: (clientUsage.user + clientUsage.system) / 1000 };
}

/** POST /file-manager/import of the file; notes when the last byte of the body was handed to the socket. */
async function upload(engagementId: string, path: string, fileName = "general-ledger.csv"): Promise<{ id: string; bodySentMs: number }> {
  const boundary = `----bench${randomBytes(8).toString("hex")}`;
  const started = performance.now();
  let bodySentMs = 0;
  async function* body() {
    yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="fileManagerFile"\r\nContent-Type: application/json\r\n\r\n${JSON.stringify({ engagementId })}\r\n`);
    yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: text/csv\r\n\r\n`);
    yield* createReadStream(path, { highWaterMark: 1 << 20 });
    yield Buffer.from(`\r\n--${boundary}--\r\n`);
    bodySentMs = performance.now() - started;
  }
  const response = await fetch(`${server.url}/api/v1/file-manager/import`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": `multipart/form-data; boundary=${boundary}` },
    body: Readable.from(body()) as never,
    duplex: "half",
  } as RequestInit);
  const result = await response.json();
  if (!response.ok) throw new Error(`upload: ${response.status} ${JSON.stringify(result)}`);
  return { id: result.id, bodySentMs };
}

/**
 * BENCH_CLIENT=curl: the same upload sent by curl (what a user runs), its CPU read from
 * /usr/bin/time (user + system s), returned as curlMs.
 */
async function curlUpload(engagementId: string, path: string, fileName = "general-ledger.csv"): Promise<{ id: string; bodySentMs: number; curlMs: number }> {
  const child = spawn("/usr/bin/time", ["-f", "CPU %U %S", "curl", "-s", "-S", "-H", `authorization: Bearer ${token}`, "-H", "Expect:",
    "-F", `fileManagerFile=${JSON.stringify({ engagementId })};type=application/json`,
    "-F", `file=@${path};type=text/csv;filename=${fileName}`, `${server.url}/api/v1/file-manager/import`], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "", err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  await new Promise((resolve) => child.once("exit", resolve));
  const cpu = /CPU ([\d.]+) ([\d.]+)/.exec(err);
  const result = JSON.parse(out);
  if (!result.id) throw new Error(`upload: ${out} ${err}`);
  return { id: result.id, bodySentMs: 0, curlMs: cpu ? (Number(cpu[1]) + Number(cpu[2])) * 1000 : NaN };
}

async function bareCopy(file: string): Promise<void> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    await client.query("DROP TABLE IF EXISTS bench_bare");
    await client.query("BEGIN");
    await client.query(`CREATE TABLE bench_bare (${Array.from({ length: 13 }, (_, i) => `b${i} text`).join(", ")})`);
    await pipeline(createReadStream(file, { highWaterMark: 1 << 20 }), client.query(copyFrom("COPY bench_bare FROM STDIN WITH (FORMAT csv, HEADER)")));
    await client.query("COMMIT");
    await client.query("DROP TABLE bench_bare");
  } finally {
    await client.end();
  }
}

const fmt = (m: { ms: number; serverMs: number; pgMs: number; load: number; threads: Map<string, number>; clientMs: number }) =>
  `wall ${Math.round(m.ms)} ms, server CPU ${Math.round(m.serverMs)} ms (${[...m.threads].map(([name, ms]) => `${name} ${Math.round(ms)}`).join(", ")}), PostgreSQL CPU ${Math.round(m.pgMs)} ms, client CPU ${Math.round(m.clientMs)} ms (load ${m.load.toFixed(1)})`;

try {
  const file = process.env.BENCH_FILE ?? join(dir, "general-ledger.csv");
  if (!existsSync(file)) await writeGeneralLedgerCsv(file, LINES);
  log(`file: ${(statSync(file).size / 2 ** 20).toFixed(0)} MiB`);
  const organization = await api("POST", "/organizations", { name: "Bench" });
  const engagement = await api("POST", "/engagements", { organizationId: organization.id, name: "Bench", accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" } });
  let fileId = "";
  for (let round = 0; round < ROUNDS; round++) {
    await quiesce(admin);
    // BENCH_BARE=0: no bare COPY per round (only the upload).
    if (process.env.BENCH_BARE !== "0") {
      const bare = await measure(() => bareCopy(file));
      log(`round ${round + 1} bare COPY: ${fmt(bare)}`);
    }
    await quiesce(admin);
    // BENCH_CLIENT: curl (default, as bench/lib.ts sends; its CPU printed apart), node (bench/lib.ts's http request in this process), fetch (the client the benchmarks used first).
    // BENCH_PERF=prefix: the whole machine sampled by `perf record` during the upload (prefix-N.data).
    const perf = process.env.BENCH_PERF ? spawn("perf", ["record", "-q", "-a", "-o", `${process.env.BENCH_PERF}-${round + 1}.data`], { stdio: "ignore" }) : null;
    if (perf) await new Promise((resolve) => setTimeout(resolve, 500));
    const sampling = process.env.BENCH_SAMPLE_MS ? sampler(server.child.pid!, Number(process.env.BENCH_SAMPLE_MS)) : null;
    let sampled: string[] | undefined;
    const uploaded = await measure(async () => {
      const client = process.env.BENCH_CLIENT ?? "curl";
      if (client === "node") process.env.BENCH_UPLOAD_CLIENT = "node";
      const out =
        client === "fetch"
          ? await upload(engagement.id, file, process.env.BENCH_FILE_NAME)
          : client === "curl"
            ? await curlUpload(engagement.id, file, process.env.BENCH_FILE_NAME)
            : { id: await uploadLedgerFile(server.url, token, engagement.id, file, process.env.BENCH_FILE_NAME), bodySentMs: 0 };
      sampled = sampling?.stop();
      return out;
    });
    if (perf) {
      perf.kill("SIGINT");
      await new Promise((resolve) => perf.once("exit", resolve));
    }
    if (sampled) log(sampled.join("\n"));
    const { id, bodySentMs, curlMs } = uploaded.result as { id: string; bodySentMs: number; curlMs?: number };
    fileId = id;
    log(`round ${round + 1} upload:    ${fmt(uploaded)}; body sent after ${Math.round(bodySentMs)} ms${curlMs === undefined ? "" : `; curl CPU ${Math.round(curlMs)} ms`}`);
  }
  if (process.env.BENCH_FILE_INFO_OUT) {
    const entity = await api("GET", `/file-manager/${fileId}`);
    const info = await api("GET", `/file-info/${entity.fileInfoId}`);
    for (const key of ["id", "fileManagerFileId", "creationDate", "createdUserInfo", "lastModifiedDate", "lastModifiedUserInfo", "version"]) delete info[key];
    writeFileSync(process.env.BENCH_FILE_INFO_OUT, JSON.stringify(info, null, 1));
    log(`file info written to ${process.env.BENCH_FILE_INFO_OUT}`);
  }
} finally {
  await admin.end();
  await server.stop().catch(() => undefined);
  await db.stop().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
}
