// Warehouse import benchmark (issue 21 point 7): a 1,000,000-row table read from a Databricks-protocol
// warehouse (the fake of test/helpers/fake-warehouse.ts, in this process, over loopback HTTPS) through
// POST /connections/{id}/get-data into a data table; the clock runs from the request to COMPLETE.
// The server runs as `npm start` does (separate process, compiled); its peak RSS is sampled.
// Environment: BENCH_WAREHOUSE_ROWS (default 1,000,000), BENCH_CHUNK_ROWS (default 20,000), BENCH_DATABASE_URL.
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { ANALYSIS_TYPE_IDS } from "../src/modules/catalogue/ids.js";
import { FakeWarehouse, ledgerTable } from "../test/helpers/fake-warehouse.js";
import { benchDatabase, machine, rssSampler, startServer, today, writeSection } from "./lib.js";

const ROWS = Number(process.env.BENCH_WAREHOUSE_ROWS ?? 1_000_000);
const CHUNK = Number(process.env.BENCH_CHUNK_ROWS ?? 20_000);

const database = await benchDatabase();
const dir = mkdtempSync(join(tmpdir(), "warehouse-bench-"));
const warehouse = await new FakeWarehouse().start();
warehouse.chunkRows = CHUNK;
warehouse.tables.set("main.finance.gl_lines", ledgerTable(ROWS));
const token = `fap_bench_${randomBytes(16).toString("hex")}`;
const server = await startServer({ DATABASE_URL: database.url, DATA_DIR: join(dir, "data"), BOOTSTRAP_TOKEN: token, WAREHOUSE_CA_FILE: warehouse.caFile, LOG_LEVEL: "error", IP_RATE_LIMIT: "100000000" });

async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(`${server.url}/api/v1${path}`, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = await response.json();
  if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

try {
  const organization = await call("POST", "/organizations", { name: "Bench" });
  const engagement = await call("POST", "/engagements", { organizationId: organization.id, name: "Bench", accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" } });
  const analysis = await call("POST", "/analyses", { engagementId: engagement.id, analysisTypeId: ANALYSIS_TYPE_IDS.GENERAL_LEDGER, name: "Bench", analysisPeriods: [{ startDate: "2025-01-01", endDate: "2025-12-31" }] });
  const connection = await call("POST", "/connections", { name: "Bench warehouse" });
  await call("POST", "/warehouse-auth", { connectionId: connection.id, authType: "PAT", host: "localhost", port: warehouse.port, httpPath: `/sql/1.0/warehouses/${warehouse.warehouseId}`, accessToken: warehouse.accessToken });
  await call("POST", `/connections/${connection.id}/tables`, {});
  server.child.once("exit", (code, signal) => process.stderr.write(`server exited: code ${code} signal ${signal}\n`));
  const rss = rssSampler(server.child.pid!);
  const idleMb = rss.peakMb();
  const load = loadavg()[0];
  let loadPeak = load;
  const loadTimer = setInterval(() => (loadPeak = Math.max(loadPeak, loadavg()[0])), 1000);
  const started = Date.now();
  const job = await call("POST", `/connections/${connection.id}/get-data`, { tableId: "main.finance.gl_lines", analysisId: analysis.id });
  let status;
  for (;;) {
    status = await call("GET", `/async-results/${job.id}`);
    if (status.status !== "IN_PROGRESS") break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const seconds = (Date.now() - started) / 1000;
  rss.stop();
  clearInterval(loadTimer);
  if (status.status !== "COMPLETE") throw new Error(`import failed: ${status.error}`);
  const task = await call("GET", `/data-source-import-tasks/${job.entityId}`);
  if (Number(task.rowCount) !== ROWS) throw new Error(`imported ${task.rowCount} rows, expected ${ROWS}`);
  const line = `| ${ROWS.toLocaleString("en")} rows x 9 columns, ${CHUNK.toLocaleString("en")}-row chunks | ${seconds.toFixed(1)} | ${Math.round(ROWS / seconds).toLocaleString("en")} | ${idleMb.toFixed(0)} | ${rss.peakMb().toFixed(0)} |`;
  process.stdout.write(`${line}\n`);
  writeSection(
    "warehouse-import",
    `## Warehouse import (issue 21)

${today()}, ${machine()}. \`npm run bench warehouse-import\`. A Databricks-protocol warehouse (the test fake: statement API, EXTERNAL_LINKS with CSV chunks downloaded from presigned-style links, in the benchmark process over loopback HTTPS, generating rows as it serves them; its share of the CPU counts against the server's) and the server (compiled, its own process) on the same machine; \`POST /connections/{id}/get-data\` of the whole table into a data table, clock from the request to the async result COMPLETE. The import task's COMPLETE includes indexing the searchable columns (7 indexes and the rowid's) and ANALYZE, so the table is then as fast to query as an ingested one. The chunks' CSV bytes go unparsed into \`COPY ... (FORMAT csv)\` with backpressure: the download is read only as fast as COPY takes it. Load average (1 min) at the start ${load.toFixed(1)}, at most ${loadPeak.toFixed(1)} during the run (other work shared the 2 cores).

| Table | Seconds | Rows/s | Server RSS before (MB) | Server peak RSS (MB) |
|---|---|---|---|---|
${line}

Memory: nothing of a chunk becomes a JS value (no JSON.parse, no per-row strings); the server holds a few socket buffers of CSV between the download and COPY, so its RSS stays near idle whatever the table's size.
`,
  );
} finally {
  await server.stop();
  await warehouse.close();
  await database.stop();
  rmSync(dir, { recursive: true, force: true });
}
