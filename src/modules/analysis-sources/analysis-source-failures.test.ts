import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERP_GENERAL_LEDGER, QUICKBOOKS_ONLINE_JOURNAL, SIGNED_AMOUNT_LEDGER } from "../../../test/ingestion/fixtures.js";
import { advance, analysisFixture, ingest, type SourceFixture } from "../../../test/helpers/analysis-sources.js";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { subscribe } from "../../../test/helpers/ws-client.js";

/**
 * Spec 3.2 "any error in a workflow process -> FAILED", path by path (issue 5 "Done when"), and the
 * mistakes the API refuses at request time instead (400 naming the field, the source untouched).
 */
let server: TestServer;
let db: pg.Pool;
let fixture: SourceFixture;
beforeAll(async () => {
  server = await startTestServer();
  db = new pg.Pool({ connectionString: server.databaseUrl, max: 2 });
  fixture = await analysisFixture(server, "Failures");
});
afterAll(async () => {
  await db?.end();
  await server?.close();
});

async function jobsOf(sourceId: string): Promise<number> {
  const response = await server.api.post("/async-results/query?size=100", { entityId: sourceId });
  return response.body.totalElements ?? response.body.content.length;
}

async function failedEvents(sourceId: string) {
  const { rows } = await db.query("SELECT payload FROM outbox_event WHERE type = 'ingestion.failed' AND entity_id = $1", [sourceId]);
  return rows.map((r) => r.payload);
}

/** PUT that must be refused with 400 naming `identifier`, leaving the source as it was; returns that problem. */
async function refused(sourceId: string, body: Record<string, unknown>, identifier: string) {
  const before = (await server.api.get(`/analysis-sources/${sourceId}`)).body;
  const jobs = await jobsOf(sourceId);
  const response = await server.api.put(`/analysis-sources/${sourceId}`, { version: before.version, ...body });
  expect(response.status, JSON.stringify(response.body)).toBe(400);
  expect(response.body.problems.map((p: { identifier: string }) => p.identifier)).toContain(identifier);
  const problem = response.body.problems.find((p: { identifier: string }) => p.identifier === identifier);
  expect(problem).toMatchObject({ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR" });
  const after = (await server.api.get(`/analysis-sources/${sourceId}`)).body;
  expect(after).toEqual(before);
  expect(await jobsOf(sourceId)).toBe(jobs);
  return problem as { reason: string; values?: string[]; suggestedValues?: string[] };
}

describe("failures while the workflow runs (FAILED, cause in errors and the async result)", () => {
  it("a proposed transaction id selection naming a missing column fails CHECKING_INTEGRITY (proposed at creation, before the file is known)", async () => {
    const { source, job } = await ingest(server, fixture, ERP_GENERAL_LEDGER, { targetWorkflowState: "COMPLETED", proposedTransactionIdSelection: { type: "COMBINATION", columnSelection: [99] } }, "ERROR");
    expect(source.workflowState).toBe("FAILED");
    expect(source.errors).toEqual([
      { code: "INVALID_TRANSACTION_ID_SELECTION", defaultMessage: expect.stringContaining("The transaction id selection cannot be used: columnSelection: column 99 does not exist") },
    ]);
    expect(job.error).toBe(source.errors[0].defaultMessage);
    // It failed at CHECKING_INTEGRITY: the steps before it ran, no preview or entries were made.
    expect(source.fileInfo.rowCount).toBe(10);
    expect(source.columnMappings.length).toBeGreaterThan(0);
    expect((await server.api.post("/transaction-id-previews/query", { analysisSourceId: source.id })).body.content).toEqual([]);
    expect(await failedEvents(source.id)).toHaveLength(1);
  });

  it("the file deleted while the source rests, then advanced: FAILED, the file no longer exists; the progress subscription ends with FAILED", async () => {
    const { source, fileId } = await ingest(server, fixture, QUICKBOOKS_ONLINE_JOURNAL);
    expect(source.workflowState).toBe("FORMAT_DETECTED");
    // No job runs for a resting source, so the file delete guard lets the file go.
    expect((await server.api.delete(`/file-manager/${fileId}`)).status).toBe(204);
    const stream = subscribe<{ analysisSourceProgress: { workflowState: string; message: string | null } }>(
      server.url,
      server.token,
      `subscription($id: ID!) { analysisSourceProgress(analysisSourceId: $id) { workflowState percent message } }`,
      { id: source.id },
    );
    try {
      await stream.ready;
      await new Promise((r) => setTimeout(r, 100));
      const { source: failed, job } = await advance(server, source.id, { applyDegrouper: true, targetWorkflowState: "COMPLETED" }, "ERROR");
      expect(failed.workflowState).toBe("FAILED");
      expect(failed.errors).toEqual([{ code: "FILE_MISSING", defaultMessage: `The file ${fileId} of this analysis source no longer exists` }]);
      expect(job.error).toBe(failed.errors[0].defaultMessage);
      // The subscription reports FAILED with the cause and then ends (graphql-ws complete).
      const last = await stream.next((e) => e.analysisSourceProgress.workflowState === "FAILED");
      expect(last.analysisSourceProgress.message).toBe(failed.errors[0].defaultMessage);
      await stream.completed;
      expect(stream.events.at(-1)).toEqual(last);
      expect(stream.errors).toEqual([]);
    } finally {
      await stream.close();
    }
    // Subscribing to the FAILED source: its state with the cause, then the end.
    const again = subscribe<{ analysisSourceProgress: { workflowState: string; percent: number; message: string | null } }>(
      server.url,
      server.token,
      `subscription($id: ID!) { analysisSourceProgress(analysisSourceId: $id) { workflowState percent message } }`,
      { id: source.id },
    );
    try {
      await Promise.race([again.completed, new Promise((_, reject) => setTimeout(() => reject(new Error(`not completed; got ${JSON.stringify(again.events)}`)), 10_000))]);
      expect(again.events).toEqual([{ analysisSourceProgress: { workflowState: "FAILED", percent: 100, message: `The file ${fileId} of this analysis source no longer exists` } }]);
      expect(again.errors).toEqual([]);
    } finally {
      await again.close();
    }
    expect(await failedEvents(source.id)).toHaveLength(1);
  });

  it("a parse the database refuses fails PARSING with an error reference (details only in the log)", async () => {
    const { source } = await ingest(server, fixture, ERP_GENERAL_LEDGER, { targetWorkflowState: "INTEGRITY_CHECKED" });
    // Something else holds the entries table's name (a view): the parse's DROP TABLE / CREATE TABLE fails.
    await db.query(`CREATE VIEW ingest.entries_${source.id} AS SELECT 1 AS x`);
    try {
      const { source: failed, job } = await advance(server, source.id, { targetWorkflowState: "COMPLETED" }, "ERROR");
      expect(failed.workflowState).toBe("FAILED");
      expect(failed.errors).toEqual([{ code: "UNEXPECTED_ERROR", defaultMessage: expect.stringMatching(/^Unexpected error while running the job \(reference [0-9a-f]{24}\)/) }]);
      expect(job.error).toBe(failed.errors[0].defaultMessage);
      expect(failed.warnings).toEqual([]);
      expect((await server.api.post("/data-tables/query?include-unstable-schemas=true", { analysisSourceId: source.id })).body.content).toEqual([]);
      expect(await failedEvents(source.id)).toHaveLength(1);
    } finally {
      await db.query(`DROP VIEW IF EXISTS ingest.entries_${source.id}`);
    }
  });

  it("no column can serve as transaction id: the running-total candidate is always there, so the walk completes (the 'no candidate' error cannot occur)", async () => {
    // Every account, description and amount differs per line and nothing is mapped to txid: no
    // column qualifies as an id, only the running total (balancing pairs in file order).
    const ledger = ["Date,Account,Description,Amount", "01/02/2023,1000,Cash in,10.00", "01/02/2023,2000,Loan,-10.00", "01/03/2023,3000,Rent,20.00", "01/03/2023,4000,Bank,-20.00", "01/04/2023,5000,Fees,5.00", "01/04/2023,6000,Card,-5.00"].join("\n") + "\n";
    const { source } = await ingest(server, fixture, ledger, { targetWorkflowState: "COMPLETED", proposedAmbiguousColumnResolutions: [{ position: 0, selectedFormat: "MM/dd/yyyy" }] });
    expect(source.errors).toEqual([]);
    expect(source.workflowState).toBe("COMPLETED");
    expect(source.transactionIdSelection).toMatchObject({ type: "RUNNING_TOTAL" });
    const previews = await server.api.post("/transaction-id-previews/query", { analysisSourceId: source.id });
    expect(previews.body.content.map((p: { type: string; overallRating: string }) => [p.type, p.overallRating])).toEqual([["RUNNING_TOTAL", "GOOD"]]);
    const entries = await db.query(`SELECT count(DISTINCT txid)::int AS n FROM ingest.entries_${source.id}`);
    expect(entries.rows[0].n).toBe(3);
  });
});

describe("mistakes refused at request time (400 naming the field, the source untouched)", () => {
  it("at INTEGRITY_CHECKED: a transactionIdSelection naming a missing column or virtual column", async () => {
    const { source } = await ingest(server, fixture, ERP_GENERAL_LEDGER, { targetWorkflowState: "INTEGRITY_CHECKED" });
    expect(source.workflowState).toBe("INTEGRITY_CHECKED");
    await refused(source.id, { transactionIdSelection: { type: "COMBINATION", columnSelection: [99] } }, "transactionIdSelection.columnSelection[0]");
    await refused(source.id, { transactionIdSelection: { type: "COMBINATION", columnSelection: [0], virtualColumnSelection: [0] } }, "transactionIdSelection.virtualColumnSelection[0]");
    await refused(source.id, { transactionIdSelection: { type: "COMBINATION", columnSelection: [0, -1] } }, "transactionIdSelection.columnSelection[1]");
    // A valid change still works afterwards.
    const { source: moved } = await advance(server, source.id, { transactionIdSelection: { type: "COMBINATION", columnSelection: [0, 2] } });
    expect(moved).toMatchObject({ workflowState: "INTEGRITY_CHECKED", transactionIdSelection: { columnSelection: [0, 2] } });
  });

  it("at COLUMNS_ANALYZED: proposed mappings, virtual columns, resolutions and selection against the file's 13 columns", async () => {
    const { source } = await ingest(server, fixture, ERP_GENERAL_LEDGER);
    expect(source.workflowState).toBe("COLUMNS_ANALYZED");
    await refused(source.id, { proposedColumnMappings: [{ columnPosition: 13, platformField: "memo" }] }, "proposedColumnMappings[0].columnPosition");
    await refused(source.id, { proposedColumnMappings: [{ virtualColumnIndex: 0, platformField: "memo" }] }, "proposedColumnMappings[0].virtualColumnIndex");
    await refused(source.id, { proposedColumnMappings: [{ columnPosition: 0, platformField: "no_such_field" }] }, "proposedColumnMappings[0].platformField");
    await refused(source.id, { proposedVirtualColumns: [{ name: "Copy", type: "DUPLICATE", columnIndex: 42 }] }, "proposedVirtualColumns[0]");
    await refused(source.id, { proposedVirtualColumns: [{ name: "Parts", type: "JOIN", columnIndices: [0, 14] }] }, "proposedVirtualColumns[0]");
    await refused(source.id, { proposedAmbiguousColumnResolutions: [{ position: 20, selectedFormat: "MM/dd/yyyy" }] }, "proposedAmbiguousColumnResolutions[0].position");
    await refused(source.id, { proposedTransactionIdSelection: { type: "COMBINATION", columnSelection: [13] } }, "proposedTransactionIdSelection.columnSelection[0]");
    // A virtual column proposed in the same body can be referred to (and selected) at once.
    const { source: moved } = await advance(server, source.id, {
      targetWorkflowState: "DATA_VALIDATION_CONFIRMED",
      proposedVirtualColumns: [{ name: "Journal copy", type: "DUPLICATE", columnIndex: 0 }],
      proposedColumnMappings: [
        { virtualColumnIndex: 0, platformField: "txid" },
        { columnPosition: 2, platformField: "effective_date" },
        { columnPosition: 4, platformField: "account" },
        { columnPosition: 6, platformField: "debit" },
        { columnPosition: 7, platformField: "credit" },
      ],
      proposedTransactionIdSelection: { type: "COMBINATION", columnSelection: [], virtualColumnSelection: [0] },
    });
    expect(moved.workflowState).toBe("DATA_VALIDATION_CONFIRMED");
  });

  it("at COLUMNS_ANALYZED: a field or a column mapped twice, a mapping to nothing, a column resolved twice or with a format it cannot take", async () => {
    // Each of these used to be accepted (200) and then fail DATA_VALIDATION_CONFIRMED, leaving the
    // source FAILED for good (every later update 409): to be recreated from scratch.
    const { source } = await ingest(server, fixture, ERP_GENERAL_LEDGER);
    expect(source.workflowState).toBe("COLUMNS_ANALYZED");
    const twiceField = await refused(source.id, { proposedColumnMappings: [{ columnPosition: 4, platformField: "account" }, { columnPosition: 5, platformField: "account" }] }, "proposedColumnMappings[1].platformField");
    expect(twiceField.reason).toContain("account is already mapped by proposedColumnMappings[0]");
    const twiceColumn = await refused(source.id, { proposedColumnMappings: [{ columnPosition: 4, platformField: "account" }, { columnPosition: 4, platformField: "account_description" }] }, "proposedColumnMappings[1].columnPosition");
    expect(twiceColumn.reason).toContain("column 4 (Account) is already mapped by proposedColumnMappings[0]");
    await refused(
      source.id,
      { proposedVirtualColumns: [{ name: "Copy", type: "DUPLICATE", columnIndex: 0 }], proposedColumnMappings: [{ virtualColumnIndex: 0, platformField: "txid" }, { virtualColumnIndex: 0, platformField: "memo" }] },
      "proposedColumnMappings[1].virtualColumnIndex",
    );
    await refused(source.id, { proposedColumnMappings: [{ columnPosition: 4, platformField: "account" }, { columnPosition: 8 }] }, "proposedColumnMappings[1]");
    // Effective Date (2) reads MM/dd/yyyy without doubt: a bogus format, or one none of its values has, is refused.
    const bogus = await refused(source.id, { proposedAmbiguousColumnResolutions: [{ position: 2, selectedFormat: "yyyy/bogus" }] }, "proposedAmbiguousColumnResolutions[0].selectedFormat");
    expect(bogus).toMatchObject({ values: ['"yyyy/bogus"'], suggestedValues: ["MM/dd/yyyy"] });
    await refused(source.id, { proposedAmbiguousColumnResolutions: [{ position: 2, selectedFormat: "dd/MM/yyyy" }] }, "proposedAmbiguousColumnResolutions[0].selectedFormat");
    // Journal ID (0) holds no dates or amounts: nothing to resolve, whatever the format.
    const text = await refused(source.id, { proposedAmbiguousColumnResolutions: [{ position: 0, selectedFormat: "MM/dd/yyyy" }] }, "proposedAmbiguousColumnResolutions[0].position");
    expect(text.reason).toContain("column 0 (Journal ID) holds no dates or amounts");
    await refused(source.id, { proposedAmbiguousColumnResolutions: [{ position: 2, selectedFormat: "MM/dd/yyyy" }, { position: 2, selectedFormat: "MM/dd/yyyy" }] }, "proposedAmbiguousColumnResolutions[1].position");
    // The column's own format is still accepted for a column that is not ambiguous (as the mapping step accepts it).
    const { source: moved } = await advance(server, source.id, { targetWorkflowState: "DATA_VALIDATION_CONFIRMED", proposedAmbiguousColumnResolutions: [{ position: 2, selectedFormat: "MM/dd/yyyy" }] });
    expect(moved.workflowState).toBe("DATA_VALIDATION_CONFIRMED");
  });

  it("at COLUMNS_ANALYZED, an ambiguous date column: only one of its ambiguousFormats", async () => {
    const { source } = await ingest(server, fixture, SIGNED_AMOUNT_LEDGER);
    expect(source.workflowState).toBe("COLUMNS_ANALYZED");
    const date = source.fileInfo.columnData[0].columnMetadata.format;
    expect(date.ambiguousFormats).toEqual(expect.arrayContaining(["MM/dd/yyyy", "dd/MM/yyyy"]));
    const bogus = await refused(source.id, { proposedAmbiguousColumnResolutions: [{ position: 0, selectedFormat: "yyyy/bogus" }] }, "proposedAmbiguousColumnResolutions[0].selectedFormat");
    expect(bogus.suggestedValues).toEqual(date.ambiguousFormats);
    await refused(source.id, { proposedAmbiguousColumnResolutions: [{ position: 0, selectedFormat: "yyyy-MM-dd" }] }, "proposedAmbiguousColumnResolutions[0].selectedFormat");
    const { source: moved } = await advance(server, source.id, { targetWorkflowState: "DATA_VALIDATION_CONFIRMED", proposedAmbiguousColumnResolutions: [{ position: 0, selectedFormat: "dd/MM/yyyy" }] });
    expect(moved.workflowState).toBe("DATA_VALIDATION_CONFIRMED");
    expect(moved.ambiguousColumnResolutions.find((r: { position: number }) => r.position === 0).selectedFormat).toBe("dd/MM/yyyy");
  });

  it("at DATA_VALIDATION_CONFIRMED: applied-form columnMappings, virtualColumns and resolutions", async () => {
    const { source } = await ingest(server, fixture, ERP_GENERAL_LEDGER, { targetWorkflowState: "DATA_VALIDATION_CONFIRMED" });
    expect(source.workflowState).toBe("DATA_VALIDATION_CONFIRMED");
    const mappings = source.columnMappings.map((m: { position: number; platformField?: string }) => ({ position: m.position, platformField: m.platformField ?? null }));
    await refused(source.id, { columnMappings: [...mappings, { position: 99, additionalColumnName: "Nowhere" }] }, `columnMappings[${mappings.length}].position`);
    await refused(source.id, { virtualColumns: [{ name: "Half", type: "SPLIT_BY_POSITION", columnIndex: 50, startPosition: 0, endPosition: 2, version: 0 }] }, "virtualColumns[0]");
    await refused(source.id, { virtualColumns: [{ name: "Part", type: "SPLIT_BY_DELIMITER", columnIndex: 0, version: 0 }] }, "virtualColumns[0]");
    await refused(source.id, { ambiguousColumnResolutions: [{ position: -1, selectedFormat: "MM/dd/yyyy" }] }, "ambiguousColumnResolutions[0].position");
    // One field on two columns, one column feeding two entries, a format the column cannot take.
    expect(mappings[4]).toEqual({ position: 4, platformField: "account" });
    await refused(source.id, { columnMappings: mappings.map((m: { position: number }) => (m.position === 5 ? { position: 5, platformField: "account" } : m)) }, "columnMappings[5].platformField");
    await refused(source.id, { columnMappings: [...mappings, { position: 4, additionalColumnName: "Account copy" }] }, `columnMappings[${mappings.length}].position`);
    await refused(source.id, { ambiguousColumnResolutions: [{ position: 2, selectedFormat: "yyyy/bogus" }] }, "ambiguousColumnResolutions[0].selectedFormat");
    // NOT_MAPPED entries sent back map nothing: a position repeated among them is no conflict.
    const { source: same } = await advance(server, source.id, { columnMappings: [...mappings, { position: 12, platformField: null }] });
    expect(same.workflowState).toBe("DATA_VALIDATION_CONFIRMED");
  });
});
