// `npm run build`: the server's TypeScript (src, rest, schema, subscriptions, web) to JavaScript under
// dist/, file for file (no bundling, so import paths stay as written). Running compiled code
// instead of loading TypeScript through tsx at start-up takes about 55 MB off the server's
// resident memory (tsx keeps every transformed module and its source map). Takes about a second.
import { build } from "esbuild";
import { randomBytes } from "node:crypto";
import { cpSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";

const ROOT = new URL("..", import.meta.url).pathname;
const OUT = join(ROOT, "dist");
const DIRS = ["src", "rest", "schema", "subscriptions", "web"];

function files(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files(path, out);
    else out.push(path);
  }
  return out;
}

// Built beside dist/ in a staging directory of its own and swapped in by rename, so a server already
// running from dist/ (another `npm start`, a test's child server) never finds its files half deleted.
const STAGE = `${OUT}.build-${process.pid}-${randomBytes(4).toString("hex")}`;
const all = DIRS.flatMap((d) => files(join(ROOT, d)));
const sources = all.filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && !f.endsWith(".d.ts"));
try {
  await build({ entryPoints: sources, outdir: STAGE, outbase: ROOT, format: "esm", platform: "node", target: "node20", bundle: false, sourcemap: false, logLevel: "warning" });
  // Plain JavaScript shipped beside the sources (e.g. the profiling worker's entry point).
  for (const file of all.filter((f) => f.endsWith(".mjs") || f.endsWith(".js"))) cpSync(file, join(STAGE, relative(ROOT, file)));
  // Two builds at the same moment (two test workers, `npm start` beside `npm test`) take turns at
  // the swap: between its two renames dist/ is absent, and a rename onto a dist/ another build just
  // put in place would fail. Whichever swaps last wins; both built the same tree.
  withLock(`${OUT}.lock`, () => {
    const old = `${STAGE}.old`;
    try {
      renameSync(OUT, old);
    } catch (error) {
      if (error.code !== "ENOENT") throw error;
    }
    renameSync(STAGE, OUT);
    rmSync(old, { recursive: true, force: true });
  });
} finally {
  rmSync(STAGE, { recursive: true, force: true });
}

/** Runs `work` holding a lock directory (mkdir is atomic); a lock whose owner died is taken over. */
function withLock(lock, work) {
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  for (const started = Date.now(); ; ) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, "pid"), String(process.pid));
      break;
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
      if (lockOwnerGone(lock) || Date.now() - started > 60_000) rmSync(lock, { recursive: true, force: true });
      else Atomics.wait(sleeper, 0, 0, 50);
    }
  }
  try {
    work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function lockOwnerGone(lock) {
  let pid;
  try {
    pid = Number(readFileSync(join(lock, "pid"), "utf8"));
  } catch {
    // Just created and its pid not yet written, or just released: not stale unless it stays so.
    try {
      return Date.now() - statSync(lock).mtimeMs > 10_000;
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return error.code === "ESRCH";
  }
}
