import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { onEntriesTableCreated, onEntriesTableDropped, type EntriesTableCreated, type EntriesTableDropped } from "../../ingestion/index.js";
import {
  ERP_GENERAL_LEDGER,
  QUICKBOOKS_DESKTOP_JOURNAL,
  QUICKBOOKS_ONLINE_JOURNAL,
  QUICKBOOKS_TRANSACTION_DETAIL,
  SAGE50_GENERAL_LEDGER,
  SIGNED_AMOUNT_LEDGER,
} from "../../../test/ingestion/fixtures.js";
import { advance, analysisFixture, createSource, FUND_ANALYSIS_TYPE, FUND_GL_SOURCE_TYPE, GL_SOURCE_TYPE, ingest, settle, uploadFile, type SourceFixture } from "../../../test/helpers/analysis-sources.js";
import { awaitJob, clientWithPermissions, waitFor } from "../../../test/helpers/entities.js";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { subscribe } from "../../../test/helpers/ws-client.js";

let server: TestServer;
let db: pg.Pool;
let fixture: SourceFixture;
const created: EntriesTableCreated[] = [];
const dropped: EntriesTableDropped[] = [];
onEntriesTableCreated(async (_tx, _emit, _actor, event) => void created.push(event));
onEntriesTableDropped(async (_tx, _emit, _actor, event) => void dropped.push(event));

beforeAll(async () => {
  server = await startTestServer({ cleanupIntervalSeconds: 1, schedulerTickSeconds: 1 });
  db = new pg.Pool({ connectionString: server.databaseUrl, max: 2 });
  fixture = await analysisFixture(server);
});
afterAll(async () => {
  await db?.end();
  await server?.close();
});

async function tableExists(name: string): Promise<boolean> {
  const { rows } = await db.query("SELECT to_regclass($1) AS t", [name]);
  return rows[0].t !== null;
}

async function events(type: string, entityId: string) {
  const { rows } = await db.query("SELECT payload FROM outbox_event WHERE type = $1 AND entity_id = $2 ORDER BY id", [type, entityId]);
  return rows.map((r) => r.payload);
}

/** A general ledger big enough that its ingestion job is still running when the next request arrives. */
function largeLedger(lines: number): string {
  const out = ["Journal ID,Effective Date,Account,Account Description,Debit,Credit"];
  for (let i = 0; i < lines / 2; i++) {
    const day = String((i % 28) + 1).padStart(2, "0");
    out.push(`JE${i},01/${day}/2023,10100,Cash,${(i % 997) + 1}.25,`, `JE${i},01/${day}/2023,40100,Revenue,,${(i % 997) + 1}.25`);
  }
  return out.join("\n") + "\n";
}

/** A QuickBooks Online journal with many transactions (its staging takes long enough to report progress). */
function largeQuickBooksJournal(transactions: number): string {
  const out = ["Journal", "Large Co", "", ",Date,Transaction Type,Num,Name,Memo/Description,Account,Debit,Credit"];
  for (let i = 0; i < transactions; i++) {
    const day = String((i % 28) + 1).padStart(2, "0");
    out.push(`,01/${day}/2023,Invoice,${1000 + i},Customer ${i % 50},,Accounts Receivable (A/R),$${(i % 90) + 10}.00,`);
    out.push(`,,,,,Service ${i},Services,,$${(i % 90) + 10}.00`);
    out.push(`,,,,,,,$${(i % 90) + 10}.00,$${(i % 90) + 10}.00`);
    out.push(",,,,,,,,");
  }
  return out.join("\n") + "\n";
}

describe("create, read, query, delete", () => {
  it("answers create with an ANALYSIS_SOURCE_INGESTION async result whose target already exists", async () => {
    const fileId = await uploadFile(server, fixture.engagementId, "gl.csv", ERP_GENERAL_LEDGER);
    const started = await createSource(server, fixture, fileId);
    const source = await server.api.get(`/analysis-sources/${started.entityId}`);
    expect(source.status).toBe(200);
    expect(source.body).toMatchObject({ analysisId: fixture.analysisId, engagementId: fixture.engagementId, analysisSourceTypeId: GL_SOURCE_TYPE, fileManagerFileId: fileId, fileManagerFiles: { ORIGINAL: fileId } });
    const { source: rested } = await settle(server, started.id);
    expect(rested.workflowState).toBe("COLUMNS_ANALYZED");
    expect(rested.version).toBeGreaterThan(source.body.version);
    const found = await server.api.post("/analysis-sources/query", { $and: [{ analysisId: fixture.analysisId }, { workflowState: "COLUMNS_ANALYZED" }, { id: rested.id }] });
    expect(found.body.content.map((s: { id: string }) => s.id)).toEqual([rested.id]);
    const polled = await server.api.post("/async-results/query", { $and: [{ entityId: rested.id }, { type: "ANALYSIS_SOURCE_INGESTION" }, { entityType: "ANALYSIS_SOURCE" }] });
    expect(polled.body.content.map((r: { id: string; status: string }) => [r.id, r.status])).toEqual([[started.id, "COMPLETE"]]);
  });

  it("refuses bad create bodies with 400 naming the problem", async () => {
    const fileId = await uploadFile(server, fixture.engagementId, "gl.csv", ERP_GENERAL_LEDGER);
    const base = { analysisId: fixture.analysisId, analysisSourceTypeId: GL_SOURCE_TYPE, fileManagerFileId: fileId };
    const other = await analysisFixture(server, "Other");
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...base, analysisId: "0123456789abcdef01234567" }, "analysisId"],
      [{ ...base, analysisSourceTypeId: "0123456789abcdef01234567" }, "analysisSourceTypeId"],
      [{ ...base, analysisSourceTypeId: FUND_GL_SOURCE_TYPE }, "analysisSourceTypeId"],
      [{ ...base, analysisId: other.analysisId }, "fileManagerFileId"],
      [{ ...base, engagementId: other.engagementId }, "engagementId"],
      [{ ...base, targetWorkflowState: "NOWHERE" }, "targetWorkflowState"],
      [{ ...base, targetWorkflowState: "FUNDS_REVIEWED" }, "targetWorkflowState"],
      [{ ...base, surprise: 1 }, "surprise"],
      [{ ...base, proposedTransactionIdSelection: { type: "COMBINATION", columnSelection: [] } }, "proposedTransactionIdSelection"],
    ];
    for (const [body, named] of cases) {
      const response = await server.api.post("/analysis-sources", body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(response.body)).toContain(named);
    }
  });

  it("reads and creates through GraphQL with the same rules", async () => {
    const fileId = await uploadFile(server, fixture.engagementId, "gl.csv", ERP_GENERAL_LEDGER);
    const result = await server.gql(
      `mutation($input: CreateAnalysisSourceInput!) { createAnalysisSource(input: $input) { id type entityId entityType status } }`,
      { input: { analysisId: fixture.analysisId, analysisSourceTypeId: GL_SOURCE_TYPE, fileManagerFileId: fileId, targetWorkflowState: "EFFECTIVE_DATE_METRICS_ANALYZED" } },
    );
    expect(result.body.errors).toBeUndefined();
    const job = result.body.data.createAnalysisSource;
    expect(job).toMatchObject({ type: "ANALYSIS_SOURCE_INGESTION", entityType: "ANALYSIS_SOURCE", status: "IN_PROGRESS" });
    await awaitJob(server.api, job.id);
    const read = await server.gql(`query($id: ID!) { analysisSource(id: $id) { workflowState columnMappings { position field platformField mappingType } transactionIdSelection { type } fileInfoVersions } analysisSourceEffectiveDateMetrics(id: $id, period: DAY) { periodType entriesInPeriod } }`, { id: job.entityId });
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data.analysisSource.workflowState).toBe("EFFECTIVE_DATE_METRICS_ANALYZED");
    // Mappings are typed objects in GraphQL: the recommendation mapped the account column.
    expect(read.body.data.analysisSource.columnMappings).toContainEqual({ position: 4, field: "Account", platformField: "account", mappingType: "AUTO" });
    expect(read.body.data.analysisSource.transactionIdSelection).toBeNull();
    expect(read.body.data.analysisSourceEffectiveDateMetrics).toEqual({ periodType: "DAY", entriesInPeriod: 7 });
    expect(read.body.data.analysisSource.fileInfoVersions).toEqual({ ORIGINAL: expect.stringMatching(/^[0-9a-f]{24}$/) });
    const limited = await clientWithPermissions(server.api, ["api.analyses.read"]);
    expect((await limited.get(`/analysis-sources/${job.entityId}`)).status).toBe(403);
  });

  it("deletes a source with its engine tables, previews and data table, and refuses a second delete with 404", async () => {
    const { source } = await ingest(server, fixture, ERP_GENERAL_LEDGER, { targetWorkflowState: "COMPLETED" });
    expect(await tableExists(`ingest.entries_${source.id}`)).toBe(true);
    expect(created.find((e) => e.analysisSourceId === source.id)).toMatchObject({ table: `ingest.entries_${source.id}`, rowCount: 10, analysisId: fixture.analysisId, engagementId: fixture.engagementId, analysisSourceTypeId: GL_SOURCE_TYPE });
    const usedBy = { engagementId: fixture.engagementId, usedByAnalysisSources: { $contains: source.id } };
    expect((await server.api.post("/account-mappings/query", usedBy)).body.totalElements).toBeGreaterThan(0);
    const deleted = await server.api.delete(`/analysis-sources/${source.id}`);
    expect(deleted.status).toBe(204);
    // Its accounts' mappings no longer name it: delete-unused can remove those nothing else uses.
    expect((await server.api.post("/account-mappings/query", usedBy)).body.totalElements).toBe(0);
    expect(dropped).toContainEqual({ analysisId: fixture.analysisId, analysisSourceId: source.id });
    expect(await tableExists(`ingest.entries_${source.id}`)).toBe(false);
    expect(await tableExists(`ingest.stg_${source.id}`)).toBe(false);
    expect((await server.api.post("/transaction-id-previews/query", { analysisSourceId: source.id })).body.content).toEqual([]);
    expect((await server.api.get(`/analysis-sources/${source.id}`)).status).toBe(404);
    expect((await server.api.delete(`/analysis-sources/${source.id}`)).status).toBe(404);
  });

  it("drops the engine tables of sources removed with their analysis (scheduled cleanup)", async () => {
    const own = await analysisFixture(server, "Removed");
    const { source } = await ingest(server, own, ERP_GENERAL_LEDGER, { targetWorkflowState: "COMPLETED" });
    expect(await tableExists(`ingest.entries_${source.id}`)).toBe(true);
    expect((await server.api.delete(`/analyses/${own.analysisId}`)).status).toBe(204);
    expect((await server.api.get(`/analysis-sources/${source.id}`)).status).toBe(404);
    // The mappings its ledger created are unused now, and delete-unused removes them.
    const before = (await server.api.post("/account-mappings/query", { engagementId: own.engagementId })).body.totalElements;
    expect(before).toBeGreaterThan(0);
    expect((await server.api.post("/account-mappings/delete-unused", { engagementId: own.engagementId })).body).toMatchObject({ deletedCount: before });
    expect((await server.api.post("/account-mappings/query", { engagementId: own.engagementId })).body.totalElements).toBe(0);
    await waitFor(async () => ((await tableExists(`ingest.entries_${source.id}`)) || (await tableExists(`ingest.stg_${source.id}`)) ? undefined : true), "orphaned tables dropped", 10_000);
  });
});

describe("layouts from upload to COMPLETED", () => {
  it.each([
    ["general ledger CSV", ERP_GENERAL_LEDGER, null, 10],
    ["QuickBooks Online journal", QUICKBOOKS_ONLINE_JOURNAL, "QUICKBOOKS_JOURNAL", 7],
    ["QuickBooks Desktop journal", QUICKBOOKS_DESKTOP_JOURNAL, "QUICKBOOKS_JOURNAL", 4],
    ["QuickBooks transaction detail by account", QUICKBOOKS_TRANSACTION_DETAIL, "QUICKBOOKS_TRANSACTION_DETAIL_BY_ACCOUNT", 5],
    ["Sage 50 general ledger", SAGE50_GENERAL_LEDGER, "SAGE50_LEDGER", 6],
  ] as const)("%s", async (_name, content, format, rows) => {
    const { source } = await ingest(server, fixture, content, { targetWorkflowState: "COMPLETED", applyDegrouper: true });
    expect(source.errors).toEqual([]);
    expect(source).toMatchObject({ workflowState: "COMPLETED", degrouperApplied: format !== null });
    expect(source.detectedFormat).toBe(format ?? undefined);
    const entries = await db.query(`SELECT count(*)::int AS n, count(effective_date)::int AS dated FROM ingest.entries_${source.id}`);
    expect(entries.rows[0].n).toBe(rows);
    expect(created.find((e) => e.analysisSourceId === source.id)?.rowCount).toBe(rows);
    // ...and is queryable as the analysis's data table, through the API.
    const tables = await server.api.post("/data-tables/query?include-unstable-schemas=true", { analysisId: fixture.analysisId });
    const table = tables.body.content.find((t: { analysisSourceId: string }) => t.analysisSourceId === source.id);
    expect(table, JSON.stringify(tables.body)).toMatchObject({ rowCount: rows });
    const data = await server.api.post(`/data-tables/${table.id}/data`, { pageSize: 2000 });
    expect(data.status, JSON.stringify(data.body)).toBe(200);
    expect(data.body.content).toHaveLength(rows);
    // The ERP export has one line with a blank account; the grouped layouts none.
    expect(data.body.content.filter((row: { account?: string }) => row.account).length).toBe(rows - (format === null ? 1 : 0));
  });

  it("Sage 50 general ledger: full automation takes its transaction ids from the Reference column (rated GOOD), not from the account", async () => {
    const { source } = await ingest(server, fixture, SAGE50_GENERAL_LEDGER, { targetWorkflowState: "COMPLETED", applyDegrouper: true });
    expect(source).toMatchObject({ workflowState: "COMPLETED", errors: [], detectedFormat: "SAGE50_LEDGER" });
    expect(source.fileInfo.columnData[3].columnName).toBe("Reference");
    expect(source.transactionIdSelection).toMatchObject({ type: "COMBINATION", columnSelection: [3], virtualColumnSelection: [] });
    const previews = (await server.api.post("/transaction-id-previews/query", { analysisSourceId: source.id })).body.content;
    const chosen = previews.find((p: { columnSelection: number[] }) => JSON.stringify(p.columnSelection) === "[3]");
    expect(chosen, JSON.stringify(previews)).toMatchObject({ type: "COMBINATION", overallRating: "GOOD" });
    expect(chosen.indicators.UNBALANCED_TRANSACTIONS).toMatchObject({ rating: "GOOD", value: { count: 0 }, data: [] });
    // Three balanced transactions of two entries each.
    const entries = await db.query(`SELECT txid, count(*)::int AS n, sum(debit - credit)::int AS balance FROM ingest.entries_${source.id} GROUP BY txid ORDER BY txid`);
    expect(entries.rows).toEqual([
      { txid: "10284", n: 2, balance: 0 },
      { txid: "3301", n: 2, balance: 0 },
      { txid: "CC0001", n: 2, balance: 0 },
    ]);
  });

  it("a NUL byte in the header and in a cell: the file info is computed and the source completes (NUL dropped, as in the staged rows)", async () => {
    const content = ERP_GENERAL_LEDGER.replace(",Memo,", ",Me\u0000mo,").replace("Year end", "Year\u0000end");
    expect(content).not.toBe(ERP_GENERAL_LEDGER);
    expect(content.split("\u0000")).toHaveLength(3);
    const fileId = await uploadFile(server, fixture.engagementId, "nul.csv", content);
    const file = await server.api.get(`/file-manager/${fileId}`);
    const info = await waitFor(async () => {
      const response = await server.api.get(`/file-info/${file.body.fileInfoId}`);
      return response.body.status === "PENDING" ? undefined : response.body;
    }, "the file's file info");
    expect(info).toMatchObject({ status: "COMPLETE", type: "TABULAR_FILE_INFO" });
    expect(JSON.stringify(info)).not.toContain("\\u0000");
    expect(info.firstLine).toContain(",Memo,");
    expect(info.columnData.map((c: { columnName: string }) => c.columnName)).toContain("Memo");

    const { source } = await settle(server, (await createSource(server, fixture, fileId, { targetWorkflowState: "COMPLETED" })).id);
    expect(source).toMatchObject({ workflowState: "COMPLETED", errors: [] });
    expect(source.fileInfo.tableMetadata.specialCharacterMetrics).toMatchObject({ state: "WARN", invalidCharacters: 2 });
    // The deprecated fileInfo also carries its whole-file metrics under the spec's name.
    expect(source.fileInfo.metadata).toEqual(source.fileInfo.tableMetadata);
    expect(source.columnMappings).toContainEqual(expect.objectContaining({ field: "Memo", platformField: "memo" }));
    const memo = await db.query(`SELECT memo FROM ingest.entries_${source.id} WHERE memo LIKE 'Year%' ORDER BY row_no`);
    expect(memo.rows.map((r) => r.memo)).toEqual(["Yearend", "Year end"]);
  });

  it("a chart of accounts (no effective dates, no transaction ids) goes straight from mapping to parse", async () => {
    const own = await analysisFixture(server, "Chart");
    const chart = ["Account,Description,Type", "1000,Cash,Asset", "2000,Accounts Payable,Liability", "4000,Sales,Revenue"].join("\n") + "\n";
    const { source } = await ingest(server, own, chart, { analysisSourceTypeId: "4b8361d00000000000000004", targetWorkflowState: "COMPLETED" });
    expect(source.workflowState).toBe("COMPLETED");
    expect(source.transactionIdSelection).toBeUndefined();
    // The bare "Description" and "Type" headers are the account's description and type here: the
    // chart of accounts has no other field they could mean (a journal maps "Description" to memo).
    expect(source.columnMappings.map((m: { field: string; platformField?: string; mappingType: string }) => [m.field, m.platformField ?? null, m.mappingType])).toEqual([
      ["Account", "account", "AUTO"],
      ["Description", "account_description", "AUTO"],
      ["Type", "account_type", "AUTO"],
    ]);
    const entries = await db.query(`SELECT account, account_description, account_type FROM ingest.entries_${source.id} ORDER BY row_no`);
    expect(entries.rows).toEqual([
      { account: "1000", account_description: "Cash", account_type: "Asset" },
      { account: "2000", account_description: "Accounts Payable", account_type: "Liability" },
      { account: "4000", account_description: "Sales", account_type: "Revenue" },
    ]);
    // The source type has no effective dates at all: not a state to wait for (400, not 409).
    const metrics = await server.api.get(`/analysis-sources/${source.id}/effective-date-metrics?period=DAY`);
    expect(metrics.status).toBe(400);
    expect(metrics.body.problems).toEqual([expect.objectContaining({ problemType: "ILLEGAL_ARGUMENT", identifier: "analysisSourceId" })]);
    expect(metrics.body.problems[0].reason).toContain("Chart of accounts, which has no effective dates");
    expect(metrics.body.problems[0].reason).not.toContain("COMPLETED");
    const mappings = await server.api.post("/account-mappings/query?size=50", { engagementId: own.engagementId });
    expect(mappings.body.content.map((m: { account: string }) => m.account).sort()).toEqual(["1000", "2000", "4000"]);
  });

  it("describes the file as its own file info does (computed once, on import, and reused by staging)", async () => {
    const fileId = await uploadFile(server, fixture.engagementId, "ledger.csv", ERP_GENERAL_LEDGER);
    const file = await server.api.get(`/file-manager/${fileId}`);
    const info = await waitFor(async () => {
      const response = await server.api.get(`/file-info/${file.body.fileInfoId}`);
      return response.body.type === "TABULAR_FILE_INFO" ? response.body : undefined;
    }, "the file's file info");
    const { source } = await settle(server, (await createSource(server, fixture, fileId, { targetWorkflowState: "COLUMNS_ANALYZED" })).id);
    expect(source.workflowState).toBe("COLUMNS_ANALYZED");
    expect(source.fileInfo.columnData).toEqual(info.columnData);
    expect(source.fileInfo).toMatchObject({ delimiter: info.delimiter, headerRowIndex: info.headerRowIndex, firstLine: info.firstLine });
    // The source adds the metrics of the recommended mapping to the file's own.
    expect(source.fileInfo.tableMetadata).toMatchObject(info.tableMetadata);
    expect(Object.keys(source.fileInfo.tableMetadata)).toEqual(expect.arrayContaining(["blankRequiredValues", "debitsNotEqualCredits"]));
  });

  it("stages the file again when its UNLOGGED staging table was emptied (what a database crash does)", async () => {
    const { source } = await ingest(server, fixture, ERP_GENERAL_LEDGER, { targetWorkflowState: "INTEGRITY_CHECKED" });
    expect(source.workflowState).toBe("INTEGRITY_CHECKED");
    await db.query(`TRUNCATE ingest.stg_${source.id}`);
    const { source: done } = await advance(server, source.id, { targetWorkflowState: "COMPLETED" });
    expect(done).toMatchObject({ workflowState: "COMPLETED", errors: [] });
    const entries = await db.query(`SELECT count(*)::int AS n FROM ingest.entries_${source.id}`);
    expect(entries.rows[0].n).toBe(10);
  });

  it("reads the header row named by presetHeaderRowIndex", async () => {
    const withPreamble = "Exported by FinanceSuite,,,\nAll entities,,,\n" + ERP_GENERAL_LEDGER;
    const { source } = await ingest(server, fixture, withPreamble, { presetHeaderRowIndex: 2 });
    expect(source.presetHeaderRowIndex).toBe(2);
    expect(source.fileInfo.headerRowIndex).toBe(2);
    expect(source.fileInfo.columnData[0].columnName).toBe("Journal ID");
  });
});

describe("column mapping in place", () => {
  it("applies a new proposal, or edited applied mappings, at DATA_VALIDATION_CONFIRMED without moving", async () => {
    const { source } = await ingest(server, fixture, SIGNED_AMOUNT_LEDGER, { targetWorkflowState: "DATA_VALIDATION_CONFIRMED" });
    expect(source.workflowState).toBe("DATA_VALIDATION_CONFIRMED");
    const date = source.ambiguousColumnResolutions.find((r: { position: number }) => r.position === 0);
    expect(date.ambiguousFormats).toEqual(expect.arrayContaining(["MM/dd/yyyy", "dd/MM/yyyy"]));
    const { source: proposed } = await advance(server, source.id, {
      proposedColumnMappings: [
        { columnPosition: 0, platformField: "effective_date" },
        { columnPosition: 1, platformField: "txid" },
        { columnPosition: 2, platformField: "account" },
        { columnPosition: 4, platformField: "amount" },
        { columnPosition: 5, additionalColumnName: "Narrative" },
      ],
      proposedAmbiguousColumnResolutions: [{ position: 0, selectedFormat: "dd/MM/yyyy" }],
    });
    expect(proposed.workflowState).toBe("DATA_VALIDATION_CONFIRMED");
    expect(proposed.columnMappings.find((m: { position: number }) => m.position === 5)).toMatchObject({ additionalColumnName: "Narrative" });
    expect(proposed.columnMappings.find((m: { position: number }) => m.position === 3).platformField).toBeUndefined();
    expect(proposed.ambiguousColumnResolutions.find((r: { position: number }) => r.position === 0).selectedFormat).toBe("dd/MM/yyyy");
    // The applied mappings, edited and sent back, become the next proposal.
    const edited = proposed.columnMappings.map((m: { position: number; platformField?: string; additionalColumnName?: string }) =>
      m.position === 3 ? { position: 3, platformField: "account_description" } : { position: m.position, platformField: m.platformField ?? null, additionalColumnName: m.additionalColumnName ?? null },
    );
    const { source: applied } = await advance(server, source.id, { columnMappings: edited, targetWorkflowState: "COMPLETED" });
    expect(applied.workflowState).toBe("COMPLETED");
    expect(applied.columnMappings.find((m: { position: number }) => m.position === 3)).toMatchObject({ platformField: "account_description" });
    const entries = await db.query(`SELECT txid, account_description, x_narrative FROM ingest.entries_${source.id} ORDER BY row_no LIMIT 1`);
    expect(entries.rows[0]).toEqual({ txid: "100", account_description: "Cash", x_narrative: "Owner contribution" });
  });
});

describe("failures", () => {
  it("an unreadable (binary) file fails the workflow with the cause", async () => {
    const zip = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(200, 7)]);
    const { source, job } = await ingest(server, fixture, zip, {}, "ERROR");
    expect(source.workflowState).toBe("FAILED");
    // It starts like a workbook (a ZIP archive) but is none.
    expect(source.errors).toEqual([{ code: "NOT_TABULAR", defaultMessage: expect.stringMatching(/^The file cannot be read as an .xlsx workbook: /) }]);
    expect(job.error).toBe(source.errors[0].defaultMessage);
    expect(await events("ingestion.failed", source.id)).toEqual([{ analysisId: fixture.analysisId, analysisSourceId: source.id, engagementId: fixture.engagementId }]);
  });

  it("random bytes named .csv fail the workflow with the cause (binary data), and the file info says FILE_INFO", async () => {
    // Deterministic noise (a linear congruential generator): NUL bytes and control characters as any binary file has.
    const noise = Buffer.alloc(4096);
    for (let i = 0, x = 12345; i < noise.length; i++) {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      noise[i] = (x >> 16) & 0xff;
    }
    const { source, job, fileId } = await ingest(server, fixture, noise, { targetWorkflowState: "COMPLETED" }, "ERROR");
    expect(source.workflowState).toBe("FAILED");
    expect(source.errors).toEqual([{ code: "NOT_TABULAR", defaultMessage: "The file cannot be read as delimited text: The file holds binary data, not delimited text" }]);
    expect(job.error).toBe(source.errors[0].defaultMessage);
    const file = await server.api.get(`/file-manager/${fileId}`);
    const info = await waitFor(async () => {
      const response = await server.api.get(`/file-info/${file.body.fileInfoId}`);
      return response.body.status === "PENDING" ? undefined : response.body;
    }, "the file's file info");
    expect(info).toMatchObject({ status: "COMPLETE", type: "FILE_INFO" });
  });

  it.each([
    ["a header row only", "Journal ID,Date,Account,Description,Debit,Credit\n", "NO_DATA_ROWS", "The file has no data rows below its header (row 1): there is nothing to ingest"],
    ["a header row and blank lines", "Journal ID,Date,Account,Description,Debit,Credit\r\n\r\n  \r\n", "NO_DATA_ROWS", "The file has no data rows below its header (row 1): there is nothing to ingest"],
    ["an empty file", "", "EMPTY_FILE", "The file is empty (0 bytes): there is nothing to ingest"],
  ])("%s fails as soon as that is known, with the cause, and is not retried", async (_name, content, code, cause) => {
    const { source, job } = await ingest(server, fixture, content, { targetWorkflowState: "COMPLETED" }, "ERROR");
    expect(source.workflowState).toBe("FAILED");
    expect(source.errors).toEqual([{ code, defaultMessage: cause }]);
    expect(job.error).toBe(cause);
    // A permanent failure: one attempt, and nothing rated or parsed.
    const attempts = await db.query("SELECT attempts FROM async_result WHERE entity_id = $1", [source.id]);
    expect(attempts.rows).toEqual([{ attempts: 1 }]);
    expect((await server.api.post("/transaction-id-previews/query", { analysisSourceId: source.id })).body.content).toEqual([]);
    expect(await tableExists(`ingest.entries_${source.id}`)).toBe(false);
    expect(await events("ingestion.failed", source.id)).toHaveLength(1);
  });

  it("a mapping that leaves a required field unmapped fails with the field named", async () => {
    const { source } = await ingest(server, fixture, SIGNED_AMOUNT_LEDGER, { targetWorkflowState: "COMPLETED", proposedColumnMappings: [{ columnPosition: 0, platformField: "effective_date" }, { columnPosition: 4, platformField: "amount" }] }, "ERROR");
    expect(source.workflowState).toBe("FAILED");
    expect(source.errors).toEqual([{ code: "COLUMN_MAPPING_FAILED", defaultMessage: expect.stringContaining("account") }]);
  });

  it("refuses updates outside the updatable states and with a stale version (409)", async () => {
    const { source } = await ingest(server, fixture, ERP_GENERAL_LEDGER, { targetWorkflowState: "COMPLETED" });
    const completed = await server.api.put(`/analysis-sources/${source.id}`, { version: source.version, warningsIgnored: true });
    expect(completed.status).toBe(409);
    expect(completed.body.problems?.[0]?.problemType ?? JSON.stringify(completed.body)).toContain("INVALID_STATE");
    const { source: resting } = await ingest(server, fixture, ERP_GENERAL_LEDGER, { targetWorkflowState: "EFFECTIVE_DATE_METRICS_ANALYZED" });
    expect((await server.api.put(`/analysis-sources/${resting.id}`, { version: resting.version - 1, warningsIgnored: true })).status).toBe(409);
    const backwards = await server.api.put(`/analysis-sources/${resting.id}`, { version: resting.version, targetWorkflowState: "COLUMNS_ANALYZED" });
    expect(backwards.status).toBe(409);
    // transactionIdSelection is changed at INTEGRITY_CHECKED only.
    expect((await server.api.put(`/analysis-sources/${resting.id}`, { version: resting.version, transactionIdSelection: { type: "COMBINATION", columnSelection: [0] } })).status).toBe(409);
  });

  it("refuses update and delete of the source, and delete of its file, while its job runs", async () => {
    const fileId = await uploadFile(server, fixture.engagementId, "large.csv", largeLedger(60_000));
    const started = await createSource(server, fixture, fileId, { targetWorkflowState: "COMPLETED" });
    const [update, remove, removeFile] = await Promise.all([
      server.api.put(`/analysis-sources/${started.entityId}`, { version: 0, warningsIgnored: true }),
      server.api.delete(`/analysis-sources/${started.entityId}`),
      server.api.delete(`/file-manager/${fileId}`),
    ]);
    expect(update.status).toBe(409);
    expect(JSON.stringify(update.body)).toContain("in progress");
    expect(remove.status).toBe(409);
    expect(removeFile.status).toBe(409);
    expect(JSON.stringify(removeFile.body)).toContain(started.entityId);
    const { source } = await settle(server, started.id);
    expect(source.workflowState).toBe("COMPLETED");
    expect((await server.api.delete(`/file-manager/${fileId}`)).status).toBe(204);
    expect((await server.api.delete(`/analysis-sources/${source.id}`)).status).toBe(204);
  });
});

describe("effective date metrics and previews", () => {
  it("gives DAY, WEEK and MONTH histograms against the analysis period, 400 for other periods", async () => {
    const { source } = await ingest(server, fixture, ERP_GENERAL_LEDGER, { targetWorkflowState: "EFFECTIVE_DATE_METRICS_ANALYZED" });
    const month = await server.api.get(`/analysis-sources/${source.id}/effective-date-metrics?period=MONTH`);
    expect(month.status).toBe(200);
    // Plain numbers (wire reference 8): counts, MONEY_100 integers, {label: count} histograms.
    expect(month.body).toMatchObject({
      periodType: "MONTH",
      entriesInPeriod: 7,
      entriesOutOfPeriod: 2,
      debitsInPeriod: 134198,
      creditsInPeriod: expect.any(Number),
      inPeriodCountHistogram: { "2023-01": 2, "2023-02": 4, "2023-03": 1 },
      outOfPeriodCountHistogram: { "2022-12": 2 },
      entriesWithoutValidDate: 1,
    });
    for (const key of ["entriesInPeriod", "entriesOutOfPeriod", "debitsInPeriod", "creditsInPeriod"]) expect(Number.isInteger(month.body[key]), key).toBe(true);
    // Beside them, each metric's state and example rows. A preview's row is the file's own fields in
    // column order, like the file info's previews (fileInfo.columnData names them): no staging columns.
    expect(month.body.metricDetails.entriesOutOfPeriod).toMatchObject({ state: "WARN", entryCount: 2 });
    expect(month.body.metricDetails.entriesOutOfPeriod.dataPreviews[0]).toEqual({
      rowIndex: 10,
      value: "2022-12-31",
      row: ["JE1004", "1", "12/31/2022", "12/31/2022", "70100", "Depreciation", "510.00", "", "Year end", "GJ", "apatel", "mdupont", "USD"],
    });
    expect(month.body.metricDetails.entriesOutOfPeriod.dataPreviews[0].row).toHaveLength(source.fileInfo.columnData.length);
    // The line with an unreadable date (13/45/2023), its quoted multi-line memo as in the file.
    expect(month.body.metricDetails.entriesWithoutValidDate.dataPreviews).toEqual([
      { rowIndex: 8, row: ["JE1003", "1", "13/45/2023", "03/31/2023", "", "Unknown", "100.00", "", "Reclass per review,\nsee memo", "GJ", "lgarcia", "", "USD"] },
    ]);
    const week = await server.api.get(`/analysis-sources/${source.id}/effective-date-metrics?period=WEEK`);
    expect(week.body.inPeriodCountHistogram).toEqual({ "2023-01-09": 2, "2023-02-27": 4, "2023-03-27": 1 });
    const day = await server.api.get(`/analysis-sources/${source.id}/effective-date-metrics?period=DAY`);
    expect(day.body.inPeriodCountHistogram).toEqual({ "2023-01-15": 2, "2023-02-28": 4, "2023-03-31": 1 });
    expect((await server.api.get(`/analysis-sources/${source.id}/effective-date-metrics?period=YEAR`)).status).toBe(400);
    expect((await server.api.get(`/analysis-sources/0123456789abcdef01234567/effective-date-metrics?period=DAY`)).status).toBe(404);
  });

  it("before EFFECTIVE_DATE_METRICS_ANALYZED (or FAILED) the source's state conflicts: 409 INVALID_STATE", async () => {
    const { source } = await ingest(server, fixture, ERP_GENERAL_LEDGER, { targetWorkflowState: "DATA_VALIDATION_CONFIRMED" });
    expect(source.workflowState).toBe("DATA_VALIDATION_CONFIRMED");
    const early = await server.api.get(`/analysis-sources/${source.id}/effective-date-metrics?period=DAY`);
    expect(early.status, JSON.stringify(early.body)).toBe(409);
    expect(early.body.problems).toEqual([expect.objectContaining({ problemType: "INVALID_STATE", identifier: "analysisSourceId" })]);
    expect(early.body.problems[0].reason).toContain("this one is DATA_VALIDATION_CONFIRMED");
    // GraphQL reports the same conflict.
    const read = await server.gql(`query($id: ID!) { analysisSourceEffectiveDateMetrics(id: $id, period: DAY) { periodType } }`, { id: source.id });
    expect(read.body.errors?.[0]?.extensions).toMatchObject({ code: "CONFLICT", status: 409 });
    const { source: moved } = await advance(server, source.id, { targetWorkflowState: "EFFECTIVE_DATE_METRICS_ANALYZED" });
    expect(moved.workflowState).toBe("EFFECTIVE_DATE_METRICS_ANALYZED");
    expect((await server.api.get(`/analysis-sources/${source.id}/effective-date-metrics?period=DAY`)).status).toBe(200);
  });

  it("reads and queries transaction id previews with their ratings and example transactions", async () => {
    const { source } = await ingest(server, fixture, ERP_GENERAL_LEDGER, { targetWorkflowState: "INTEGRITY_CHECKED" });
    const page = await server.api.post("/transaction-id-previews/query", { $and: [{ analysisSourceId: source.id }, { overallRating: "FAIL" }] });
    expect(page.status).toBe(200);
    expect(page.body.content).toHaveLength(2);
    const preview = await server.api.get(`/transaction-id-previews/${page.body.content[0].id}`);
    expect(preview.body).toMatchObject({ analysisSourceId: source.id, analysisId: fixture.analysisId, engagementId: fixture.engagementId, type: "COMBINATION", smartSplitter: false });
    // wire reference 8: each indicator's facts in `value`, its `data` always a list of preview rows.
    const unbalanced = preview.body.indicators.UNBALANCED_TRANSACTIONS;
    expect(unbalanced).toMatchObject({ rating: expect.any(String), value: { count: 1, transactions: expect.any(Number) } });
    expect(unbalanced.data.length).toBeGreaterThan(0);
    for (const row of unbalanced.data) expect(row).toEqual({ transactionId: expect.any(String), entryCount: expect.any(Number), balance: expect.any(Number), detailRows: expect.any(Array) });
    expect(unbalanced.data.every((row: { balance: number }) => row.balance !== 0)).toBe(true);
    for (const indicator of Object.values(preview.body.indicators) as Array<{ data: unknown }>) expect(Array.isArray(indicator.data)).toBe(true);
    expect(preview.body.entryPreviews.length).toBeGreaterThan(0);
  });
});

describe("parse results and events", () => {
  it("creates account mappings for new accounts, publishes unmapped.accounts and ingestion.complete", async () => {
    const own = await analysisFixture(server, "Accounts");
    // A suspense account neither the grouping's codes nor its descriptions know: it stays unmapped.
    const ledger = SIGNED_AMOUNT_LEDGER + "04/05/2023,103,9990-X,Suspense zq unclassified,$10.00,Suspense\n04/05/2023,103,1000,Cash,($10.00),Suspense\n";
    const { source } = await ingest(server, own, ledger, { targetWorkflowState: "COMPLETED", proposedAmbiguousColumnResolutions: [{ position: 0, selectedFormat: "MM/dd/yyyy" }] });
    expect(source.workflowState).toBe("COMPLETED");
    const mappings = await server.api.post("/account-mappings/query?size=50", { engagementId: own.engagementId });
    expect(mappings.body.content.map((m: { account: string }) => m.account).sort()).toEqual(["1000", "2000", "3000", "6000", "6100", "9990-X"]);
    expect(mappings.body.content.every((m: { usedByAnalysisSources: string[] }) => m.usedByAnalysisSources.includes(source.id))).toBe(true);
    const unmapped = mappings.body.content.filter((m: { status: string }) => m.status === "UNMAPPED");
    expect(unmapped.map((m: { account: string }) => m.account)).toContain("9990-X");
    const { rows } = await db.query("SELECT payload FROM outbox_event WHERE type = 'unmapped.accounts' AND entity_id = $1", [own.engagementId]);
    const me = (await server.api.get("/users/current")).body;
    expect(rows.map((r) => r.payload)).toEqual([{ engagementId: own.engagementId, targetUserId: me.id, unmappedCount: unmapped.length }]);
    expect(await events("ingestion.complete", source.id)).toEqual([{ analysisId: own.analysisId, analysisSourceId: source.id, engagementId: own.engagementId }]);
    const entries = await db.query(`SELECT txid, amount, to_char(effective_date, 'YYYY-MM-DD') AS d FROM ingest.entries_${source.id} ORDER BY row_no`);
    expect(entries.rows.map((r) => [r.d, r.amount])).toEqual([
      ["2023-01-02", "150000"],
      ["2023-01-02", "-150000"],
      ["2023-02-03", "75000"],
      ["2023-02-03", "-75000"],
      ["2023-03-04", "9995"],
      ["2023-03-04", "-9995"],
      ["2023-04-05", "1000"],
      ["2023-04-05", "-1000"],
    ]);
  });

  it("walks a fund ledger through FUNDS_REVIEWED, with account mappings per fund", async () => {
    const own = await analysisFixture(server, "Funds", FUND_ANALYSIS_TYPE);
    const funds = ["Fund,JE,Date,Account,Account Name,Debit,Credit", "GEN,1,01/02/2023,1000,Cash,10.00,", "GEN,1,01/02/2023,3000,Net assets,,10.00", "RES,2,01/03/2023,1000,Cash restricted,5.00,", "RES,2,01/03/2023,3000,Net assets,,5.00"].join("\n");
    const { source } = await ingest(server, own, funds, { analysisSourceTypeId: FUND_GL_SOURCE_TYPE, targetWorkflowState: "PARSED" });
    expect(source.workflowState).toBe("PARSED");
    const { source: reviewed } = await advance(server, source.id, { targetWorkflowState: "FUNDS_REVIEWED" });
    expect(reviewed.workflowState).toBe("FUNDS_REVIEWED");
    const { source: done } = await advance(server, source.id, { targetWorkflowState: "COMPLETED" });
    expect(done.workflowState).toBe("COMPLETED");
    const mappings = await server.api.post("/account-mappings/query?size=50", { engagementId: own.engagementId });
    expect(mappings.body.content.map((m: { fundId: string; account: string }) => `${m.fundId}/${m.account}`).sort()).toEqual(["GEN/1000", "GEN/3000", "RES/1000", "RES/3000"]);
  });

  it("feeds the analysis status: a source still in the workflow is a preflight error", async () => {
    const own = await analysisFixture(server, "Status");
    const { source } = await ingest(server, own, ERP_GENERAL_LEDGER);
    const status = await server.api.get(`/analyses/${own.analysisId}/status`);
    expect(status.body.ready).toBe(false);
    expect(status.body.preflightErrors).toContain("SOURCES_NOT_READY");
    expect(status.body.sourceStatuses).toEqual([{ sourceId: source.id, analysisSourceTypeId: GL_SOURCE_TYPE, periodId: own.periodId, status: "IN_PROGRESS" }]);
    // The parse finds an unreadable date: a warning, which blocks the run until it is ignored.
    const { source: parsed } = await advance(server, source.id, { targetWorkflowState: "PARSED" });
    expect(parsed.warnings).toEqual([{ code: "UNPARSEABLE_VALUES", defaultMessage: "1 value of effective_date could not be read and is empty in the entries" }]);
    expect((await server.api.get(`/analyses/${own.analysisId}/status`)).body.preflightErrors).toContain("SOURCE_WARNINGS_PRESENT");
    await advance(server, source.id, { warningsIgnored: true, targetWorkflowState: "COMPLETED" });
    const after = await server.api.get(`/analyses/${own.analysisId}/status`);
    expect(after.body.preflightErrors).not.toContain("SOURCES_NOT_READY");
    expect(after.body.preflightErrors).not.toContain("SOURCE_WARNINGS_PRESENT");
    expect(after.body.sourceStatuses[0].status).toBe("COMPLETED");
  });

  it("streams every state change over graphql-ws (analysisSourceProgress) until COMPLETED", async () => {
    const { source } = await ingest(server, fixture, ERP_GENERAL_LEDGER);
    const stream = subscribe<{ analysisSourceProgress: { workflowState: string; percent: number } }>(
      server.url,
      server.token,
      `subscription($id: ID!) { analysisSourceProgress(analysisSourceId: $id) { analysisSourceId workflowState percent stepPercent } }`,
      { id: source.id },
    );
    try {
      await stream.ready;
      await new Promise((r) => setTimeout(r, 100));
      const moved = await server.api.put(`/analysis-sources/${source.id}`, { version: source.version, targetWorkflowState: "COMPLETED" });
      expect(moved.status).toBe(200);
      await stream.next((e) => e.analysisSourceProgress.workflowState === "COMPLETED");
      await stream.completed;
      const states = [...new Set(stream.events.map((e) => e.analysisSourceProgress.workflowState))];
      expect(states).toEqual([
        "COLUMNS_ANALYZED",
        "DATA_VALIDATION_CONFIRMED",
        "COLUMN_MAPPINGS_CONFIRMED",
        "ANALYZING_EFFECTIVE_DATE_METRICS",
        "EFFECTIVE_DATE_METRICS_ANALYZED",
        "ANALYSIS_PERIOD_SELECTED",
        "CHECKING_INTEGRITY",
        "INTEGRITY_CHECKED",
        "PARSING",
        "PARSED",
        "SETTINGS_CONFIRMED",
        "COMPLETED",
      ]);
      const percents = stream.events.map((e) => e.analysisSourceProgress.percent);
      expect(percents.at(-1)).toBe(100);
      expect([...percents].sort((a, b) => a - b)).toEqual(percents);
      expect(stream.errors).toEqual([]);
    } finally {
      await stream.close();
    }
  });

  it("analysisSourceProgress on a COMPLETED source: one event with its state, then the subscription ends", async () => {
    const { source } = await ingest(server, fixture, ERP_GENERAL_LEDGER, { targetWorkflowState: "COMPLETED" });
    expect(source.workflowState).toBe("COMPLETED");
    const stream = subscribe<{ analysisSourceProgress: { analysisSourceId: string; workflowState: string; percent: number; stepPercent: number | null; message: string | null } }>(
      server.url,
      server.token,
      `subscription($id: ID!) { analysisSourceProgress(analysisSourceId: $id) { analysisSourceId workflowState percent stepPercent message } }`,
      { id: source.id },
    );
    try {
      await Promise.race([stream.completed, new Promise((_, reject) => setTimeout(() => reject(new Error(`not completed; got ${JSON.stringify(stream.events)}`)), 10_000))]);
      expect(stream.events).toEqual([{ analysisSourceProgress: { analysisSourceId: source.id, workflowState: "COMPLETED", percent: 100, stepPercent: null, message: null } }]);
      expect(stream.errors).toEqual([]);
    } finally {
      await stream.close();
    }
  });

  it("analysisSourceProgress on a source resting at a Step: its state first, after an update the walk's states until the next rest, open meanwhile", async () => {
    const { source } = await ingest(server, fixture, ERP_GENERAL_LEDGER);
    expect(source.workflowState).toBe("COLUMNS_ANALYZED");
    const stream = subscribe<{ analysisSourceProgress: { workflowState: string; percent: number; stepPercent: number | null } }>(
      server.url,
      server.token,
      `subscription($id: ID!) { analysisSourceProgress(analysisSourceId: $id) { workflowState percent stepPercent } }`,
      { id: source.id },
    );
    let completed = false;
    void stream.completed.then(() => (completed = true));
    const states = () => stream.events.map((e) => e.analysisSourceProgress.workflowState).filter((state, i, all) => state !== all[i - 1]);
    try {
      // The current state comes first, with no job running: the subscription is listening once it arrives.
      const first = await stream.next();
      expect(first.analysisSourceProgress).toMatchObject({ workflowState: "COLUMNS_ANALYZED", stepPercent: null });
      await new Promise((r) => setTimeout(r, 300));
      expect(stream.events).toHaveLength(1);
      expect(completed).toBe(false);

      const { source: rested } = await advance(server, source.id, { targetWorkflowState: "EFFECTIVE_DATE_METRICS_ANALYZED" });
      expect(rested.workflowState).toBe("EFFECTIVE_DATE_METRICS_ANALYZED");
      await stream.next((e) => e.analysisSourceProgress.workflowState === "EFFECTIVE_DATE_METRICS_ANALYZED");
      await new Promise((r) => setTimeout(r, 300));
      expect(states()).toEqual(["COLUMNS_ANALYZED", "DATA_VALIDATION_CONFIRMED", "COLUMN_MAPPINGS_CONFIRMED", "ANALYZING_EFFECTIVE_DATE_METRICS", "EFFECTIVE_DATE_METRICS_ANALYZED"]);
      expect(completed).toBe(false);

      await advance(server, source.id, { targetWorkflowState: "COMPLETED" });
      await stream.completed;
      expect(states().slice(4)).toEqual(["EFFECTIVE_DATE_METRICS_ANALYZED", "ANALYSIS_PERIOD_SELECTED", "CHECKING_INTEGRITY", "INTEGRITY_CHECKED", "PARSING", "PARSED", "SETTINGS_CONFIRMED", "COMPLETED"]);
      const percents = stream.events.map((e) => e.analysisSourceProgress.percent);
      expect([...percents].sort((a, b) => a - b)).toEqual(percents);
      expect(stream.errors).toEqual([]);
    } finally {
      await stream.close();
    }
  });

  it("passing through, builds entries and transactions ahead: the same data tables as a walk that rests before parsing", async () => {
    const content = largeLedger(2_000);
    const { source: through } = await ingest(server, fixture, content, { targetWorkflowState: "COMPLETED" });
    const { source: resting } = await ingest(server, fixture, content, { targetWorkflowState: "INTEGRITY_CHECKED" });
    const { source: stepwise } = await advance(server, resting.id, { targetWorkflowState: "COMPLETED" });
    for (const source of [through, stepwise]) expect(source).toMatchObject({ workflowState: "COMPLETED", errors: [], transactionIdSelection: { type: "COMBINATION", columnSelection: [0] } });
    const rows = async (sourceId: string, logicalName: string) => {
      const tables = await server.api.post("/data-tables/query", { analysisSourceId: sourceId, logicalName });
      const [table] = tables.body.content;
      expect(table, `${logicalName} of ${sourceId}`).toBeDefined();
      const data = await server.api.post(`/data-tables/${table.id}/data`, { pageSize: 2000, sort: [{ field: "rowid", direction: "ASC" }] });
      expect(data.status, JSON.stringify(data.body)).toBe(200);
      return data.body.content;
    };
    for (const logicalName of ["gl_journal_lines", "gl_journal_tx"]) {
      const ahead = await rows(through.id, logicalName);
      expect(ahead.length).toBe(logicalName === "gl_journal_lines" ? 2_000 : 1_000);
      expect(ahead).toEqual(await rows(stepwise.id, logicalName));
    }
    const previews = async (sourceId: string) => (await server.api.post("/transaction-id-previews/query", { analysisSourceId: sourceId })).body.content.map((p: Record<string, unknown>) => [p.type, p.columnSelection, p.overallRating, p.indicators]);
    expect(await previews(through.id)).toEqual(await previews(stepwise.id));
    for (const name of [`ingest.entries_${through.id}_ahead`, `ingest.tx_${through.id}_ahead`]) expect(await tableExists(name)).toBe(false);
  });

  it("passing through, drops what it built ahead when CHECK_INTEGRITY chooses another transaction id", async () => {
    // Journal ids reused on other days: each id balances, but only id and date together separate the entries.
    const lines = ["Journal ID,Effective Date,Account,Debit,Credit"];
    for (let i = 0; i < 200; i++) lines.push(`JE${i % 50},03/0${(i % 9) + 1}/2023,10100,${i + 1}.00,`, `JE${i % 50},03/0${(i % 9) + 1}/2023,40100,,${i + 1}.00`);
    const { source } = await ingest(server, fixture, lines.join("\n") + "\n", { targetWorkflowState: "COMPLETED" });
    // Built ahead with the mapped id (rated POOR: one id spans several days); chosen: id and date (GOOD).
    expect(source).toMatchObject({ workflowState: "COMPLETED", errors: [], transactionIdSelection: { type: "COMBINATION", columnSelection: [0, 1] } });
    const tx = await db.query(`SELECT count(*)::int AS n, count(*) FILTER (WHERE balanced)::int AS balanced, sum(entry_count)::int AS entries, max(entry_count)::int AS largest FROM ingest.tx_${source.id}`);
    expect(tx.rows[0]).toEqual({ n: 200, balanced: 200, entries: 400, largest: 2 });
    const entries = await db.query(`SELECT count(DISTINCT txid)::int AS n FROM ingest.entries_${source.id}`);
    expect(entries.rows[0].n).toBe(200);
    for (const name of [`ingest.entries_${source.id}_ahead`, `ingest.tx_${source.id}_ahead`]) expect(await tableExists(name)).toBe(false);
  });

  it("reports progress within ANALYZING_EFFECTIVE_DATE_METRICS and PARSING: milestones and estimates, never going back", async () => {
    type Progress = { analysisSourceProgress: { workflowState: string; percent: number; stepPercent: number | null } };
    const walk = async (targets: string[]) => {
      const { source } = await ingest(server, fixture, largeLedger(100_000));
      expect(source.workflowState).toBe("COLUMNS_ANALYZED");
      const stream = subscribe<Progress>(server.url, server.token, `subscription($id: ID!) { analysisSourceProgress(analysisSourceId: $id) { workflowState percent stepPercent } }`, { id: source.id });
      try {
        await stream.ready;
        await new Promise((r) => setTimeout(r, 100));
        for (const target of targets) {
          const { source: moved } = await advance(server, source.id, { targetWorkflowState: target });
          expect(moved.workflowState).toBe(target);
          await stream.next((e) => e.analysisSourceProgress.workflowState === target);
        }
        const within = (state: string) => stream.events.filter((e) => e.analysisSourceProgress.workflowState === state && e.analysisSourceProgress.stepPercent !== null).map((e) => e.analysisSourceProgress.stepPercent!);
        for (const state of ["ANALYZING_EFFECTIVE_DATE_METRICS", "PARSING"]) {
          expect(within(state)[0], state).toBe(0);
          expect(within(state).at(-1), state).toBe(100);
          expect([...within(state)].sort((a, b) => a - b), state).toEqual(within(state));
        }
        const percents = stream.events.map((e) => e.analysisSourceProgress.percent);
        expect([...percents].sort((a, b) => a - b)).toEqual(percents);
        expect(stream.errors).toEqual([]);
        return { dates: within("ANALYZING_EFFECTIVE_DATE_METRICS"), parse: within("PARSING") };
      } finally {
        await stream.close();
      }
    };
    // Resting at INTEGRITY_CHECKED first: PARSING does the work, the first of its two statements done is a milestone.
    const stepwise = await walk(["INTEGRITY_CHECKED", "PARSED"]);
    expect(stepwise.parse.some((p) => p > 0 && p < 100)).toBe(true);
    // Passing through: the parse is built beside the date pass, whose end is the milestone; PARSING only moves tables.
    const through = await walk(["PARSED"]);
    expect(through.dates.some((p) => p > 0 && p < 100)).toBe(true);
    expect(through.parse).toEqual([0, 100]);
  });

  it("reports the percentage within the staging step of a large file", async () => {
    const { source } = await ingest(server, fixture, largeQuickBooksJournal(40_000));
    expect(source).toMatchObject({ workflowState: "FORMAT_DETECTED", detectedFormat: "QUICKBOOKS_JOURNAL" });
    const stream = subscribe<{ analysisSourceProgress: { workflowState: string; stepPercent: number | null } }>(
      server.url,
      server.token,
      `subscription($id: ID!) { analysisSourceProgress(analysisSourceId: $id) { workflowState stepPercent } }`,
      { id: source.id },
    );
    try {
      await stream.ready;
      await new Promise((r) => setTimeout(r, 100));
      const { source: moved } = await advance(server, source.id, { applyDegrouper: true, targetWorkflowState: "COLUMNS_ANALYZED" });
      expect(moved).toMatchObject({ workflowState: "COLUMNS_ANALYZED", degrouperApplied: true });
      await stream.next((e) => e.analysisSourceProgress.workflowState === "COLUMNS_ANALYZED");
      const within = stream.events.filter((e) => e.analysisSourceProgress.stepPercent !== null);
      expect(within.length).toBeGreaterThan(0);
      expect(within.every((e) => e.analysisSourceProgress.workflowState === "FORMAT_DETECTION_COMPLETED")).toBe(true);
      expect(within.every((e) => e.analysisSourceProgress.stepPercent! >= 0 && e.analysisSourceProgress.stepPercent! <= 100)).toBe(true);
    } finally {
      await stream.close();
    }
  });
});
