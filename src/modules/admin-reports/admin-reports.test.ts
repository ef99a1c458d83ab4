import ExcelJS from "exceljs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { allRows, ledgerAnalysis, resultTable, runAnalysis } from "../../../test/helpers/analysis-run.js";
import { awaitJob, clientWithPermissions } from "../../../test/helpers/entities.js";
import { ledgerCsv, type Tx } from "../../../test/helpers/planted-ledger.js";

/** The three admin reports over one small scored analysis, read back from the .xlsx bytes. */
let server: TestServer;
let fixture: { engagementId: string; analysisId: string };
let resultId: string;
let windowStart: string;

const tx = (txid: string, date: string, debit: string, credit: string, amount: number): Tx => ({
  txid,
  date,
  type: "AP",
  user: "ap_clerk",
  memo: `Bill ${txid}`,
  lines: [{ account: debit, amount }, { account: credit, amount: -amount }],
});
const LEDGER: Tx[] = [tx("T1", "2023-05-10", "5400", "2000", 10_001), tx("T2", "2023-05-13", "5400", "2000", 10_003), tx("T3", "2023-05-12", "5400", "2000", 500_000), tx("T4", "2023-05-15", "1000", "4000", 20_011)];

/** Runs a report through REST, waits, downloads the file result and returns its first sheet as objects by header. */
async function report(path: string, body: unknown = {}) {
  const started = await server.api.post(path, body);
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  expect(started.body).toMatchObject({ type: "ADMIN_REPORT", entityType: "FILE_RESULT", status: "IN_PROGRESS" });
  const done = await awaitJob(server.api, started.body.id, 30_000);
  expect(done.status, JSON.stringify(done)).toBe("COMPLETE");
  const file = await server.api.get(`/file-results/${done.entityId}`);
  expect(file.body.fileName).toMatch(/\.xlsx$/);
  const response = await fetch(`${server.url}/api/v1/file-results/${done.entityId}/export`, { headers: { authorization: `Bearer ${server.token}` } });
  expect(response.status).toBe(200);
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(Buffer.from(await response.arrayBuffer()) as never);
  const sheet = workbook.worksheets[0];
  const headers = (sheet.getRow(1).values as unknown[]).slice(1).map(String);
  const rows: Array<Record<string, unknown>> = [];
  sheet.eachRow((row, n) => {
    if (n === 1) return;
    const values = (row.values as unknown[]).slice(1);
    rows.push(Object.fromEntries(headers.map((h, i) => [h, values[i] ?? null])));
  });
  return { rows, fileResultId: done.entityId as string, headers };
}

beforeAll(async () => {
  server = await startTestServer();
  windowStart = new Date(Date.now() - 60_000).toISOString();
  fixture = await ledgerAnalysis(server, "Reports", ledgerCsv(LEDGER));
  resultId = (await runAnalysis(server, fixture.analysisId)).result.id;
}, 180_000);
afterAll(async () => server?.close());

describe("admin reports", () => {
  it("analysis overview: one row per analysis with its last run and entry counts per risk level", async () => {
    const { rows, fileResultId } = await report("/admin-reports/analysis-overview-report/run");
    const row = rows.find((r) => r["Analysis id"] === fixture.analysisId)!;
    expect(row).toBeDefined();
    const engagement = (await server.api.get(`/engagements/${fixture.engagementId}`)).body;
    const organization = (await server.api.get(`/organizations/${engagement.organizationId}`)).body;
    expect(row).toMatchObject({ Organization: organization.name, Engagement: engagement.name, Analysis: "Reports GL", "Analysis type": "General ledger", "Last run status": "COMPLETED", Entries: 8, Transactions: 4 });
    expect(row["Last run"]).toBeInstanceOf(Date);
    expect(row["Period start"]).toBeInstanceOf(Date);
    const lines = await allRows(server, (await resultTable(server, resultId, "gl_journal_lines")).id);
    for (const [level, header] of [["HIGH", "High risk entries"], ["MEDIUM", "Medium risk entries"], ["LOW", "Low risk entries"], ["UNSCORED", "Unscored entries"]]) {
      expect(row[header] ?? 0, header).toBe(lines.filter((l) => l.risk_level === level).length);
    }
    // The file result belongs to the token that started the report.
    const other = await clientWithPermissions(server.api, ["api.admin-reports.run"], "other admin");
    expect((await other.get(`/file-results/${fileResultId}`)).status).toBe(404);
  });

  it("needs api.admin-reports.run", async () => {
    const reader = await clientWithPermissions(server.api, ["api.analyses.read"], "reader");
    expect((await reader.post("/admin-reports/analysis-overview-report/run", {})).status).toBe(403);
    expect((await reader.post("/admin-reports/row-usage-report/run", { start: windowStart, end: new Date().toISOString() })).status).toBe(403);
  });

  it("activity: the window's actions by category and user, with bad input a 400 naming the key", async () => {
    const filter = await server.api.post("/saved-filters", {
      name: { en: "Activity" },
      filterType: "ENGAGEMENT",
      dataType: "ENTRIES",
      engagementId: fixture.engagementId,
      condition: { type: "GROUP", operator: "AND", conditions: [{ type: "DATE", field: "effective_date", dateType: "AFTER", value: "2023-01-01" }] },
    });
    expect(filter.status).toBe(200);
    const end = new Date(Date.now() + 60_000).toISOString();
    const { rows } = await report("/admin-reports/activity-report/run", { start: windowStart, end, categories: ["FILTER", "ANALYSIS"], userIds: [], onlyCompletedAnalyses: true });
    expect(rows.find((r) => r["Item id"] === filter.body.id)).toMatchObject({ Category: "FILTER", Action: "saved-filter.created", "Item type": "SAVED_FILTER", "User id": filter.body.createdUserInfo.userId });
    expect(rows.some((r) => r["Item id"] === fixture.analysisId && r.Category === "ANALYSIS")).toBe(true);
    expect(rows.every((r) => r.Category === "FILTER" || r.Category === "ANALYSIS")).toBe(true);
    const nobody = await report("/admin-reports/activity-report/run", { start: windowStart, end, userIds: ["5cc9076887f13cb8a7a19200"] });
    expect(nobody.rows).toEqual([]);
    const backwards = await server.api.post("/admin-reports/activity-report/run", { start: end, end: windowStart });
    expect(backwards.status).toBe(400);
    expect(backwards.body.problems[0].identifier).toBe("end");
    const category = await server.api.post("/admin-reports/activity-report/run", { start: windowStart, end, categories: ["NOPE"] });
    expect(category.status).toBe(400);
    expect(JSON.stringify(category.body.problems)).toContain("categories");
    const zoneless = await server.api.post("/admin-reports/row-usage-report/run", { start: "2025-01-01T00:00:00", end });
    expect(zoneless.status).toBe(400);
  });

  it("row usage: rows ingested and analysed per engagement in the window", async () => {
    const end = new Date(Date.now() + 60_000).toISOString();
    const { rows } = await report("/admin-reports/row-usage-report/run", { start: windowStart, end });
    expect(rows.find((r) => r["Engagement id"] === fixture.engagementId)).toMatchObject({ "Sources ingested": 1, "Rows ingested": 8, "Analysis runs": 1, "Rows analysed": 8 });
    const before = await report("/admin-reports/row-usage-report/run", { start: "2020-01-01T00:00:00Z", end: "2020-02-01T00:00:00Z" });
    expect(before.rows).toEqual([]);
  });

  it("GraphQL starts the same jobs", async () => {
    const started = await server.gql(`mutation { runAnalysisOverviewReport { id type entityType status } }`);
    expect(started.body.errors).toBeUndefined();
    expect(started.body.data.runAnalysisOverviewReport).toMatchObject({ type: "ADMIN_REPORT", entityType: "FILE_RESULT" });
    expect((await awaitJob(server.api, started.body.data.runAnalysisOverviewReport.id, 30_000)).status).toBe("COMPLETE");
  });
});
