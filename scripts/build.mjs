// `npm run build`: the server's TypeScript (src, rest, schema, subscriptions, web) to JavaScript under
// dist/, file for file (no bundling, so import paths stay as written). Running compiled code
// instead of loading TypeScript through tsx at start-up takes about 55 MB off the server's
// resident memory (tsx keeps every transformed module and its source map). Takes about a second.
import { build } from "esbuild";
import { cpSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
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

// Built beside dist/ and swapped in by rename, so a server already running from dist/ (another
// `npm start`, a test's child server) never finds its files half deleted.
const STAGE = `${OUT}.build-${process.pid}`;
rmSync(STAGE, { recursive: true, force: true });
const all = DIRS.flatMap((d) => files(join(ROOT, d)));
const sources = all.filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && !f.endsWith(".d.ts"));
await build({ entryPoints: sources, outdir: STAGE, outbase: ROOT, format: "esm", platform: "node", target: "node20", bundle: false, sourcemap: false, logLevel: "warning" });
// Plain JavaScript shipped beside the sources (e.g. the profiling worker's entry point).
for (const file of all.filter((f) => f.endsWith(".mjs") || f.endsWith(".js"))) cpSync(file, join(STAGE, relative(ROOT, file)));
const OLD = `${OUT}.old-${process.pid}`;
try {
  renameSync(OUT, OLD);
} catch (error) {
  if (error.code !== "ENOENT") throw error;
}
renameSync(STAGE, OUT);
rmSync(OLD, { recursive: true, force: true });
