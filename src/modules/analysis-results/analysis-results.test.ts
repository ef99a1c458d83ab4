import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { subscribe } from "../../../test/helpers/ws-client.js";
import { awaitJob, clientWithPermissions } from "../../../test/helpers/entities.js";
import { allRows, ledgerAnalysis, resultTable, runAnalysis } from "../../../test/helpers/analysis-run.js";
import { background, ledgerCsv, type Tx } from "../../../test/helpers/planted-ledger.js";
import { ingestionTables } from "../../ingestion/index.js";

/**
 * The run and its results through REST and GraphQL: the ANALYSIS_RUN job, the result entity and
 * its data tables, progress per control point, the analysis events, failures that leave the
 * previous result, permissions. A small ledger (about 130 transactions) with one weekend posting.
 */
let server: TestServer;
let analysis: { engagementId: string; analysisId: string; sourceId: string };
let first: Awaited<ReturnType<typeof runAnalysis>>;

function smallLedger(): string {
  const transactions: Tx[] = background(11, { sales: 3, collections: 2, purchases: 3, payroll: 1, supplies: 2 });
  transactions.push({ date: "2023-03-18", type: "AP", user: "ap_clerk", memo: "Weekend bill", lines: [{ account: "5400", amount: 31_415, memo: "Weekend bill per CEO request" }, { account: "2000", amount: -31_415 }] });
  transactions.sort((a, b) => a.date.localeCompare(b.date)).forEach((t, i) => (t.txid = `T${String(i + 1).padStart(5, "0")}`));
  return ledgerCsv(transactions);
}

beforeAll(async () => {
  server = await startTestServer();
  analysis = await ledgerAnalysis(server, "Runs", smallLedger());
}, 120_000);
afterAll(async () => server?.close());

describe("a run", () => {
  it("starts an ANALYSIS_RUN whose target, the new result, exists at once; progress per control point on analysisRunProgress and jobProgress", async () => {
    const events = subscribe<{ entityChanged: { type: string; entityId: string; payload: Record<string, unknown> } }>(server.url, server.token, `subscription { entityChanged(entityType: "ANALYSIS") { type entityId payload } }`);
    await events.ready;
    const started = await server.api.post(`/analyses/${analysis.analysisId}/run`, {});
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(started.body).toMatchObject({ type: "ANALYSIS_RUN", entityType: "ANALYSIS_RESULT", status: "IN_PROGRESS" });
    const resultId = started.body.entityId;
    const progress = subscribe<{ analysisRunProgress: { status: string; percent: number; controlPoint: string | null; controlPointsDone: number; controlPointsTotal: number } }>(
      server.url,
      server.token,
      `subscription($id: ID!) { analysisRunProgress(analysisResultId: $id) { status percent controlPoint controlPointsDone controlPointsTotal } }`,
      { id: resultId },
    );
    const target = await server.api.get(`/analysis-results/${resultId}`);
    expect(target.status).toBe(200);
    expect(target.body).toMatchObject({ id: resultId, analysisId: analysis.analysisId, engagementId: analysis.engagementId, analysisTypeId: "4b8360d00000000000000000", interim: false });
    expect(["RUNNING", "COMPLETED"]).toContain(target.body.status);

    const job = await awaitJob(server.api, started.body.id, 60_000);
    expect(job.status, JSON.stringify(job)).toBe("COMPLETE");
    await progress.next((e) => e.analysisRunProgress.status === "COMPLETED");
    const seen = progress.events.map((e) => e.analysisRunProgress);
    const points = seen.map((p) => p.controlPoint).filter(Boolean);
    // Either the run was followed from its start (a progress event per control point) or it had finished when the subscription read it.
    if (seen[0].status === "RUNNING") {
      expect(new Set(points).size).toBeGreaterThan(20);
      expect(points).toContain("journal_entry_weekend_post");
      const percents = seen.map((p) => p.percent);
      expect(percents).toEqual([...percents].sort((a, b) => a - b));
    }
    expect(seen.at(-1)).toMatchObject({ status: "COMPLETED", percent: 100 });

    await events.next((e) => e.entityChanged.type === "analysis.complete" && e.entityChanged.entityId === analysis.analysisId);
    const complete = events.events.find((e) => e.entityChanged.type === "analysis.complete")!.entityChanged;
    expect(complete.payload).toEqual({ analysisId: analysis.analysisId, analysisResultId: resultId, engagementId: analysis.engagementId });
    await events.close();
    await progress.close();
    first = { job, asyncResultId: started.body.id, result: (await server.api.get(`/analysis-results/${resultId}`)).body };
  });

  it("completes the result: status, summary, the analysis's latest result and its status", async () => {
    expect(first.result).toMatchObject({ status: "COMPLETED", analysisPeriods: [{ startDate: "2023-01-01", endDate: "2023-12-31" }] });
    expect(first.result.summary.entries.total).toBeGreaterThan(200);
    const { byRiskLevel } = first.result.summary.entries;
    expect(byRiskLevel).toBeUndefined(); // REST shows the GraphQL shape: high, medium, low, unscored
    const counts = first.result.summary.entries;
    expect(counts.high + counts.medium + counts.low + counts.unscored).toBe(counts.total);
    const weekend = first.result.summary.controlPoints.find((c: { name: string }) => c.name === "journal_entry_weekend_post");
    expect(weekend).toMatchObject({ available: true, failedTransactions: 1, failedEntries: 2, failedOwnEntries: 2, kind: "RULES_BASED", level: "ENTRY" });
    const read = await server.api.get(`/analyses/${analysis.analysisId}`);
    expect(read.body.latestAnalysisResultId).toBe(first.result.id);
    const status = await server.api.get(`/analyses/${analysis.analysisId}/status`);
    expect(status.body).toMatchObject({ ready: true, reRunReady: true, status: "COMPLETED" });
  });

  it("publishes the result's data tables with analysisResultId, queryable by it", async () => {
    const page = await server.api.post("/data-tables/query?include-unstable-schemas=true", { analysisResultId: first.result.id });
    expect(page.body.content.map((t: { logicalName: string }) => t.logicalName).sort()).toEqual(["flows_compact", "gl_journal_lines", "gl_journal_tx", "typeahead_account", "typeahead_type", "typeahead_user_id"]);
    expect(page.body.content.every((t: { analysisResultId: string; analysisId: string }) => t.analysisResultId === first.result.id && t.analysisId === analysis.analysisId)).toBe(true);
    const stable = await server.api.post("/data-tables/query", { analysisResultId: first.result.id });
    expect(stable.body.content.map((t: { type: string }) => t.type).sort()).toEqual(["entries", "flows_compact", "transactions"]);
    const lines = await resultTable(server, first.result.id, "gl_journal_lines");
    const typeahead = await resultTable(server, first.result.id, "typeahead_account");
    expect(lines.columns.find((c) => c.field === "account")).toMatchObject({ typeaheadDataTableId: typeahead.id });
    const accounts = await allRows(server, typeahead.id);
    expect(accounts.map((a) => a.lookup_id).sort()).toEqual(["1000", "1100", "2000", "2100", "4000", "5000", "5100", "5200", "5400"]);
    expect(accounts.find((a) => a.lookup_id === "1000")).toMatchObject({ display_name: "1000 Cash at bank" });
  });

  it("reads and queries results over REST and GraphQL, with Analysis.results and AnalysisResult.dataTables", async () => {
    const query = await server.api.post("/analysis-results/query", { analysisId: analysis.analysisId });
    expect(query.body.content.map((r: { id: string }) => r.id)).toContain(first.result.id);
    expect((await server.api.post("/analysis-results/query", { status: "COMPLETED", analysisId: analysis.analysisId })).body.totalElements).toBeGreaterThanOrEqual(1);
    expect((await server.api.get("/analysis-results/5cc9076887f13cb8a7a1aaaa")).status).toBe(404);
    const graph = await server.gql(
      `query($id: ID!) { analysis(id: $id) { results { id status dataTables { logicalName rowCount } summary { entries { total high medium low unscored } transactions { total } flows { total simple complex unknown }
         controlPoints { name failedTransactions available } } } } }`,
      { id: analysis.analysisId },
    );
    expect(graph.body.errors).toBeUndefined();
    const result = graph.body.data.analysis.results.find((r: { id: string }) => r.id === first.result.id);
    expect(result.status).toBe("COMPLETED");
    expect(result.dataTables.map((t: { logicalName: string }) => t.logicalName)).toContain("gl_journal_tx");
    expect(result.summary.transactions.total).toBe(result.dataTables.find((t: { logicalName: string }) => t.logicalName === "gl_journal_tx").rowCount);
    expect(result.summary.flows.total).toBeGreaterThanOrEqual(result.summary.transactions.total);
    expect(result.summary.controlPoints).toHaveLength(36);
    expect(result.summary.controlPoints.find((c: { name: string }) => c.name === "journal_entry_nfp_expense_flurry")).toMatchObject({ available: false });
  });

  it("explains an entry and a transaction (REST and GraphQL) in plain language", async () => {
    const lines = await resultTable(server, first.result.id, "gl_journal_lines");
    const [entry] = await allRows(server, lines.id, { cp_failed: { $flags: { journal_entry_weekend_post: true } }, account: "5400" });
    const explained = await server.api.get(`/analysis-results/${first.result.id}/entries/${entry.rowid}/explain`);
    expect(explained.status, JSON.stringify(explained.body)).toBe(200);
    expect(explained.body).toMatchObject({ level: "ENTRY", rowid: entry.rowid, risk: entry.risk, riskLevel: entry.risk_level });
    const weekend = explained.body.controlPoints.find((p: { name: string }) => p.name === "journal_entry_weekend_post");
    expect(weekend).toMatchObject({ score: 10000, failed: true, source: "ENTRY", rowid: entry.rowid });
    expect(weekend.reason).toBe("entered on Saturday 2023-03-18");
    expect(explained.body.summary).toContain("Weekend Post (entered on Saturday 2023-03-18");
    const contributions = explained.body.controlPoints.reduce((sum: number, p: { contribution: number }) => sum + p.contribution, 0);
    expect(Math.abs(contributions - explained.body.risk)).toBeLessThanOrEqual(explained.body.controlPoints.length);

    // The memo of the 5400 line alone names a suspicious keyword: the 2000 line inherits it from that entry.
    const other = await allRows(server, lines.id, { txid: entry.txid, account: "2000" });
    const inherited = await server.gql(`query($r: ID!, $row: ID!) { explainEntryScore(analysisResultId: $r, rowid: $row) { controlPoints { name source rowid reason } } }`, { r: first.result.id, row: String(other[0].rowid) });
    expect(inherited.body.errors).toBeUndefined();
    const points = inherited.body.data.explainEntryScore.controlPoints;
    expect(points.find((p: { name: string }) => p.name === "journal_entry_weekend_post")).toMatchObject({ source: "ENTRY", rowid: other[0].rowid });
    expect(points.find((p: { name: string }) => p.name === "journal_entry_suspicious_keyword")).toMatchObject({
      source: "OTHER_ENTRY",
      rowid: entry.rowid,
      reason: `entry ${entry.rowid} of its transaction: the memo "Weekend bill per CEO request" contains "per CEO"`,
    });

    const txTable = await resultTable(server, first.result.id, "gl_journal_tx");
    const [tx] = await allRows(server, txTable.id, { txid: entry.txid });
    const txExplained = await server.gql(`query($id: ID!, $row: ID!) { analysisResult(id: $id) { explainTransaction(rowid: $row) { level txid risk riskLevel controlPoints { name score weight } summary } } }`, { id: first.result.id, row: String(tx.rowid) });
    expect(txExplained.body.errors).toBeUndefined();
    expect(txExplained.body.data.analysisResult.explainTransaction).toMatchObject({ level: "TRANSACTION", txid: entry.txid, risk: tx.risk });
    // Every reason reads as a sentence about known entries, including statistical scores no entry fails.
    // Per control point, an entry it scores (failed or not): statistical points score entries they do not fail.
    const sample = new Map<number, Record<string, unknown>>();
    for (const { field } of (lines.columns as Array<{ field: string }>).filter((c) => c.field.startsWith("cp_score_"))) {
      const name = field.slice("cp_score_".length);
      for (const failed of [true, false]) {
        const page = await server.api.post(`/data-tables/${lines.id}/data`, { query: { [field]: { $gt: 0 }, [`cp_failed_${name}`]: failed }, pageSize: 1 });
        expect(page.status, JSON.stringify(page.body)).toBe(200);
        for (const row of page.body.content) sample.set(row.rowid, row);
      }
    }
    const reasons: string[] = [];
    for (const row of sample.values()) {
      const body = (await server.api.get(`/analysis-results/${first.result.id}/entries/${row.rowid}/explain`)).body;
      reasons.push(...body.controlPoints.map((p: { reason: string }) => p.reason));
    }
    expect(reasons.length).toBeGreaterThan(0);
    expect(reasons.filter((r) => /undefined|null|NaN|entry \?/.test(r))).toEqual([]);
    expect((await server.api.get(`/analysis-results/${first.result.id}/entries/999999999/explain`)).status).toBe(404);
    expect((await server.api.get(`/analysis-results/${first.result.id}/entries/abc/explain`)).status).toBe(400);
  });
});

describe("runs that cannot start or fail", () => {
  it("refuses a second run while one runs (409 IN_PROGRESS), also when two requests race", async () => {
    const [a, b] = await Promise.all([server.api.post(`/analyses/${analysis.analysisId}/run`, {}), server.api.post(`/analyses/${analysis.analysisId}/run`, {})]);
    const statuses = [a.status, b.status].sort();
    const refused = a.status === 409 ? a : b;
    const started = a.status === 200 ? a : b;
    // The second request either met the running one (409) or came after it ended.
    if (statuses[0] === 200 && statuses[1] === 409) {
      expect(refused.body.problems[0]).toMatchObject({ identifier: "preflightErrors", values: ["IN_PROGRESS"], problemType: "INVALID_STATE" });
    }
    const during = await server.api.get(`/analyses/${analysis.analysisId}/status`);
    if (during.body.preflightErrors.length > 0) expect(during.body.preflightErrors).toEqual(["IN_PROGRESS"]);
    await awaitJob(server.api, started.body.id, 60_000);
    if (statuses[1] === 200) await awaitJob(server.api, refused.body.id, 60_000);
  });

  it("keeps the previous result when a run fails, and reports the failure in the async result and analysis.failed", async () => {
    const before = (await server.api.get(`/analyses/${analysis.analysisId}`)).body.latestAnalysisResultId;
    const events = subscribe<{ entityChanged: { type: string; entityId: string; payload: Record<string, unknown> } }>(server.url, server.token, `subscription { entityChanged(entityType: "ANALYSIS") { type entityId payload } }`);
    await events.ready;
    // The source's entries table lost underneath the analysis (a damaged database): the run cannot read its ledger.
    const client = new pg.Client({ connectionString: server.databaseUrl });
    await client.connect();
    const entries = ingestionTables(analysis.sourceId).entries;
    await client.query(`ALTER TABLE ${entries} RENAME TO entries_hidden`);
    try {
      const failed = await runAnalysis(server, analysis.analysisId, "ERROR");
      expect(failed.job.error).toMatch(/entries of analysis source .* are gone/);
      expect(failed.result).toMatchObject({ status: "FAILED" });
      expect(failed.result.error).toBe(failed.job.error);
      await events.next((e) => e.entityChanged.type === "analysis.failed");
      expect(events.events.find((e) => e.entityChanged.type === "analysis.failed")!.entityChanged.payload).toEqual({ analysisId: analysis.analysisId, analysisResultId: failed.result.id, engagementId: analysis.engagementId });
      expect((await server.api.post("/data-tables/query", { analysisResultId: failed.result.id })).body.totalElements).toBe(0);
    } finally {
      await client.query(`ALTER TABLE ingest.entries_hidden RENAME TO ${entries.split(".")[1]}`);
      await client.end();
      await events.close();
    }
    expect((await server.api.get(`/analyses/${analysis.analysisId}`)).body.latestAnalysisResultId).toBe(before);
    expect((await server.api.get(`/analyses/${analysis.analysisId}/status`)).body.status).toBe("FAILED");
    const lines = await resultTable(server, before, "gl_journal_lines");
    expect((await server.api.post(`/data-tables/${lines.id}/data`, { pageSize: 5 })).body.content).toHaveLength(5);
  });

  it("needs api.analyses.run to run, api.analyses.read to read results, api.data-tables.read for their tables", async () => {
    const reader = await clientWithPermissions(server.api, ["api.analyses.read"], "reader");
    expect((await reader.post(`/analyses/${analysis.analysisId}/run`, {})).status).toBe(403);
    expect((await reader.get(`/analysis-results/${first.result.id}`)).status).toBe(200);
    const graph = await server.gql(`query($id: ID!) { analysisResult(id: $id) { dataTables { id } } }`, { id: first.result.id }, reader.token);
    expect(graph.body.errors?.[0].extensions.code).toBe("FORBIDDEN");
    const nobody = await clientWithPermissions(server.api, ["api.organizations.read"], "nobody");
    expect((await nobody.get(`/analysis-results/${first.result.id}`)).status).toBe(403);
  });
});
