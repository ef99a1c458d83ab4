// One measured run, in its own process so that its peak RSS is its own:
//   node --import tsx bench/ingestion-worker.ts bare|bare-unlogged|pipeline <file> <database url>
// Prints one JSON line: { ms, maxRssMb, steps?, rows? }.
import { createReadStream } from "node:fs";
import { pipeline as streamPipeline } from "node:stream/promises";
import pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { effectiveDateMetrics, summarizeEffectiveDates } from "../src/ingestion/analysis/effective-dates.js";
import { analyzeStagedData } from "../src/ingestion/analysis/staged-data.js";
import { chooseTransactionId, transactionIdCandidates, type TransactionIdPreview } from "../src/ingestion/analysis/transaction-ids.js";
import { detectFormat } from "../src/ingestion/detect.js";
import { applyColumnMappings } from "../src/ingestion/mapping/apply.js";
import { summarizeColumns } from "../src/ingestion/mapping/columns.js";
import { discoverAccounts, parseEntries, type DiscoveredAccount } from "../src/ingestion/parse/parse.js";
import { buildParsePlan } from "../src/ingestion/sql/parse-plan.js";
import { stageFile } from "../src/ingestion/staging/stage.js";
import { GENERAL_LEDGER_COLUMNS } from "../test/ingestion/definitions.js";

const [mode, file, url] = process.argv.slice(2);
const pool = new pg.Pool({ connectionString: url, max: 3 });

async function bare(unlogged: boolean): Promise<Record<string, unknown>> {
  const columns = Array.from({ length: 13 }, (_, i) => `b${i} text`).join(", ");
  await pool.query("DROP TABLE IF EXISTS bench_bare");
  const started = performance.now();
  const client = await pool.connect();
  try {
    // One transaction: with wal_level=minimal a table created in it is loaded without WAL.
    await client.query("BEGIN");
    await client.query(`CREATE ${unlogged ? "UNLOGGED " : ""}TABLE bench_bare (${columns})`);
    await streamPipeline(createReadStream(file, { highWaterMark: 1 << 20 }), client.query(copyFrom("COPY bench_bare FROM STDIN WITH (FORMAT csv, HEADER)")));
    await client.query("COMMIT");
  } finally {
    client.release();
  }
  const ms = performance.now() - started;
  await pool.query("DROP TABLE bench_bare");
  return { ms };
}

async function ingest(): Promise<Record<string, unknown>> {
  const steps: Record<string, number> = {};
  let last = performance.now();
  const started = last;
  const lap = (name: string) => {
    const now = performance.now();
    steps[name] = Math.round(now - last);
    last = now;
  };
  const staging = "ingest.stg_bench";
  const entries = "ingest.entries_bench";
  const detection = await detectFormat(file);
  lap("detect");
  const staged = await stageFile(pool, file, { table: staging, detection, columnDefinitions: GENERAL_LEDGER_COLUMNS });
  lap("stage + file info");
  const { applied } = applyColumnMappings({ fileInfo: staged.fileInfo, columnDefinitions: GENERAL_LEDGER_COLUMNS });
  const plan = buildParsePlan(staged.fileInfo, applied, GENERAL_LEDGER_COLUMNS, [], staged.columns);
  lap("mapping");
  const candidates = transactionIdCandidates(plan, summarizeColumns(staged.fileInfo), staged.rowCount);
  let accounts: DiscoveredAccount[] | null = null;
  let known: TransactionIdPreview[] = [];
  if (process.env.BENCH_INGEST_ANALYSES === "combined") {
    // One pass: entries per effective date, accounts, and the rating of the first candidate.
    const analysis = await analyzeStagedData(pool, staging, plan, { selection: candidates[0], concurrent: false });
    effectiveDateMetrics(analysis.effectiveDates!, "MONTH", { startDate: "2023-01-01", endDate: "2023-12-31" });
    accounts = analysis.accounts;
    known = analysis.transactionIdPreview ? [analysis.transactionIdPreview] : [];
    lap("analyses in one pass (dates, accounts, txid)");
  } else if (process.env.BENCH_INGEST_ANALYSES === "separate") {
    const summary = await summarizeEffectiveDates(pool, staging, plan);
    effectiveDateMetrics(summary, "MONTH", { startDate: "2023-01-01", endDate: "2023-12-31" });
    lap("effective dates");
  } else {
    // Default: effective dates and accounts in one pass, the first transaction id candidate rated beside it.
    const analysis = await analyzeStagedData(pool, staging, plan, { selection: candidates[0] });
    effectiveDateMetrics(analysis.effectiveDates!, "MONTH", { startDate: "2023-01-01", endDate: "2023-12-31" });
    accounts = analysis.accounts;
    known = analysis.transactionIdPreview ? [analysis.transactionIdPreview] : [];
    lap("effective dates + accounts + first txid candidate");
  }
  const { previews, selected } = await chooseTransactionId(pool, staging, plan, candidates, known);
  const selection = candidates[selected];
  lap("transaction ids");
  const parsed = await parseEntries(pool, { staging, target: entries, plan, transactionIdSelection: selection, columnNames: staged.columns.map((c) => c.name) });
  lap("parse");
  if (!accounts) {
    accounts = await discoverAccounts(pool, entries);
    lap("accounts");
  }
  const ms = performance.now() - started;
  if (parsed.rowCount !== staged.rowCount || accounts.length === 0 || previews[selected].overallRating !== "GOOD") {
    throw new Error(`unexpected result: ${parsed.rowCount} rows parsed of ${staged.rowCount}, ${accounts.length} accounts, rating ${previews[selected].overallRating}`);
  }
  return { ms, steps, rows: parsed.rowCount, previews: previews.length };
}

try {
  const result = mode === "pipeline" ? await ingest() : await bare(mode === "bare-unlogged");
  const usage = process.resourceUsage();
  process.stdout.write(`${JSON.stringify({ ...result, maxRssMb: Math.round(usage.maxRSS / 1024), cpuMs: Math.round((usage.userCPUTime + usage.systemCPUTime) / 1000) })}\n`);
} finally {
  await pool.end();
}
