import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { balancedLedger, CrashHarness, expectNoJobLeftRunning, runCrashCase, type CrashCase } from "../helpers/crash-harness.js";
import { GENERAL_LEDGER_ANALYSIS_TYPE, GL_SOURCE_TYPE } from "../helpers/analysis-sources.js";
import { awaitJob, createEngagement } from "../helpers/entities.js";
import { postMultipart } from "../helpers/multipart.js";

// Issue 16 point 2, analysis runs: kill -9 of the server while POST /analyses/{id}/run is in its
// steps, then a restart on the same DATA_DIR and database. The run resumes from the steps it
// recorded as done (or, interrupted more often than its attempts allow, fails with the cause and
// leaves no table behind, and a new run succeeds); its result tables hold every entry and
// transaction of the ledger once, sums exact; the analysis's earlier result is untouched.

const LEDGER = balancedLedger(4_000);

let h: CrashHarness;
let analysisId: string;
/** The first, uninterrupted run: the result every later run must leave intact. */
let previous: { id: string; tables: Record<string, TableFacts>; dataTables: number };

interface TableFacts {
  rows: number;
  distinct: number;
  debit: string;
  credit: string;
}

beforeAll(async () => {
  h = await CrashHarness.create();
  await h.start();
  const engagement = await createEngagement(h.api, "Analysis crash");
  const analysis = await h.api.post("/analyses", { engagementId: engagement.id, analysisTypeId: GENERAL_LEDGER_ANALYSIS_TYPE, name: "GL", analysisPeriods: [{ startDate: "2023-01-01", endDate: "2023-12-31" }] });
  expect(analysis.status, JSON.stringify(analysis.body)).toBe(200);
  analysisId = analysis.body.id;
  const file = await postMultipart(h.server.url, h.token, "/file-manager/import", [
    { name: "fileManagerFile", json: { engagementId: engagement.id, name: "ledger" } },
    { name: "file", filename: "ledger.csv", contentType: "text/csv", data: LEDGER.text },
  ]);
  expect(file.status).toBe(200);
  const source = await h.api.post("/analysis-sources", {
    engagementId: engagement.id,
    analysisId,
    analysisPeriodId: analysis.body.analysisPeriods[0].id,
    analysisSourceTypeId: GL_SOURCE_TYPE,
    fileManagerFileId: file.body.id,
    targetWorkflowState: "COMPLETED",
  });
  expect(source.status, JSON.stringify(source.body)).toBe(200);
  expect((await awaitJob(h.api, source.body.id, 60_000)).status).toBe("COMPLETE");
  const verified = await h.api.post("/account-mappings/verify", { engagementId: engagement.id });
  expect(verified.status, JSON.stringify(verified.body)).toBeLessThan(300);
  const first = await startRun();
  expect((await awaitJob(h.api, first.asyncResultId, 60_000)).status).toBe("COMPLETE");
  previous = { id: first.resultId, tables: await tableFacts(first.resultId), dataTables: await dataTableCount(first.resultId) };
  await expectExactResult(first.resultId);
}, 180_000);
afterAll(async () => h?.close());

async function startRun(): Promise<{ asyncResultId: string; resultId: string }> {
  const started = await h.api.post(`/analyses/${analysisId}/run`, {});
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  return { asyncResultId: started.body.id, resultId: started.body.entityId };
}

const stepsDone = async (resultId: string): Promise<string[]> => (await h.sql("SELECT steps_done FROM analysis_result WHERE id = $1", [resultId]))[0]?.steps_done ?? [];

/** The result's tables in PostgreSQL (by suffix: lines, tx, flows, acct, ...) with counts and sums. */
async function tableFacts(resultId: string): Promise<Record<string, TableFacts>> {
  const prefix = `r_${resultId}_`;
  const tables = await h.sql<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'results' AND starts_with(tablename, $1) ORDER BY 1", [prefix]);
  const out: Record<string, TableFacts> = {};
  for (const { name } of tables) {
    const columns = new Set((await h.sql<{ c: string }>("SELECT column_name AS c FROM information_schema.columns WHERE table_schema = 'results' AND table_name = $1", [name])).map((r) => r.c));
    const key = columns.has("row_no") ? "row_no" : columns.has("txid") ? "txid" : null;
    const sum = (c: string) => (columns.has(c) ? `sum(${c})::text` : "NULL");
    const [facts] = await h.sql(`SELECT count(*)::int AS rows, ${key ? `count(DISTINCT ${key})::int` : "count(*)::int"} AS distinct, ${sum("debit")} AS debit, ${sum("credit")} AS credit FROM results."${name}"`);
    out[name.slice(prefix.length)] = facts as TableFacts;
  }
  return out;
}

const dataTableCount = async (resultId: string) => (await h.sql("SELECT count(*)::int AS n FROM data_table WHERE analysis_result_id = $1", [resultId]))[0].n as number;

/** Every entry and transaction of the ledger once in the result's tables, sums exact; the API agrees. */
async function expectExactResult(resultId: string): Promise<void> {
  const facts = await tableFacts(resultId);
  expect(facts.lines).toEqual({ rows: LEDGER.lines, distinct: LEDGER.lines, debit: String(LEDGER.debitCents), credit: String(LEDGER.creditCents) });
  expect(facts.tx).toEqual({ rows: LEDGER.journals, distinct: LEDGER.journals, debit: String(LEDGER.debitCents), credit: String(LEDGER.creditCents) });
  const result = (await h.api.get(`/analysis-results/${resultId}`)).body;
  expect(result.status).toBe("COMPLETED");
  const tables = await h.api.post("/data-tables/query", { analysisResultId: resultId });
  const counts = Object.fromEntries(tables.body.content.map((t: { logicalName: string; rowCount: number }) => [t.logicalName, t.rowCount]));
  expect(counts).toMatchObject({ gl_journal_lines: LEDGER.lines, gl_journal_tx: LEDGER.journals });
}

/** The first run's result is as it was: status, tables row for row, data tables, readable pages. */
async function expectPreviousIntact(): Promise<void> {
  expect((await h.api.get(`/analysis-results/${previous.id}`)).body.status).toBe("COMPLETED");
  expect(await tableFacts(previous.id)).toEqual(previous.tables);
  expect(await dataTableCount(previous.id)).toBe(previous.dataTables);
  const lines = (await h.api.post("/data-tables/query", { analysisResultId: previous.id, logicalName: "gl_journal_lines" })).body.content[0];
  const page = await h.api.post(`/data-tables/${lines.id}/data`, { query: {}, page: 0, pageSize: 10 });
  expect(page.status).toBe(200);
  expect(page.body.content).toHaveLength(10);
}

interface RunState {
  asyncResultId: string;
  resultId: string;
  doneAtCrash?: string[];
}

/** Crashes once the run recorded `step` as done, i.e. while it runs the step after it. */
function runCase(step: string): CrashCase<RunState> {
  return {
    name: `analysis run after step ${step}`,
    prepare: async () => startRun(),
    async begin() {},
    crashPoint: async (_h, s) => (await stepsDone(s.resultId)).includes(step),
    async afterCrash(_h, s) {
      // Interrupted in its steps: the job IN_PROGRESS, the result RUNNING, some steps recorded.
      expect((await h.sql("SELECT status FROM async_result WHERE id = $1", [s.asyncResultId]))[0].status).toBe("IN_PROGRESS");
      expect((await h.sql("SELECT status FROM analysis_result WHERE id = $1", [s.resultId]))[0].status).toBe("RUNNING");
      s.doneAtCrash = await stepsDone(s.resultId);
      expect(s.doneAtCrash).toContain(step);
      expect(s.doneAtCrash).not.toContain("typeahead");
    },
    async verify(_h, s) {
      const job = await awaitJob(h.api, s.asyncResultId, 90_000);
      expect(job.status, JSON.stringify(job)).toBe("COMPLETE");
      // Resumed, not restarted: the steps done before the crash were not run again.
      expect((await h.sql("SELECT attempts FROM async_result WHERE id = $1", [s.asyncResultId]))[0].attempts).toBe(2);
      const done = await stepsDone(s.resultId);
      expect(done.slice(0, s.doneAtCrash!.length)).toEqual(s.doneAtCrash);
      expect(new Set(done).size).toBe(done.length);
      await expectExactResult(s.resultId);
      // The same tables as an uninterrupted run (nothing half-built left over, nothing missing), published once.
      expect(Object.keys(await tableFacts(s.resultId))).toEqual(Object.keys(previous.tables));
      expect(await dataTableCount(s.resultId)).toBe(previous.dataTables);
      expect((await h.api.get(`/analyses/${analysisId}`)).body.latestAnalysisResultId).toBe(s.resultId);
      await expectPreviousIntact();
    },
  };
}

describe("kill -9 during an analysis run, then a restart", () => {
  it("resumes the run from its recorded steps: every entry and transaction once, sums exact, the earlier result intact", async () => {
    await runCrashCase(h, runCase("entries"));
    await expectNoJobLeftRunning(h);
  }, 150_000);

  it("a run interrupted once more than its attempts allow fails with the cause, drops its tables, and a new run succeeds", async () => {
    const latest = (await h.api.get(`/analyses/${analysisId}`)).body.latestAnalysisResultId;
    const run = await startRun();
    // Two crashes in one run: ANALYSIS_RUN has two attempts.
    for (const step of ["prepare", "statistics"]) {
      await h.until(async () => (await stepsDone(run.resultId)).includes(step), `step ${step}`);
      await h.crash();
      await h.start();
    }
    const job = await awaitJob(h.api, run.asyncResultId, 60_000);
    expect(job.status).toBe("ERROR");
    expect(job.error).toMatch(/interrupted/);
    const failed = (await h.api.get(`/analysis-results/${run.resultId}`)).body;
    expect(failed.status).toBe("FAILED");
    expect(failed.error).toMatch(/interrupted/);
    expect(await tableFacts(run.resultId)).toEqual({});
    expect(await dataTableCount(run.resultId)).toBe(0);
    // The analysis keeps its latest result; the earlier one is intact.
    expect((await h.api.get(`/analyses/${analysisId}`)).body.latestAnalysisResultId).toBe(latest);
    await expectPreviousIntact();
    // A new run completes with exact results.
    const again = await startRun();
    expect((await awaitJob(h.api, again.asyncResultId, 60_000)).status).toBe("COMPLETE");
    await expectExactResult(again.resultId);
    expect(Object.keys(await tableFacts(again.resultId))).toEqual(Object.keys(previous.tables));
    await expectNoJobLeftRunning(h);
  }, 200_000);
});
