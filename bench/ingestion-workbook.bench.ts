// Workbook ingestion benchmark (issue 15 point 7): the generated general ledger as an .xlsx of
// 1,000,000 rows (shared strings, dated and numbered cells, as Excel stores them) through the engine
// from file to typed entries, against a bare COPY of the same ledger as CSV, in the same run.
// Runs under `npm run bench` or alone: node --import tsx bench/ingestion-workbook.bench.ts
// Environment: BENCH_GL_LINES (default 1,000,000), BENCH_ROUNDS (default 1).
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { migrate } from "../src/db/migrate.js";
import { writeGeneralLedgerCsv } from "../test/helpers/gl-generator.js";
import { benchDatabase, machine, ROOT, today, writeSection } from "./lib.js";
import { writeLedgerWorkbook } from "./xlsx-writer.js";

const LINES = Number(process.env.BENCH_GL_LINES ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);

function run(mode: string, file: string, url: string): { ms: number; maxRssMb: number; cpuMs: number; steps?: Record<string, number> } {
  const child = spawnSync(process.execPath, ["--import", "tsx", "bench/ingestion-worker.ts", mode, file, url], { cwd: ROOT, encoding: "utf8", maxBuffer: 1 << 20 });
  if (child.status !== 0) throw new Error(`${mode} failed:\n${child.stderr}\n${child.stdout}`);
  return JSON.parse(child.stdout.trim().split("\n").at(-1)!);
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const database = await benchDatabase();
const dir = mkdtempSync(join(tmpdir(), "workbook-bench-"));
try {
  const pool = new pg.Pool({ connectionString: database.url, max: 1 });
  await migrate(pool);
  await pool.end();
  const csv = join(dir, "general-ledger.csv");
  const xlsx = join(dir, "general-ledger.xlsx");
  await writeGeneralLedgerCsv(csv, LINES);
  await writeLedgerWorkbook(csv, xlsx);
  const megabytes = statSync(xlsx).size / 2 ** 20;
  process.stdout.write(`workbook: ${LINES} rows, ${megabytes.toFixed(0)} MiB\n`);
  const loadBefore = loadavg()[0];
  const bare: number[] = [];
  const book: ReturnType<typeof run>[] = [];
  const csvRuns: ReturnType<typeof run>[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    bare.push(run("bare", csv, database.url).ms);
    book.push(run("pipeline", xlsx, database.url));
    csvRuns.push(run("pipeline", csv, database.url));
    process.stdout.write(
      `round ${round + 1}: bare COPY ${Math.round(bare.at(-1)!)} ms, workbook pipeline ${Math.round(book.at(-1)!.ms)} ms (CPU ${book.at(-1)!.cpuMs} ms), peak RSS ${book.at(-1)!.maxRssMb} MB ${JSON.stringify(book.at(-1)!.steps)}; CSV pipeline ${Math.round(csvRuns.at(-1)!.ms)} ms (CPU ${csvRuns.at(-1)!.cpuMs} ms)\n`,
    );
  }
  const loadAfter = loadavg()[0];
  const total = median(book.map((r) => r.ms));
  const steps = Object.keys(book[0].steps ?? {})
    .map((s) => `| ${s} | ${median(book.map((r) => r.steps![s]))} |`)
    .join("\n");
  writeSection(
    "ingestion-workbook",
    `## Workbook ingestion (issue 15 point 7)

${today()}, ${machine()}. The ${LINES.toLocaleString("en-US")}-line general ledger of test/helpers/gl-generator.ts as one .xlsx sheet (${megabytes.toFixed(0)} MiB; text as shared strings, dates as serials with a date style, amounts as numbers; bench/xlsx-writer.ts), through the same engine pipeline as the CSV (bench/ingestion-worker.ts: detection, staging with the profile in the same pass, mapping, effective dates, transaction ids, parse). The cells are streamed from the sheet XML (src/ingestion/workbook/xlsx.ts): memory holds the shared strings and one chunk of the sheet. Median of ${ROUNDS} round(s); load average ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after (the 2 cores are shared with other work).

| Run | ms |
|---|---|
| bare COPY of the same ledger as CSV | ${Math.round(median(bare))} |
| **workbook pipeline** | **${Math.round(total)}** (${(total / median(bare)).toFixed(1)}x the bare COPY); CPU of its process ${median(book.map((r) => r.cpuMs))} ms |
| the same pipeline on the CSV, same run | ${Math.round(median(csvRuns.map((r) => r.ms)))}; CPU ${median(csvRuns.map((r) => r.cpuMs))} ms |
| peak RSS of the workbook pipeline | **${Math.max(...book.map((r) => r.maxRssMb))} MB** |

| Step | median ms |
|---|---|
${steps}`,
  );
} finally {
  await database.stop();
  rmSync(dir, { recursive: true, force: true });
}
