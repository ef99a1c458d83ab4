import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { postFormData } from "../helpers/multipart.js";
import type { RestClient } from "../helpers/client.js";

// Issue 13, done when: "a script written against the real API's models creates, uploads,
// ingests, verifies and reaches a ready analysis without a validation error". This is that script,
// written the way an existing client of the real API works (wire reference sections 2, 4, 5 and 8):
// it reads only the keys the wire reference names, uploads with the platform's FormData as a
// browser does, polls async results with the documented `$and` filter, and every response it
// receives is validated against the committed OpenAPI document by the test client (exact types,
// no undocumented keys), so a shape the document does not show fails here.
//
// POST /account-mappings/verify marks every account mapping of the engagement verified (spec), so
// the analysis is ready right after it even when inference left accounts without a group; those
// stay visible in `unmappedAccountMappingCount`. The run step follows wire reference 4; while this
// deployment has no analysis engine registered, POST /analyses/{id}/run answers 409 saying so and
// that test is reported as skipped (never passed).

const GENERAL_LEDGER = "4b8360d00000000000000000";
const GENERAL_LEDGER_JOURNAL = "4b8361d00000000000000000";

// A small, balanced journal with a typical chart of accounts (descriptions as small-business packages write them).
const LEDGER = [
  "Entry No,Date,Account,Account Description,Memo,Debit,Credit",
  "1001,2024-01-05,1000,Cash - Operating,Opening deposit,5000.00,",
  "1001,2024-01-05,3000,Owner's Equity,Opening deposit,,5000.00",
  "1002,2024-01-12,6100,Office Supplies Expense,Paper and toner,120.50,",
  "1002,2024-01-12,1000,Cash - Operating,Paper and toner,,120.50",
  "1003,2024-02-03,1200,Accounts Receivable - Trade,Invoice 4411,2400.00,",
  "1003,2024-02-03,4000,Sales Revenue,Invoice 4411,,2400.00",
  "1004,2024-02-20,1000,Cash - Operating,Payment 4411,2400.00,",
  "1004,2024-02-20,1200,Accounts Receivable - Trade,Payment 4411,,2400.00",
  "1005,2024-03-15,6500,Rent Expense,March rent,1500.00,",
  "1005,2024-03-15,2000,Accounts Payable,March rent,,1500.00",
].join("\n") + "\n";

let server: TestServer;
let api: RestClient;
let readyAnalysisId: string | undefined;

beforeAll(async () => {
  server = await startTestServer();
  api = server.api;
});
afterAll(async () => server?.close());

/** Wire reference 4: poll POST /async-results/query until the job leaves IN_PROGRESS. */
async function pollIngestion(sourceId: string): Promise<{ status: string; error?: string }> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const page = await api.post("/async-results/query?page=0", {
      $and: [{ entityId: sourceId }, { type: "ANALYSIS_SOURCE_INGESTION" }, { entityType: "ANALYSIS_SOURCE" }],
    });
    expect(page.status).toBe(200);
    expect(page.body.content.length).toBeGreaterThan(0);
    const newest = [...page.body.content].sort((a, b) => b.lastModifiedDate.localeCompare(a.lastModifiedDate))[0];
    if (newest.status !== "IN_PROGRESS") return newest;
    if (Date.now() > deadline) throw new Error("ingestion did not finish");
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("a client of the real API: create, upload, ingest, verify, ready", () => {
  it("runs the whole script and every response matches the published document", async () => {
    // 1. Organization, engagement, analysis.
    const organization = await api.post("/organizations", { name: "Harbour Supplies Ltd", externalClientCode: "HS-01" });
    expect(organization.status).toBe(200);
    const engagement = await api.post("/engagements", {
      organizationId: organization.body.id,
      name: "FY2024 audit",
      accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" },
      auditPeriodEndDate: "2024-12-31",
    });
    expect(engagement.status).toBe(200);
    const analysis = await api.post("/analyses", {
      engagementId: engagement.body.id,
      analysisTypeId: GENERAL_LEDGER,
      name: "GL FY2024",
      analysisPeriods: [{ startDate: "2024-01-01", endDate: "2024-12-31" }],
    });
    expect(analysis.status).toBe(200);
    const period = analysis.body.analysisPeriods[0];

    // 2. Upload as a browser does: the JSON part is a Blob (it gets a filename).
    const form = new FormData();
    form.append("fileManagerFile", new Blob([JSON.stringify({ engagementId: engagement.body.id, name: "journal" })], { type: "application/json" }));
    form.append("file", new Blob([LEDGER], { type: "text/csv" }), "journal.csv");
    const file = await postFormData(server.url, server.token, "/file-manager/import", form);
    expect(file.status, JSON.stringify(file.body)).toBe(200);
    expect(file.body).toMatchObject({ type: "FILE", name: "journal", extension: "csv", originalName: "journal.csv" });

    // 3. Ingest with full automation; the start response is the async result, its target exists at once.
    const started = await api.post("/analysis-sources", {
      engagementId: engagement.body.id,
      analysisId: analysis.body.id,
      analysisPeriodId: period.id,
      analysisSourceTypeId: GENERAL_LEDGER_JOURNAL,
      fileManagerFileId: file.body.id,
      targetWorkflowState: "COMPLETED",
    });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ type: "ANALYSIS_SOURCE_INGESTION", entityType: "ANALYSIS_SOURCE", status: "IN_PROGRESS" });
    expect((await api.get(`/analysis-sources/${started.body.entityId}`)).status).toBe(200);
    const job = await pollIngestion(started.body.entityId);
    expect(job.status, job.error).toBe("COMPLETE");

    // 4. The source as the wire reference reads it.
    const source = (await api.get(`/analysis-sources/${started.body.entityId}`)).body;
    expect(source).toMatchObject({ workflowState: "COMPLETED", errors: [], warnings: [] });
    const fileInfo = await api.get(`/file-info/${source.fileInfoVersions.ORIGINAL}`);
    expect(fileInfo.status).toBe(200);
    expect(fileInfo.body.type).toBe("TABULAR_FILE_INFO");
    const metrics = await api.get(`/analysis-sources/${source.id}/effective-date-metrics?period=MONTH`);
    expect(metrics.body).toMatchObject({ periodType: "MONTH", entriesInPeriod: 10, entriesOutOfPeriod: 0, debitsInPeriod: 1142050, creditsInPeriod: 1142050 });
    const previews = await api.post("/transaction-id-previews/query", { analysisSourceId: source.id });
    for (const preview of previews.body.content) for (const indicator of Object.values(preview.indicators) as Array<{ data: unknown[] }>) expect(Array.isArray(indicator.data)).toBe(true);

    // 5. Status before verifying: the accounts wait for verification.
    const before = (await api.get(`/analyses/${analysis.body.id}/status`)).body;
    expect(before.sourceStatuses).toEqual([{ sourceId: source.id, analysisSourceTypeId: GENERAL_LEDGER_JOURNAL, periodId: period.id, status: "COMPLETED" }]);
    expect(before.ready).toBe(false);
    expect(before.preflightErrors).toEqual(["UNVERIFIED_ACCOUNT_MAPPINGS"]);

    // 6. Verify the engagement's account mappings ({engagementId}, as the wire reference sends it).
    const verified = await api.post("/account-mappings/verify", { engagementId: engagement.body.id });
    expect(verified.status).toBe(200);

    // 7. Ready at once; accounts inference left without a group are counted, not hidden.
    const ready = (await api.get(`/analyses/${analysis.body.id}/status`)).body;
    const mappings = (await api.post("/account-mappings/query?size=100", { engagementId: engagement.body.id })).body.content as Array<{ account: string; code?: string | null; status: string }>;
    expect(mappings.map((m) => m.account).sort()).toEqual(["1000", "1200", "2000", "3000", "4000", "6100", "6500"]);
    expect(mappings.every((m) => m.status === "VERIFIED")).toBe(true);
    expect(ready).toMatchObject({ ready: true, preflightErrors: [], unmappedAccountMappingCount: mappings.filter((m) => !m.code).length });
    expect(ready.mappedAccountMappingCount + ready.inferredAccountMappingCount + ready.unmappedAccountMappingCount).toBe(mappings.length);
    readyAnalysisId = analysis.body.id;
  });

  it("runs the ready analysis as wire reference 4 describes (the run's result exists at once, its async result completes)", async (context) => {
    expect(readyAnalysisId, "the script above reached a ready analysis").toBeTruthy();
    const started = await api.post(`/analyses/${readyAnalysisId}/run`, {});
    if (started.status === 409 && /no analysis engine/.test(started.body.title + JSON.stringify(started.body.problems))) {
      context.skip("this deployment has no analysis engine registered yet (issue 14): POST /run answers 409");
    }
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(started.body).toMatchObject({ type: "ANALYSIS_RUN", entityType: "ANALYSIS_RESULT", entityId: expect.stringMatching(/^[0-9a-f]{24}$/) });
    const resultId = started.body.entityId;
    // The run creates its analysis result before answering: callers GET it at once, and find it as the newest of the analysis.
    expect((await api.get(`/analysis-results/${resultId}`)).body).toMatchObject({ id: resultId, analysisId: readyAnalysisId, analysisTypeId: GENERAL_LEDGER });
    const results = (await api.post("/analysis-results/query?size=100", { analysisId: readyAnalysisId })).body.content as Array<{ id: string; creationDate: string }>;
    expect([...results].sort((a, b) => b.creationDate.localeCompare(a.creationDate))[0].id).toBe(resultId);
    // Poll the async result with that entityId, type ANALYSIS_RUN and entityType ANALYSIS_RESULT until it leaves IN_PROGRESS.
    const deadline = Date.now() + 300_000;
    let job: { status: string; error?: string };
    for (;;) {
      const page = await api.post("/async-results/query?page=0", { $and: [{ entityId: resultId }, { type: "ANALYSIS_RUN" }, { entityType: "ANALYSIS_RESULT" }] });
      expect(page.body.content).toHaveLength(1);
      job = page.body.content[0];
      if (job.status !== "IN_PROGRESS" || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(job.status, job.error).toBe("COMPLETE");
    expect((await api.get(`/analyses/${readyAnalysisId}`)).body.latestAnalysisResultId).toBe(resultId);
  });
});
