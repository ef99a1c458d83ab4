import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERP_GENERAL_LEDGER, QUICKBOOKS_ONLINE_JOURNAL, SIGNED_AMOUNT_LEDGER } from "../../../test/ingestion/fixtures.js";
import { advance, analysisFixture, ingest, type SourceFixture } from "../../../test/helpers/analysis-sources.js";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";

/** Spec 3.2, one test per row of the moves table, through the REST API. */
let server: TestServer;
let fixture: SourceFixture;
beforeAll(async () => {
  server = await startTestServer();
  fixture = await analysisFixture(server, "Moves");
});
afterAll(async () => server?.close());

async function previewsOf(sourceId: string) {
  const response = await server.api.post("/transaction-id-previews/query?size=100", { analysisSourceId: sourceId });
  expect(response.status).toBe(200);
  return response.body.content as Array<{ id: string; type: string; columnSelection: number[]; smartSplitter: boolean; overallRating: string }>;
}

const SIGNED_MAPPINGS = [
  { columnPosition: 0, platformField: "effective_date" },
  { columnPosition: 2, platformField: "account" },
  { columnPosition: 3, platformField: "account_description" },
  { columnPosition: 4, platformField: "amount" },
  { columnPosition: 5, platformField: "memo" },
];

describe("spec 3.2 moves", () => {
  it("any state, targetWorkflowState set: intermediate states are passed and a Transition target continues to the next Step", async () => {
    // COLUMN_MAPPINGS_CONFIRMED is a Transition: the walk passes COLUMNS_ANALYZED and DATA_VALIDATION_CONFIRMED
    // (mappings applied) without stopping and rests at the next Step.
    const { source } = await ingest(server, fixture, ERP_GENERAL_LEDGER, { targetWorkflowState: "COLUMN_MAPPINGS_CONFIRMED" });
    expect(source.workflowState).toBe("EFFECTIVE_DATE_METRICS_ANALYZED");
    expect(source.targetWorkflowState).toBe("COLUMN_MAPPINGS_CONFIRMED");
    expect(source.columnMappings.find((m: { platformField: string }) => m.platformField === "effective_date")).toMatchObject({ position: 2 });
    // From a resting Step, a later Step target.
    const { source: moved } = await advance(server, source.id, { targetWorkflowState: "PARSED" });
    expect(moved.workflowState).toBe("PARSED");
    expect(moved.transactionIdSelection).toBeTruthy();
  });

  it("a state of the wire enum off this path (CANCELLED, SCANNING_TRANSACTION_COMBINATIONS): readable, but refused as a target (400 naming it)", async () => {
    const { source, fileId } = await ingest(server, fixture, ERP_GENERAL_LEDGER);
    for (const target of ["CANCELLED", "SCANNING_TRANSACTION_COMBINATIONS"]) {
      const created = await server.api.post("/analysis-sources", {
        engagementId: fixture.engagementId,
        analysisId: fixture.analysisId,
        analysisPeriodId: fixture.periodId,
        analysisSourceTypeId: "4b8361d00000000000000000",
        fileManagerFileId: fileId,
        targetWorkflowState: target,
      });
      expect(created.status, target).toBe(400);
      expect(created.body.problems[0]).toMatchObject({ identifier: "targetWorkflowState", values: [target] });
      const updated = await server.api.put(`/analysis-sources/${source.id}`, { version: source.version, targetWorkflowState: target });
      expect(updated.status, target).toBe(400);
      expect(updated.body.problems[0]).toMatchObject({ identifier: "targetWorkflowState", values: [target] });
    }
    expect((await server.api.get(`/analysis-sources/${source.id}`)).body.version).toBe(source.version);
  });

  it("creation without targetWorkflowState stops at the first valid Step", async () => {
    const { source } = await ingest(server, fixture, ERP_GENERAL_LEDGER);
    // The file is not grouped, so FORMAT_DETECTED is not a stop: COLUMNS_ANALYZED is the first Step.
    expect(source.workflowState).toBe("COLUMNS_ANALYZED");
    expect(source.targetWorkflowState).toBeUndefined();
    expect(source.columnMappings).toEqual([]);
  });

  it("creation with targetWorkflowState COMPLETED: full automation with the proposed* choices", async () => {
    const { source } = await ingest(server, fixture, SIGNED_AMOUNT_LEDGER, {
      targetWorkflowState: "COMPLETED",
      proposedColumnMappings: SIGNED_MAPPINGS,
      proposedAmbiguousColumnResolutions: [{ position: 0, selectedFormat: "dd/MM/yyyy" }],
      proposedTransactionIdSelection: { type: "RUNNING_TOTAL", columnSelection: [] },
    });
    expect(source.workflowState).toBe("COMPLETED");
    expect(source.columnMappings.filter((m: { platformField: string | null }) => m.platformField).map((m: { position: number; platformField: string }) => [m.position, m.platformField])).toEqual([
      [0, "effective_date"],
      [2, "account"],
      [3, "account_description"],
      [4, "amount"],
      [5, "memo"],
    ]);
    expect(source.ambiguousColumnResolutions).toContainEqual(expect.objectContaining({ position: 0, selectedFormat: "dd/MM/yyyy" }));
    expect(source.transactionIdSelection).toMatchObject({ type: "RUNNING_TOTAL" });
    expect((await previewsOf(source.id)).map((p) => p.type)).toEqual(["RUNNING_TOTAL"]);
  });

  it("DETECTING_FORMAT finds a grouped layout without applyDegrouper: stops at FORMAT_DETECTED with detectedFormat", async () => {
    const { source } = await ingest(server, fixture, QUICKBOOKS_ONLINE_JOURNAL, { targetWorkflowState: "COMPLETED" });
    expect(source).toMatchObject({ workflowState: "FORMAT_DETECTED", detectedFormat: "QUICKBOOKS_JOURNAL", degrouperApplied: false });
    expect(source.fileInfo).toBeUndefined();
  });

  it("DETECTING_FORMAT finds a grouped layout with applyDegrouper set at creation: continues, formatter applied", async () => {
    const { source, fileId } = await ingest(server, fixture, QUICKBOOKS_ONLINE_JOURNAL, { applyDegrouper: true });
    expect(source).toMatchObject({ workflowState: "COLUMNS_ANALYZED", detectedFormat: "QUICKBOOKS_JOURNAL", degrouperApplied: true });
    expect(source.fileInfo.rowCount).toBe(7);
    // Two versions, each a file info id: the imported file's own info and the source's degrouped reading.
    const file = (await server.api.get(`/file-manager/${fileId}`)).body;
    expect(source.fileInfoVersions).toEqual({ ORIGINAL: file.fileInfoId, DEGROUPED: expect.stringMatching(/^[0-9a-f]{24}$/) });
    const degrouped = await server.api.get(`/file-info/${source.fileInfoVersions.DEGROUPED}`);
    expect(degrouped.status).toBe(200);
    expect(degrouped.body).toMatchObject({ type: "TABULAR_FILE_INFO", status: "COMPLETE", analysisSourceId: source.id, fileManagerFileId: fileId });
    expect(degrouped.body.columnData.map((c: { columnName: string }) => c.columnName)).toEqual(source.fileInfo.columnData.map((c: { columnName: string }) => c.columnName));
  });

  it("FORMAT_DETECTED as target of an ungrouped file: ignored, the walk continues to the next Step", async () => {
    const { source } = await ingest(server, fixture, ERP_GENERAL_LEDGER, { targetWorkflowState: "FORMAT_DETECTED" });
    expect(source.workflowState).toBe("COLUMNS_ANALYZED");
    expect(source.detectedFormat).toBeUndefined();
  });

  it("FORMAT_DETECTED, advanced with applyDegrouper true: next state, formatter applied", async () => {
    const { source } = await ingest(server, fixture, QUICKBOOKS_ONLINE_JOURNAL);
    expect(source.workflowState).toBe("FORMAT_DETECTED");
    const { source: moved } = await advance(server, source.id, { applyDegrouper: true, targetWorkflowState: "COLUMNS_ANALYZED" });
    expect(moved).toMatchObject({ workflowState: "COLUMNS_ANALYZED", applyDegrouper: true, degrouperApplied: true });
    expect(moved.fileInfo.columnData.map((c: { columnName: string }) => c.columnName)).toContain("Account");
  });

  it("ANALYZING_COLUMNS completes: COLUMNS_ANALYZED with fileInfo columnData and metadata", async () => {
    const { source } = await ingest(server, fixture, ERP_GENERAL_LEDGER);
    expect(source.workflowState).toBe("COLUMNS_ANALYZED");
    expect(source.fileInfo).toMatchObject({ rowCount: 10 });
    // The deprecated fileInfo carries its whole-file metrics under the spec's `metadata` too.
    expect(source.fileInfo.metadata).toEqual(source.fileInfo.tableMetadata);
    // fileInfoVersions names file infos by id; the ORIGINAL one is the source's reading (GET /file-info/{id}, and a GraphQL relation).
    expect(Object.keys(source.fileInfoVersions)).toEqual(["ORIGINAL"]);
    const read = await server.api.get(`/file-info/${source.fileInfoVersions.ORIGINAL}`);
    expect(read.status).toBe(200);
    const info = read.body;
    expect(info).toMatchObject({ id: source.fileInfoVersions.ORIGINAL, type: "TABULAR_FILE_INFO", status: "COMPLETE", analysisSourceId: source.id, delimiter: ",", headerRowIndex: 0 });
    expect(info.columnData.map((c: { columnName: string }) => c.columnName)).toEqual(source.fileInfo.columnData.map((c: { columnName: string }) => c.columnName));
    const related = await server.gql(`query($id: ID!) { analysisSource(id: $id) { fileInfoVersions fileInfoVersion(version: ORIGINAL) { id type ... on TabularFileInfo { delimiter } } } }`, { id: source.id });
    expect(related.body.errors).toBeUndefined();
    expect(related.body.data.analysisSource.fileInfoVersion).toEqual({ id: source.fileInfoVersions.ORIGINAL, type: "TABULAR_FILE_INFO", delimiter: "," });
    expect(info.columnData).toHaveLength(13);
    expect(info.columnData[2].columnName).toBe("Effective Date");
    expect(info.tableMetadata.duplicateRows).toMatchObject({ state: expect.stringMatching(/WARN|FAIL/), count: 1 });
    expect(source.fileInfo.tableMetadata.unparseableDates).toMatchObject({ state: expect.stringMatching(/WARN|FAIL/) });
  });

  it("DATA_VALIDATION_CONFIRMED reached: proposed values applied, else the recommended mappings", async () => {
    const { source: recommended } = await ingest(server, fixture, ERP_GENERAL_LEDGER, { targetWorkflowState: "DATA_VALIDATION_CONFIRMED" });
    expect(recommended.workflowState).toBe("DATA_VALIDATION_CONFIRMED");
    expect(recommended.columnMappings.find((m: { platformField: string }) => m.platformField === "debit")).toMatchObject({ position: 6, field: "Debit", mappingType: "AUTO" });

    const { source } = await ingest(server, fixture, ERP_GENERAL_LEDGER);
    const { source: proposed } = await advance(server, source.id, {
      targetWorkflowState: "DATA_VALIDATION_CONFIRMED",
      proposedVirtualColumns: [{ name: "Account class", type: "SPLIT_BY_POSITION", columnIndex: 4, startPosition: 0, endPosition: 1 }],
      proposedColumnMappings: [
        { columnPosition: 0, platformField: "txid" },
        { columnPosition: 2, platformField: "effective_date" },
        { columnPosition: 4, platformField: "account" },
        { columnPosition: 6, platformField: "debit" },
        { columnPosition: 7, platformField: "credit" },
        { virtualColumnIndex: 0, additionalColumnName: "Account class" },
      ],
    });
    expect(proposed.workflowState).toBe("DATA_VALIDATION_CONFIRMED");
    expect(proposed.virtualColumns).toEqual([expect.objectContaining({ name: "Account class", type: "SPLIT_BY_POSITION", position: 13 })]);
    expect(proposed.columnMappings.find((m: { position: number }) => m.position === 13)).toMatchObject({ additionalColumnName: "Account class" });
    // REST leaves out null-valued keys: the memo column, not proposed, has no platformField.
    expect(proposed.columnMappings.find((m: { position: number }) => m.position === 8)).toEqual({ position: 8, field: "Memo", mappingType: "NOT_MAPPED" });
  });

  it("EFFECTIVE_DATE_METRICS_ANALYZED reached: the effective-date-metrics endpoint becomes usable", async () => {
    const { source } = await ingest(server, fixture, ERP_GENERAL_LEDGER);
    const before = await server.api.get(`/analysis-sources/${source.id}/effective-date-metrics?period=MONTH`);
    // Not there yet: a state conflict (wire reference 3), not a bad request.
    expect(before.status).toBe(409);
    expect(before.body.problems[0]).toMatchObject({ problemType: "INVALID_STATE", identifier: "analysisSourceId" });
    expect(JSON.stringify(before.body)).toContain("EFFECTIVE_DATE_METRICS_ANALYZED");
    const { source: moved } = await advance(server, source.id, { targetWorkflowState: "EFFECTIVE_DATE_METRICS_ANALYZED" });
    expect(moved.workflowState).toBe("EFFECTIVE_DATE_METRICS_ANALYZED");
    const after = await server.api.get(`/analysis-sources/${source.id}/effective-date-metrics?period=MONTH`);
    expect(after.status).toBe(200);
    expect(after.body.inPeriodCountHistogram).toEqual({ "2023-01": 2, "2023-02": 4, "2023-03": 1 });
  });

  it("CHECKING_INTEGRITY entered: previews generated, the proposed selection alone, else the best candidate", async () => {
    const { source: best } = await ingest(server, fixture, ERP_GENERAL_LEDGER, { targetWorkflowState: "INTEGRITY_CHECKED" });
    expect(best.workflowState).toBe("INTEGRITY_CHECKED");
    const generated = await previewsOf(best.id);
    expect(generated.map((p) => p.columnSelection)).toEqual([[0], [0, 2]]);
    // The server's choice carries the wire's four keys.
    expect(best.transactionIdSelection).toEqual({ type: "COMBINATION", columnSelection: [0], virtualColumnSelection: [], applySmartSplitter: false });

    const { source: proposed } = await ingest(server, fixture, ERP_GENERAL_LEDGER, {
      targetWorkflowState: "INTEGRITY_CHECKED",
      proposedTransactionIdSelection: { type: "COMBINATION", columnSelection: [0, 2] },
    });
    // A proposal without the optional keys is stored in the same full shape, defaults filled.
    expect(proposed.transactionIdSelection).toEqual({ type: "COMBINATION", columnSelection: [0, 2], virtualColumnSelection: [], applySmartSplitter: false });
    expect((await previewsOf(proposed.id)).map((p) => p.columnSelection)).toEqual([[0, 2]]);
  });

  it("INTEGRITY_CHECKED, transactionIdSelection changed: a preview with the same properties is reused, else one is generated", async () => {
    const { source } = await ingest(server, fixture, ERP_GENERAL_LEDGER, { targetWorkflowState: "INTEGRITY_CHECKED" });
    const first = await previewsOf(source.id);
    expect(first).toHaveLength(2);
    const { source: reused } = await advance(server, source.id, { transactionIdSelection: { type: "COMBINATION", columnSelection: [0, 2] } });
    expect(reused.workflowState).toBe("INTEGRITY_CHECKED");
    // Stored in full, as when the server chose it: the optional keys with their defaults.
    expect(reused.transactionIdSelection).toEqual({ type: "COMBINATION", columnSelection: [0, 2], virtualColumnSelection: [], applySmartSplitter: false });
    expect((await previewsOf(source.id)).map((p) => p.id).sort()).toEqual(first.map((p) => p.id).sort());

    const { source: fresh } = await advance(server, source.id, { transactionIdSelection: { type: "COMBINATION", columnSelection: [0], applySmartSplitter: true } });
    expect(fresh.transactionIdSelection).toEqual({ type: "COMBINATION", columnSelection: [0], virtualColumnSelection: [], applySmartSplitter: true });
    const after = await previewsOf(source.id);
    expect(after).toHaveLength(3);
    expect(after.filter((p) => p.smartSplitter)).toHaveLength(1);
  });

  it("final Step of the source type (PARSED), advanced: COMPLETED", async () => {
    const { source } = await ingest(server, fixture, ERP_GENERAL_LEDGER, { targetWorkflowState: "PARSED" });
    expect(source.workflowState).toBe("PARSED");
    const { source: done } = await advance(server, source.id, { targetWorkflowState: "COMPLETED" });
    expect(done.workflowState).toBe("COMPLETED");
  });

  it("any state, an error in a workflow process: FAILED with the cause in errors and in the async result", async () => {
    const { source, job } = await ingest(server, fixture, ERP_GENERAL_LEDGER, { targetWorkflowState: "COMPLETED", proposedColumnMappings: [{ columnPosition: 2, platformField: "no_such_field" }] }, "ERROR");
    expect(source.workflowState).toBe("FAILED");
    expect(source.errors).toEqual([{ code: "COLUMN_MAPPING_FAILED", defaultMessage: expect.stringContaining("no_such_field") }]);
    expect(job.error).toBe(source.errors[0].defaultMessage);
    // A failed source moves no further.
    const refused = await server.api.put(`/analysis-sources/${source.id}`, { version: source.version, targetWorkflowState: "COMPLETED" });
    expect(refused.status).toBe(409);
  });
});
