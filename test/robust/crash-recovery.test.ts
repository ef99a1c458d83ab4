import { createHash, randomBytes } from "node:crypto";
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { balancedLedger, CrashHarness, expectNoJobLeftRunning, expectNothingLeftHalfDone, runCrashCase, type CrashCase } from "../helpers/crash-harness.js";
import { GENERAL_LEDGER_ANALYSIS_TYPE, GL_SOURCE_TYPE } from "../helpers/analysis-sources.js";
import { awaitJob, createEngagement } from "../helpers/entities.js";
import { postMultipart } from "../helpers/multipart.js";

// Issue 16 point 2: kill -9 of the server during each long operation, then a restart. After it
// every job resumes or fails with a cause (and can be retried), rows are neither partial nor
// doubled (counts and sums), no half-written file stays in storage, and no async result stays
// IN_PROGRESS. One server process at a time on one database and DATA_DIR; the cases run in order
// (the restarted server of one case is the server the next one crashes).
//
// Analysis runs: crash-analysis.test.ts; webhook deliveries: test/webhooks-processes.test.ts.

let h: CrashHarness;
let engagementId: string;
let analysisId: string;
let periodId: string;

beforeAll(async () => {
  h = await CrashHarness.create();
  await h.start();
  const engagement = await createEngagement(h.api, "Crash tests");
  engagementId = engagement.id;
  const analysis = await h.api.post("/analyses", { engagementId, analysisTypeId: GENERAL_LEDGER_ANALYSIS_TYPE, name: "GL", analysisPeriods: [{ startDate: "2023-01-01", endDate: "2023-12-31" }] });
  expect(analysis.status).toBe(200);
  analysisId = analysis.body.id;
  periodId = analysis.body.analysisPeriods[0].id;
}, 120_000);
afterAll(async () => h?.close());

const sha = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

async function download(path: string): Promise<Buffer> {
  const response = await fetch(`${h.server.url}/api/v1${path}`, { headers: { authorization: `Bearer ${h.token}` } });
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

// Big enough that each step lasts a moment the test can catch (size is the point here).
const LEDGER = balancedLedger(25_000);
let ledgerFileId: string;
/** The last source parsed (its data table feeds the export case). */
let parsedSourceId: string | undefined;

/** A raw multipart upload that sends `sent` bytes of a larger declared body and then stalls. */
function stalledUpload(name: string, sent: number, declared: number): void {
  const boundary = "crashBoundary";
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="fileManagerFile"\r\nContent-Type: application/json\r\n\r\n${JSON.stringify({ engagementId, name })}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}.csv"\r\nContent-Type: text/csv\r\n\r\n`,
  );
  const url = new URL(h.server.url);
  const req = httpRequest({ host: url.hostname, port: url.port, method: "POST", path: "/api/v1/file-manager/import", headers: { authorization: `Bearer ${h.token}`, "content-type": `multipart/form-data; boundary=${boundary}`, "content-length": String(head.length + declared + 64) } });
  req.on("error", () => undefined); // the server dies mid-request
  req.write(head);
  req.write(randomBytes(sent));
}

const uploadCase: CrashCase<{ bytes: Buffer }> = {
  name: "upload",
  async prepare() {
    return { bytes: randomBytes(3 * 2 ** 20) };
  },
  async begin() {
    stalledUpload("interrupted-upload", 2 * 2 ** 20, 8 * 2 ** 20);
  },
  crashPoint: () => h.temporaries().some((t) => t.size >= 2 ** 20),
  async afterCrash() {
    // Cut off mid-body: only a temporary holds its bytes.
    expect(h.temporaries().length).toBeGreaterThan(0);
  },
  async verify(_h, state) {
    const listed = await h.api.post("/file-manager/query", { engagementId, name: "interrupted-upload" });
    expect(listed.body.totalElements).toBe(0);
    // Retried, the upload goes through whole.
    const retried = await postMultipart(h.server.url, h.token, "/file-manager/import", [
      { name: "fileManagerFile", json: { engagementId, name: "interrupted-upload" } },
      { name: "file", filename: "interrupted-upload.bin", data: state.bytes },
    ]);
    expect(retried.status).toBe(200);
    expect(sha(await download(`/file-manager/${retried.body.id}/export`))).toBe(sha(state.bytes));
  },
};

const chunkedCase: CrashCase<{ chunkedFileId: string; bytes: Buffer; request?: Promise<unknown>; answered: boolean }> = {
  name: "chunked assembly",
  async prepare() {
    const part = 16 * 2 ** 20;
    const bytes = randomBytes(4 * part);
    const created = await h.api.post("/chunked-files", { name: "assembled.bin", size: bytes.length });
    for (let offset = 0; offset < bytes.length; offset += part) {
      const sent = await postMultipart(h.server.url, h.token, `/chunked-files/${created.body.id}/part`, [
        { name: "chunkedFilePart", json: { offset, size: part } },
        { name: "fileChunk", filename: "part", data: bytes.subarray(offset, offset + part) },
      ]);
      expect(sent.status).toBe(200);
    }
    return { chunkedFileId: created.body.id, bytes, answered: false };
  },
  async begin(_h, state) {
    state.request = h.api.post("/file-manager/create-from-chunked-file", { chunkedFileId: state.chunkedFileId, engagementId, name: "assembled" }).then(
      () => (state.answered = true),
      () => undefined,
    );
  },
  // The assembled copy is being written.
  crashPoint: () => h.temporaries().some((t) => t.size > 0),
  async afterCrash(_h, state) {
    expect(state.answered).toBe(false);
  },
  async verify(_h, state) {
    expect((await h.api.post("/file-manager/query", { engagementId, name: "assembled" })).body.totalElements).toBe(0);
    // The chunked file is intact: assembling again gives the whole file, once.
    const retried = await h.api.post("/file-manager/create-from-chunked-file", { chunkedFileId: state.chunkedFileId, engagementId, name: "assembled" });
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(sha(await download(`/file-manager/${retried.body.id}/export`))).toBe(sha(state.bytes));
    expect((await h.api.post("/file-manager/query", { engagementId, name: "assembled" })).body.totalElements).toBe(1);
  },
};

interface SourceState {
  asyncResultId: string;
  sourceId: string;
}

/** The entries of a COMPLETED source against the file: every line once, amounts exact. */
async function expectExactEntries(sourceId: string): Promise<void> {
  const tables = await h.sql<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = 'ingest' AND table_name LIKE $1", [`%${sourceId}%`]);
  const names = tables.map((t) => t.table_name);
  // No half-built tables of the interrupted attempt (built ahead, or a replaced parse) are left.
  expect(names.filter((n) => n.endsWith("_ahead"))).toEqual([]);
  const entries = names.find((n) => n.startsWith("entries_"))!;
  const tx = names.find((n) => n.startsWith("tx_"))!;
  const [sums] = await h.sql(`SELECT count(*)::int AS rows, count(DISTINCT row_no)::int AS distinct_rows, sum(debit)::text AS debit, sum(credit)::text AS credit FROM ingest."${entries}"`);
  expect(sums).toEqual({ rows: LEDGER.lines, distinct_rows: LEDGER.lines, debit: String(LEDGER.debitCents), credit: String(LEDGER.creditCents) });
  const [transactions] = await h.sql(`SELECT count(*)::int AS n, count(*) FILTER (WHERE NOT balanced)::int AS unbalanced FROM ingest."${tx}"`);
  expect(transactions).toEqual({ n: LEDGER.journals, unbalanced: 0 });
  // The API agrees: the data tables carry the same counts.
  const dataTables = await h.api.post("/data-tables/query", { analysisSourceId: sourceId });
  expect(dataTables.body.content.map((t: { type: string; rowCount: number }) => [t.type, t.rowCount]).sort()).toEqual([
    ["entries", LEDGER.lines],
    ["transactions", LEDGER.journals],
  ]);
}

/** One workflow step: the source walks to COMPLETED and the server dies once it entered `state`. */
function stepCase(step: string, state: string): CrashCase<SourceState> {
  return {
    name: `ingestion: ${step}`,
    async prepare() {
      ledgerFileId ??= (
        await postMultipart(h.server.url, h.token, "/file-manager/import", [
          { name: "fileManagerFile", json: { engagementId, name: "ledger" } },
          { name: "file", filename: "ledger.csv", contentType: "text/csv", data: LEDGER.text },
        ])
      ).body.id;
      const started = await h.api.post("/analysis-sources", { engagementId, analysisId, analysisPeriodId: periodId, analysisSourceTypeId: GL_SOURCE_TYPE, fileManagerFileId: ledgerFileId, targetWorkflowState: "COMPLETED" });
      expect(started.status, JSON.stringify(started.body)).toBe(200);
      return { asyncResultId: started.body.id, sourceId: started.body.entityId };
    },
    async begin() {},
    crashPoint: async (_h, s) => (await h.sql("SELECT workflow_state FROM analysis_source WHERE id = $1", [s.sourceId]))[0]?.workflow_state === state,
    async afterCrash(_h, s) {
      // The crash interrupted the step: the source rests in its Transition, the job IN_PROGRESS.
      expect((await h.sql("SELECT workflow_state FROM analysis_source WHERE id = $1", [s.sourceId]))[0].workflow_state).toBe(state);
      expect((await h.sql("SELECT status FROM async_result WHERE id = $1", [s.asyncResultId]))[0].status).toBe("IN_PROGRESS");
    },
    async verify(_h, s) {
      const job = await awaitJob(h.api, s.asyncResultId, 90_000);
      expect(job.status, JSON.stringify(job)).toBe("COMPLETE");
      expect((await h.api.get(`/analysis-sources/${s.sourceId}`)).body.workflowState).toBe("COMPLETED");
      await expectExactEntries(s.sourceId);
      parsedSourceId = s.sourceId;
    },
  };
}

const exportCase: CrashCase<{ asyncResultId: string; fileResultId: string }> = {
  name: "data table export",
  async prepare() {
    const tables = await h.api.post("/data-tables/query", { analysisSourceId: parsedSourceId, type: "entries" });
    const started = await h.api.post(`/data-tables/${tables.body.content[0].id}/export`, { fields: ["txid", "account", "debit", "credit"] });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    return { asyncResultId: started.body.id, fileResultId: started.body.entityId };
  },
  async begin() {},
  // The CSV is being written.
  crashPoint: () => h.temporaries().some((t) => t.size > 0),
  async afterCrash(_h, s) {
    expect((await h.sql("SELECT ready FROM file_result WHERE id = $1", [s.fileResultId]))[0].ready).toBe(false);
  },
  async verify(_h, s) {
    const job = await awaitJob(h.api, s.asyncResultId, 60_000);
    expect(job.status, JSON.stringify(job)).toBe("COMPLETE");
    const csv = (await download(`/file-results/${s.fileResultId}/export`)).toString("utf8").trimEnd().split(/\r?\n/);
    expect(csv[0]).toBe("txid,account,debit,credit");
    expect(csv.length - 1).toBe(LEDGER.lines);
    let debit = 0;
    let credit = 0;
    const seen = new Set<string>();
    for (const line of csv.slice(1)) {
      const [txid, account, d, c] = line.split(",");
      seen.add(`${txid}/${account}`);
      // MONEY_100 columns are exported as integers of cents, as the data endpoint answers them.
      debit += Number(d || 0);
      credit += Number(c || 0);
    }
    expect(seen.size).toBe(LEDGER.lines);
    expect([debit, credit]).toEqual([LEDGER.debitCents, LEDGER.creditCents]);
  },
};

const jsonTableCase: CrashCase<{ jsonTableId: string; rows: number; total: number; answered: boolean }> = {
  name: "JSON table merge",
  async prepare() {
    const table = (await h.api.post("/json-tables", {})).body;
    const pageRows = 60_000;
    let total = 0;
    for (let page = 0; page < 4; page++) {
      const rows = Array.from({ length: pageRows }, (_, i) => {
        const amount = page * pageRows + i;
        total += amount;
        return { row: page * pageRows + i, amount, memo: "x".repeat(20) };
      });
      expect((await h.api.post(`/json-tables/${table.id}/append`, rows)).status).toBe(200);
    }
    return { jsonTableId: table.id, rows: 4 * pageRows, total, answered: false };
  },
  async begin(_h, s) {
    void h.api.post("/file-manager/import-from-json-table", { engagementId, jsonTableId: s.jsonTableId, name: "merged" }).then(
      () => (s.answered = true),
      () => undefined,
    );
  },
  crashPoint: () => h.temporaries().some((t) => t.size > 0),
  async afterCrash(_h, s) {
    expect(s.answered).toBe(false);
  },
  async verify(_h, s) {
    expect((await h.api.post("/file-manager/query", { engagementId, name: "merged" })).body.totalElements).toBe(0);
    const retried = await h.api.post("/file-manager/import-from-json-table", { engagementId, jsonTableId: s.jsonTableId, name: "merged" });
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    const csv = (await download(`/file-manager/${retried.body.id}/export`)).toString("utf8").trimEnd().split(/\r?\n/);
    expect(csv[0]).toBe("row,amount,memo");
    expect(csv.length - 1).toBe(s.rows);
    const sum = csv.slice(1).reduce((n, line) => n + Number(line.split(",")[1]), 0);
    expect(sum).toBe(s.total);
    expect(new Set(csv.slice(1).map((line) => line.split(",")[0])).size).toBe(s.rows);
  },
};

describe("kill -9 during each long operation, then a restart", () => {
  const cases: Array<CrashCase<any>> = [
    uploadCase,
    chunkedCase,
    stepCase("staging", "FORMAT_DETECTION_COMPLETED"),
    stepCase("effective dates", "ANALYZING_EFFECTIVE_DATE_METRICS"),
    stepCase("transaction ids", "CHECKING_INTEGRITY"),
    stepCase("parse", "PARSING"),
    exportCase,
    jsonTableCase,
  ];
  for (const scenario of cases) {
    it(`${scenario.name}: resumes or fails with a cause, nothing partial or doubled`, async () => {
      await runCrashCase(h, scenario);
      await expectNoJobLeftRunning(h);
    }, 150_000);
  }

  it("a job interrupted once more than its attempts allow fails with the cause, and the source can be made again", async () => {
    const first = await stepCase("staging", "FORMAT_DETECTION_COMPLETED").prepare(h);
    // Two crashes in one walk: the ingestion job has two attempts.
    for (const state of ["FORMAT_DETECTION_COMPLETED", "ANALYZING_EFFECTIVE_DATE_METRICS"]) {
      await h.until(async () => (await h.sql("SELECT workflow_state FROM analysis_source WHERE id = $1", [first.sourceId]))[0]?.workflow_state === state, state);
      await h.crash();
      await h.start();
    }
    const job = await awaitJob(h.api, first.asyncResultId, 60_000);
    expect(job.status).toBe("ERROR");
    expect(job.error).toMatch(/interrupted/);
    const failed = (await h.api.get(`/analysis-sources/${first.sourceId}`)).body;
    expect(failed.workflowState).toBe("FAILED");
    expect(JSON.stringify(failed.errors)).toMatch(/interrupted/);
    // Retried (a new source on the same file), it completes with exact entries.
    const again = await stepCase("retry", "none").prepare(h);
    expect((await awaitJob(h.api, again.asyncResultId, 90_000)).status).toBe("COMPLETE");
    await expectExactEntries(again.sourceId);
    await expectNoJobLeftRunning(h);
  }, 200_000);

  it("leaves no unfinished write and no unreferenced bytes in storage", async () => {
    await expectNothingLeftHalfDone(h);
  }, 60_000);
});

