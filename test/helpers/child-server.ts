import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./ports.js";

export interface ChildServer {
  url: string;
  process: ChildProcess;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

const ROOT = new URL("../../", import.meta.url).pathname;

let built = process.env.FAP_TEST_DIST_BUILT === "1";

/**
 * Builds dist/ (what `npm start` runs) unless the global setup already did: one build per run, since
 * a test file rebuilding it would swap dist/ under another file's running child server.
 */
export function ensureBuilt(): void {
  if (built) return;
  buildDist();
  built = true;
}

export function buildDist(): void {
  const build = spawnSync(process.execPath, ["scripts/build.mjs"], { cwd: ROOT, encoding: "utf8" });
  if (build.status !== 0) throw new Error(`npm run build failed:\n${build.stderr}`);
  // The test job server (npm start plus the test jobs) beside it, file for file like the build, so
  // its imports of ../../src/... reach the compiled server: no tsx transforming the sources at each start.
  const fixtures = ["test/fixtures/job-server.ts", "test/fixtures/test-jobs.ts"];
  const esbuild = spawnSync(process.execPath, ["-e", `require("esbuild").buildSync({ entryPoints: ${JSON.stringify(fixtures)}, outdir: "dist", outbase: ".", format: "esm", platform: "node", target: "node20", logLevel: "warning" })`], { cwd: ROOT, encoding: "utf8" });
  if (esbuild.status !== 0) throw new Error(`building the test job server failed:\n${esbuild.stderr}`);
}

/** The compiled test job server (`npm start` plus test/fixtures/test-jobs.ts); see buildDist. */
export const JOB_SERVER_SCRIPT = "dist/test/fixtures/job-server.js";

/** Runs the compiled server expecting it to stop by itself (a refused start): its exit code and output. */
export async function runChildServerToExit(env: Record<string, string>, dataDir: string, timeoutMs = 60_000): Promise<{ code: number | null; output: string; ms: number }> {
  ensureBuilt();
  const started = Date.now();
  const port = await freePort();
  const child = spawn(process.execPath, ["dist/src/main.js"], { cwd: ROOT, env: { ...process.env, LOG_LEVEL: "error", ...env, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the server did not stop by itself within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    child.once("exit", (exitCode) => {
      clearTimeout(timer);
      resolve(exitCode);
    });
  });
  return { code, output, ms: Date.now() - started };
}

/**
 * Runs the server as a separate OS process with the given environment: the build `npm start` makes
 * and runs (dist/, built once per test run), or with `compiled: false` from the TypeScript sources
 * (`npm run dev`; tsx transforms every module at each start, about twice the CPU).
 */
export async function startChildServer(env: Record<string, string>, options: { dataDir?: string; compiled?: boolean; detached?: boolean } = {}): Promise<ChildServer> {
  const compiled = options.compiled ?? true;
  if (compiled) ensureBuilt();
  const port = await freePort();
  // A given DATA_DIR belongs to the caller (e.g. kept across restarts) and is left in place on stop.
  const ownDataDir = !options.dataDir;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "fap-child-"));
  const child = spawn(process.execPath, compiled ? ["dist/src/main.js"] : ["--import", "tsx", "src/main.ts"], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: "error", ...env, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir },
    stdio: ["ignore", "pipe", "pipe"],
    // Its own process group, like a job started from a terminal: a signal to the group is Ctrl-C.
    detached: options.detached ?? false,
  });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not become ready:\n${output}`)), 120_000);
    const check = () => {
      if (output.includes("Ready:")) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on("data", check);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    process: child,
    output: () => output,
    async stop(signal: NodeJS.Signals = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill(signal);
        await exited;
      }
      if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
