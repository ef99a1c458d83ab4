import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { cpus, totalmem, type } from "node:os";
import { randomBytes } from "node:crypto";
import { chmodSync, createReadStream, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer } from "node:net";
import type pg from "pg";
import { ANALYSIS_SOURCE_TYPE_IDS } from "../src/modules/catalogue/ids.js";

export const ROOT = new URL("../", import.meta.url).pathname;
const RESULTS = join(ROOT, "docs/benchmarks.md");

export function machine(): string {
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  return `${cpus().length} × ${cpu}, ${Math.round(totalmem() / 2 ** 30)} GiB RAM, ${type()}, Node ${process.version}`;
}

export function today(): string {
  return new Date().toISOString().slice(0, 10);
}

/** Replaces this benchmark's section of docs/benchmarks.md, keeping the others. */
export function writeSection(name: string, markdown: string): void {
  const start = `<!-- bench:${name}:start -->`;
  const end = `<!-- bench:${name}:end -->`;
  let text = existsSync(RESULTS) ? readFileSync(RESULTS, "utf8") : "# Benchmarks\n\nProduced by `npm run bench` (each section by its script under bench/). Numbers are from the machine and date stated in each section.\n";
  const block = `${start}\n${markdown.trim()}\n${end}`;
  const at = text.indexOf(start);
  text = at >= 0 ? text.slice(0, at) + block + text.slice(text.indexOf(end) + end.length) : `${text.trimEnd()}\n\n${block}\n`;
  writeFileSync(RESULTS, text);
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

export interface Proc {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts a Node script as a separate process and waits for `readyText` on its stdout. */
let built = false;

/** The server as `npm start` runs it (compiled JavaScript under dist/, built once per benchmark). */
export async function startServer(env: Record<string, string>, nodeArgs: string[] = []): Promise<Proc> {
  if (!built) {
    const build = spawnSync(process.execPath, ["scripts/build.mjs"], { cwd: ROOT, stdio: "inherit" });
    if (build.status !== 0) throw new Error("npm run build failed");
    built = true;
  }
  return startProcess([...nodeArgs, "dist/src/main.js"], env, "Ready:", false);
}

export async function startProcess(args: string[], env: Record<string, string>, readyText: string, typescript = true): Promise<Proc> {
  const port = await freePort();
  const child = spawn(process.execPath, [...(typescript ? ["--import", "tsx"] : []), ...args], { cwd: ROOT, env: { ...process.env, ...env, PORT: String(port), HOST: "127.0.0.1" }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (c) => (output += c));
  child.stderr!.on("data", (c) => (output += c));
  // BENCH_VERBOSE=1 shows the server's own log (with LOG_LEVEL) while a benchmark runs.
  if (process.env.BENCH_VERBOSE) {
    child.stdout!.pipe(process.stderr);
    child.stderr!.pipe(process.stderr);
  }
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (output.includes(readyText)) {
        clearInterval(timer);
        resolve();
      }
    }, 50);
    child.once("exit", (code) => {
      clearInterval(timer);
      reject(new Error(`${args.join(" ")} exited with ${code}:\n${output}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

export interface LoadResult {
  requestsPerSecond: number;
  /** Requests answered during the run. */
  requests: number;
  latencyP50: number;
  latencyP99: number;
  errors: number;
  non2xx: number;
}

/** Drives load from a separate process (autocannon) so the measured server has its own event loop. */
export function load(url: string, options: { method?: string; body?: string; headers?: Record<string, string>; connections?: number; seconds?: number }): LoadResult {
  const args = ["node_modules/autocannon/autocannon.js", "-j", "-c", String(options.connections ?? 10), "-d", String(options.seconds ?? 10), "-m", options.method ?? "GET"];
  for (const [name, value] of Object.entries(options.headers ?? {})) args.push("-H", `${name}=${value}`);
  if (options.body) args.push("-b", options.body, "-H", "content-type=application/json");
  args.push(url);
  const out = spawnSync(process.execPath, args, { cwd: ROOT, maxBuffer: 64 * 1024 * 1024, stdio: ["ignore", "pipe", "ignore"] }).stdout.toString();
  const result = JSON.parse(out);
  if (result.non2xx) process.stderr.write(`${url}: ${JSON.stringify(result.statusCodeStats)}\n`);
  return { requestsPerSecond: result.requests.average, requests: result.requests.total, latencyP50: result.latency.p50, latencyP99: result.latency.p99, errors: result.errors, non2xx: result.non2xx };
}

/** A database for a benchmark: BENCH_DATABASE_URL, or an embedded PostgreSQL in a temp directory. */
export async function benchDatabase(): Promise<{ url: string; stop(): Promise<void> }> {
  if (process.env.BENCH_DATABASE_URL) return { url: process.env.BENCH_DATABASE_URL, stop: async () => undefined };
  const { startEmbeddedPostgres } = await import("../src/db/embedded-postgres.js");
  const { createLogger } = await import("../src/core/logger.js");
  const dir = mkdtempSync(join(tmpdir(), "fap-bench-"));
  chmodSync(dir, 0o755);
  const db = await startEmbeddedPostgres(dir, await freePort(), createLogger("silent"));
  // Each run's database holds gigabytes (a million-line ledger, several times): not kept.
  return {
    url: db.url,
    stop: async () => {
      await db.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** CPU time (user + system) a process has used so far, in microseconds: per request, it depends far less on other load on the machine than requests per second do. */
export function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS;
}
const CLOCK_TICKS = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;

/** Resident memory of a process, sampled every 20 ms; `peakMb()` is the highest since the last `reset()`. */
export function rssSampler(pid: number) {
  const read = () => {
    try {
      return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;
    } catch {
      return 0; // the process has exited (a sample can fire between its exit and stop())
    }
  };
  let peak = read();
  const timer = setInterval(() => (peak = Math.max(peak, read())), 20);
  return { reset: () => (peak = read()), peakMb: () => Math.max(peak, read()) / 2 ** 20, stop: () => clearInterval(timer) };
}

/**
 * POST /file-manager/import of a file on disk into an engagement (multipart, streamed); the new
 * file's id. Sent by curl, as a user would (`curl -F`), when it is installed: on the 1M-line
 * ledger (108 MiB) curl used 40 ms of CPU where this process piping the file's stream into an
 * http request used 105-140 ms (1, 4 or 16 MiB reads alike), on the same two cores as the server
 * it measures. (A fetch with a streamed body spent about a second more per 100 MiB.)
 */
export async function uploadLedgerFile(baseUrl: string, token: string, engagementId: string, path: string, fileName = "general-ledger.csv"): Promise<string> {
  if (process.env.BENCH_UPLOAD_CLIENT !== "node" && HAVE_CURL) return curlUpload(baseUrl, token, engagementId, path, fileName);
  const boundary = `----bench${randomBytes(8).toString("hex")}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="fileManagerFile"\r\nContent-Type: application/json\r\n\r\n${JSON.stringify({ engagementId })}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: text/csv\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const url = new URL(`${baseUrl}/api/v1/file-manager/import`);
  const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = httpRequest(
      url,
      {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": `multipart/form-data; boundary=${boundary}`, "content-length": head.length + statSync(path).size + tail.length },
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (text += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body: text }));
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.write(head);
    const file = createReadStream(path, { highWaterMark: 1 << 20 });
    file.on("error", reject);
    file.pipe(request, { end: false });
    file.on("end", () => request.end(tail));
  });
  const result = JSON.parse(body);
  if (status < 200 || status >= 300) throw new Error(`upload: ${status} ${body}`);
  return result.id;
}

/** BENCH_UPLOAD_CLIENT=node: the http request of this process instead of curl. */
const HAVE_CURL = spawnSync("curl", ["--version"]).status === 0;

/** The upload as `curl -F` sends it (no `Expect: 100-continue` wait, which a browser does not make either). */
async function curlUpload(baseUrl: string, token: string, engagementId: string, path: string, fileName: string): Promise<string> {
  const child = spawn(
    "curl",
    ["-s", "-S", "-w", "\n%{http_code}", "-H", `authorization: Bearer ${token}`, "-H", "Expect:", "-F", `fileManagerFile=${JSON.stringify({ engagementId })};type=application/json`, "-F", `file=@${path};type=text/csv;filename=${fileName}`, `${baseUrl}/api/v1/file-manager/import`],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", resolve);
  });
  const split = out.lastIndexOf("\n");
  const body = out.slice(0, split);
  const status = Number(out.slice(split + 1));
  if (code !== 0 || status < 200 || status >= 300) throw new Error(`upload: curl ${code} ${status} ${body} ${err}`);
  return JSON.parse(body).id;
}

/**
 * Waits until no job and no autovacuum runs (both compete for the same two cores), then a
 * checkpoint and a sync: what earlier rounds left dirty (new tables, indexes) would otherwise be
 * written back during the next timed run, and every commit of a bulk load waits for its own sync.
 */
export async function quiesce(client: pg.ClientBase): Promise<void> {
  for (;;) {
    const { rows } = await client.query(
      "SELECT (SELECT count(*) FROM async_result WHERE status = 'IN_PROGRESS') + (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'autovacuum worker') AS n",
    );
    if (Number(rows[0].n) === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await client.query("CHECKPOINT");
  spawnSync("sync");
}

/** A JSON call of the REST API with the bench's token; throws with the error body on a non-2xx answer. */
export function restCaller(baseUrl: string, token: string) {
  return async function api(method: string, path: string, body?: unknown) {
    const response = await fetch(`${baseUrl}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = response.status === 204 ? {} : await response.json();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
}

/** The environment a benchmark's server runs with: its database, token and data directory, logs at LOG_LEVEL (default error), no per-address rate limit. */
export function benchServerEnv(databaseUrl: string, token: string, dataDir: string): Record<string, string> {
  return { DATABASE_URL: databaseUrl, BOOTSTRAP_TOKEN: token, LOG_LEVEL: process.env.LOG_LEVEL ?? "error", IP_RATE_LIMIT: "100000000", DATA_DIR: dataDir };
}

/** PostgreSQL's postmaster process (its CPU includes the reaped backends'). */
export async function postmasterPid(client: pg.ClientBase): Promise<number> {
  const dataDir = (await client.query("SHOW data_directory")).rows[0].data_directory as string;
  return Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
}

/** The body of `POST /analysis-sources` that ingests an uploaded general ledger straight to COMPLETED, with every choice recommended. */
export function completedGeneralLedger(engagementId: string, analysisId: string, analysisPeriodId: string, fileManagerFileId: string) {
  return { engagementId, analysisId, analysisPeriodId, analysisSourceTypeId: ANALYSIS_SOURCE_TYPE_IDS.GENERAL_LEDGER_JOURNAL, fileManagerFileId, targetWorkflowState: "COMPLETED" };
}
