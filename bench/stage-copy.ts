// PostgreSQL's side of staging (not part of `npm run bench`): stages a file once through
// stageFile (as an upload does, bytes arriving), then reloads the staged rows into a fresh staging
// table in each COPY format from files written by COPY TO, reporting the backend's CPU per load
// (read from /proc, which other load on the machine moves far less than wall times).
// The stages' own CPU per thread (main, staging worker, V8 helpers) comes first: an upload's
// reading without the HTTP request around it. `node --import tsx bench/stage-copy.ts FILE`;
// REPS (3), FORMATS=0 (stages only), CHECK=1 (md5 of each stage's rows and file info), PERF=prefix (`perf record` of the backend per COPY).
import { chmodSync, createReadStream, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import pg from "pg";
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { from as copyFrom } from "pg-copy-streams";
import { ArrivingBytes } from "../src/ingestion/byte-source.js";
import { stageFile } from "../src/ingestion/staging/stage.js";
import { benchDatabase } from "./lib.js";

const file = process.argv[2];
const REPS = Number(process.env.REPS ?? 3);
const db = await benchDatabase();
const pool = new pg.Pool({ connectionString: db.url, max: 4 });
const dir = mkdtempSync(join(tmpdir(), "stage-copy-"));
chmodSync(dir, 0o777);
const log = (line: string) => process.stdout.write(`${line}\n`);
const TICK_US = 10_000;
const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;
const cpuOf = (pid: number | string) => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(f[11]) + Number(f[12])) * TICK_US / 1000;
};
const threads = () => {
  const out = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${process.pid}/task`)) {
    try {
      out.set(Number(tid), cpuOf(`${process.pid}/task/${tid}` as never));
    } catch {}
  }
  return out;
};

try {
  await pool.query("CREATE SCHEMA IF NOT EXISTS ingest");
  for (let r = 0; r < REPS; r++) {
    const bytes = new ArrivingBytes(undefined, statSync(file).size);
    const before = threads();
    const processBefore = process.cpuUsage();
    const started = performance.now();
    const feed = (async () => {
      for await (const piece of createReadStream(file, { highWaterMark: 64 * 1024 })) await bytes.push(piece as Buffer);
      bytes.end();
    })();
    const staged = await stageFile(pool, bytes, { table: "ingest.stg_bench", name: "gl.csv" });
    await feed;
    const ms = performance.now() - started;
    const after = threads();
    const perThread = [...after].map(([tid, cpu]) => [tid, cpu - (before.get(tid) ?? 0)] as const).filter(([, d]) => d > 20);
    // CHECK=1: the staged rows' md5 in row order and the file info's, to compare stages and versions.
    if (process.env.CHECK) {
      const md5 = (await pool.query("SELECT md5(string_agg(t::text, E'\\n' ORDER BY row_no)) AS m FROM ingest.stg_bench t")).rows[0].m as string;
      log(`staged rows md5 ${md5}, file info md5 ${createHash("md5").update(JSON.stringify(staged.fileInfo)).digest("hex")}`);
    }
    log(`stageFile: ${staged.rowCount} rows, wall ${Math.round(ms)} ms; this process's threads: ${perThread.map(([t, d]) => `${t === process.pid ? "main" : t} ${Math.round(d)}`).join(", ")}; process CPU ${Math.round(cpuMs(process.cpuUsage(processBefore)))} ms`);
  }
  // FORMATS=0: only the stages.
  if (process.env.FORMATS !== "0") {
    const cols = (await pool.query(`SELECT string_agg(format('%I %s', attname, format_type(atttypid, atttypmod)), ', ' ORDER BY attnum) AS d FROM pg_attribute WHERE attrelid = 'ingest.stg_bench'::regclass AND attnum > 0 AND NOT attisdropped`)).rows[0].d as string;
    const formats: Record<string, string> = { csv: "FORMAT csv", text: "FORMAT text", binary: "FORMAT binary" };
    for (const [name, options] of Object.entries(formats)) await pool.query(`COPY ingest.stg_bench TO '${join(dir, name)}' WITH (${options})`);
    for (const name of Object.keys(formats)) log(`${name}: ${(statSync(join(dir, name)).size / 2 ** 20).toFixed(1)} MiB`);
    for (let r = 0; r < REPS; r++) {
      for (const [name, options] of Object.entries(formats)) {
        const client = new pg.Client({ connectionString: db.url });
        await client.connect();
        const pid = (await client.query("SELECT pg_backend_pid() AS p")).rows[0].p as number;
        await client.query("BEGIN");
        await client.query(`CREATE UNLOGGED TABLE ingest.reload (${cols}) WITH (autovacuum_enabled = false)`);
        const perf = process.env.PERF ? spawn("perf", ["record", "-q", "-p", String(pid), "-o", `${process.env.PERF}-${name}.data`], { stdio: "ignore" }) : null;
        if (perf) await new Promise((resolve) => setTimeout(resolve, 300));
        const before = cpuOf(pid);
        const started = performance.now();
        await pipeline(createReadStream(join(dir, name), { highWaterMark: 1 << 20 }), client.query(copyFrom(`COPY ingest.reload FROM STDIN WITH (${options}, FREEZE)`)));
        const ms = performance.now() - started;
        const cpu = cpuOf(pid) - before;
        if (perf) {
          perf.kill("SIGINT");
          await new Promise((resolve) => perf.once("exit", resolve));
        }
        await client.query("ROLLBACK");
        await client.end();
        log(`round ${r + 1} COPY ${name.padEnd(6)}: backend CPU ${Math.round(cpu)} ms, wall ${Math.round(ms)} ms`);
      }
    }
  }
} finally {
  await pool.end();
  await db.stop();
  rmSync(dir, { recursive: true, force: true });
}
