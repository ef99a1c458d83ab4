// `npm run bench`: runs every bench/*.bench.ts (or those named on the command line) one after
// another, each in its own process; each writes its section of docs/benchmarks.md.
import { readdirSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { ROOT } from "./lib.js";

const only = process.argv.slice(2);
const benches = readdirSync(new URL(".", import.meta.url))
  .filter((f) => f.endsWith(".bench.ts"))
  .filter((f) => only.length === 0 || only.some((name) => f.includes(name)))
  .sort();
let failed = false;
for (const bench of benches) {
  process.stdout.write(`\n== ${bench}\n`);
  const result = spawnSync(process.execPath, ["--import", "tsx", `bench/${bench}`], { cwd: ROOT, stdio: "inherit" });
  if (result.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
