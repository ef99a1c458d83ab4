import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startChildServer, type ChildServer } from "../helpers/child-server.js";
import { RestClient } from "../helpers/client.js";
import { balancedLedger } from "../helpers/crash-harness.js";
import { GENERAL_LEDGER_ANALYSIS_TYPE, GL_SOURCE_TYPE } from "../helpers/analysis-sources.js";
import { awaitJob, createEngagement } from "../helpers/entities.js";
import { postMultipart } from "../helpers/multipart.js";
import { freePort } from "../helpers/ports.js";

// The engine writes its work tables UNLOGGED (src/engine/steps.ts: no WAL, no fsync at commit).
// A crash of PostgreSQL itself (not only of the server) empties them. Here the embedded
// PostgreSQL is stopped in immediate mode (SIGQUIT: what a power cut leaves, crash recovery at the
// next start) while a run is in its steps: the resumed run sees that its work tables are gone,
// recomputes from the first step that wrote one, and publishes the same result as an uninterrupted
// run, row for row. Published tables are logged.

const LEDGER = balancedLedger(3_000);
const dataDir = mkdtempSync(join(tmpdir(), "fap-pgcrash-"));
const token = `fap_pgcrash_${randomBytes(12).toString("hex")}`;
let env: Record<string, string>;
let server: ChildServer;
let api: RestClient;
let analysisId: string;
let referenceId: string;

const postmasterPid = () => Number(readFileSync(join(dataDir, "postgres", "postmaster.pid"), "utf8").split("\n")[0]);
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function sql<T extends pg.QueryResultRow = any>(text: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: `postgresql://postgres:postgres@127.0.0.1:${env.EMBEDDED_PG_PORT}/ledger` });
  await client.connect();
  try {
    return (await client.query<T>(text, params)).rows;
  } finally {
    await client.end();
  }
}

async function start(): Promise<void> {
  server = await startChildServer(env, { dataDir, compiled: true });
  api = new RestClient(server.url, token);
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const stepsDone = async (resultId: string): Promise<string[]> => (await sql("SELECT steps_done FROM analysis_result WHERE id = $1", [resultId]))[0]?.steps_done ?? [];

beforeAll(async () => {
  env = { DATABASE_URL: "", BOOTSTRAP_TOKEN: token, EMBEDDED_PG_PORT: String(await freePort()), LOG_LEVEL: "warn", JOB_LEASE_SECONDS: "2", JOB_SWEEP_SECONDS: "1" };
  await start();
  const engagement = await createEngagement(api, "PostgreSQL crash");
  const analysis = await api.post("/analyses", { engagementId: engagement.id, analysisTypeId: GENERAL_LEDGER_ANALYSIS_TYPE, name: "GL", analysisPeriods: [{ startDate: "2023-01-01", endDate: "2023-12-31" }] });
  expect(analysis.status, JSON.stringify(analysis.body)).toBe(200);
  analysisId = analysis.body.id;
  const file = await postMultipart(server.url, token, "/file-manager/import", [
    { name: "fileManagerFile", json: { engagementId: engagement.id, name: "ledger" } },
    { name: "file", filename: "ledger.csv", contentType: "text/csv", data: LEDGER.text },
  ]);
  expect(file.status).toBe(200);
  const source = await api.post("/analysis-sources", {
    engagementId: engagement.id,
    analysisId,
    analysisPeriodId: analysis.body.analysisPeriods[0].id,
    analysisSourceTypeId: GL_SOURCE_TYPE,
    fileManagerFileId: file.body.id,
    targetWorkflowState: "COMPLETED",
  });
  expect(source.status, JSON.stringify(source.body)).toBe(200);
  expect((await awaitJob(api, source.body.id, 60_000)).status).toBe("COMPLETE");
  expect((await api.post("/account-mappings/verify", { engagementId: engagement.id })).status).toBeLessThan(300);
  const reference = await api.post(`/analyses/${analysisId}/run`, {});
  expect((await awaitJob(api, reference.body.id, 90_000)).status).toBe("COMPLETE");
  referenceId = reference.body.entityId;
}, 240_000);

afterAll(async () => {
  await server?.stop("SIGKILL").catch(() => undefined);
  try {
    const pid = postmasterPid();
    if (alive(pid)) process.kill(pid, "SIGQUIT");
  } catch {
    // no PostgreSQL left
  }
  rmSync(dataDir, { recursive: true, force: true });
});

describe("a crash of PostgreSQL during an analysis run", () => {
  it("keeps every table a completed result holds logged", async () => {
    const tables = await sql<{ name: string; persistence: string }>(
      "SELECT c.relname AS name, c.relpersistence AS persistence FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'results' AND c.relkind = 'r' AND starts_with(c.relname, $1)",
      [`r_${referenceId}_`],
    );
    expect(tables.map((t) => t.name.slice(`r_${referenceId}_`.length)).sort()).toEqual(expect.arrayContaining(["acct", "flows", "lines", "tx", "w_facts"]));
    expect(tables.filter((t) => t.persistence !== "p")).toEqual([]);
  });

  it("recomputes the work tables the crash emptied and publishes the same result as an uninterrupted run", async () => {
    const started = await api.post(`/analyses/${analysisId}/run`, {});
    expect(started.status).toBe(200);
    const resultId: string = started.body.entityId;
    // Entries and transactions done: their work tables (unlogged) hold rows the later steps need.
    await until(async () => (await stepsDone(resultId)).includes("transactions"), "the transactions step");
    const base = await sql("SELECT c.relpersistence AS p, (SELECT count(*)::int FROM results." + `"r_${resultId}_base"` + ") AS n FROM pg_class c WHERE c.relname = $1", [`r_${resultId}_base`]);
    expect(base[0]).toEqual({ p: "u", n: LEDGER.lines });
    const postmaster = postmasterPid();
    server.process.kill("SIGKILL");
    process.kill(postmaster, "SIGQUIT");
    await until(async () => !alive(postmaster) && (server.process.exitCode !== null || server.process.signalCode !== null), "the server and PostgreSQL to stop", 30_000);
    await start();
    const job = await awaitJob(api, started.body.id, 120_000);
    expect(job.status, JSON.stringify(job)).toBe("COMPLETE");
    // It noticed: recomputed from the base entries (prepare and statistics are logged and kept).
    expect(server.output()).toMatch(/emptied the run's work tables; recomputing.*"from":"entries"/);
    const done = await stepsDone(resultId);
    expect(done.slice(0, 2)).toEqual(["prepare", "statistics"]);
    expect(new Set(done).size).toBe(done.length);
    // Row for row the uninterrupted run's tables.
    for (const name of ["lines", "tx", "flows", "w_pairs", "w_signatures", "ta_account", "ta_user_id", "ta_type"]) {
      const [a, b] = [`results."r_${referenceId}_${name}"`, `results."r_${resultId}_${name}"`];
      const [diff] = await sql(`SELECT (SELECT count(*)::int FROM (SELECT * FROM ${a} EXCEPT ALL SELECT * FROM ${b}) x) AS missing, (SELECT count(*)::int FROM (SELECT * FROM ${b} EXCEPT ALL SELECT * FROM ${a}) y) AS extra, (SELECT count(*)::int FROM ${b}) AS n`);
      expect({ name, ...diff }).toEqual({ name, missing: 0, extra: 0, n: expect.any(Number) });
      if (name === "lines") expect(diff.n).toBe(LEDGER.lines);
    }
    const summaries = await sql("SELECT id, summary FROM analysis_result WHERE id = ANY($1)", [[referenceId, resultId]]);
    expect(summaries[0].summary).toEqual(summaries[1].summary);
    // No work table left behind.
    const left = await sql("SELECT relname FROM pg_class WHERE relpersistence = 'u' AND starts_with(relname, $1)", [`r_${resultId}_`]);
    expect(left).toEqual([]);
  }, 240_000);
});
