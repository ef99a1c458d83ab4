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
// On this branch, POST /account-mappings/verify still verifies only the mapped accounts, so the
// accounts inference left unmapped keep the analysis at UNVERIFIED_ACCOUNT_MAPPINGS until a code
// is set on each of them (step 7 asserts exactly that); issue 13 point 10 (the mapping helper's
// branch) changes verify to make the analysis ready right away. Step 8 then does what a user does
// today, maps the rest by hand and verifies again, and the analysis is ready.

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
    expect(before.preflightErrors).toContain("UNVERIFIED_ACCOUNT_MAPPINGS");

    // 6. Verify the engagement's account mappings ({engagementId}, as the wire reference sends it).
    const verified = await api.post("/account-mappings/verify", { engagementId: engagement.body.id });
    expect(verified.status).toBe(200);

    // 7. Today (see the note above): accounts left unmapped by inference still hold the analysis.
    const afterVerify = (await api.get(`/analyses/${analysis.body.id}/status`)).body;
    const unmapped = (await api.post("/account-mappings/query?size=100", { engagementId: engagement.body.id, status: "UNMAPPED" })).body.content as Array<{ id: string; version: number }>;
    expect(afterVerify.unmappedAccountMappingCount).toBe(unmapped.length);
    expect(unmapped.length).toBeGreaterThan(0);
    expect(afterVerify).toMatchObject({ ready: false, preflightErrors: ["UNVERIFIED_ACCOUNT_MAPPINGS"] });

    // 8. What a user does today: give each remaining account a lowest-level group, verify again: ready.
    const grouping = (await api.post("/engagement-account-groupings/query", { engagementId: engagement.body.id })).body.content[0];
    const lowest = (await api.post("/engagement-account-groups/query?size=1&sort=code,asc", { engagementAccountGroupingId: grouping.id, lowestLevel: true })).body.content[0];
    for (const mapping of unmapped) {
      const updated = await api.put(`/account-mappings/${mapping.id}`, { code: lowest.code, version: mapping.version });
      expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    }
    expect((await api.post("/account-mappings/verify", { engagementId: engagement.body.id })).status).toBe(200);
    const ready = (await api.get(`/analyses/${analysis.body.id}/status`)).body;
    expect(ready).toMatchObject({ ready: true, preflightErrors: [], unmappedAccountMappingCount: 0 });
  });
});
