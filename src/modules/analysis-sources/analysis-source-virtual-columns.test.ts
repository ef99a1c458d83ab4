import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { advance, analysisFixture, ingest, type SourceFixture } from "../../../test/helpers/analysis-sources.js";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";

/** Virtual columns through the REST API: their values in the data table, and their audit (wire reference 8). */
let server: TestServer;
let fixture: SourceFixture;
beforeAll(async () => {
  server = await startTestServer();
  fixture = await analysisFixture(server, "Virtual columns");
});
afterAll(async () => server?.close());

/** Line references "JE1-1" carry the journal number before the dash; department and region are separate columns. */
const LEDGER = [
  "Date,Ref,Account,Dept,Region,Debit,Credit",
  "01/15/2023,JE1-1,10100,Sales,East,100.00,",
  "01/15/2023,JE1-2,40100,Sales,East,,100.00",
  "02/10/2023,JE2-1,60100,Ops,West,25.50,",
  "02/10/2023,JE2-2,20100,Ops,,,25.50",
].join("\n") + "\n";

const VIRTUAL_COLUMNS = [
  { name: "Journal", type: "SPLIT_BY_DELIMITER", columnIndex: 1, delimiter: "-", splitIndex: 0 },
  { name: "Segment", type: "JOIN", columnIndices: [3, 4], delimiter: "/" },
  { name: "Posting date", type: "DUPLICATE", columnIndex: 0 },
];

const MAPPINGS = [
  { columnPosition: 0, platformField: "effective_date" },
  { virtualColumnIndex: 0, platformField: "txid" },
  { columnPosition: 2, platformField: "account" },
  { columnPosition: 5, platformField: "debit" },
  { columnPosition: 6, platformField: "credit" },
  { virtualColumnIndex: 1, additionalColumnName: "Segment" },
  { virtualColumnIndex: 2, platformField: "entry_date" },
];

async function entriesTableOf(sourceId: string) {
  const tables = await server.api.post("/data-tables/query", { $and: [{ analysisSourceId: sourceId }, { logicalName: "gl_journal_lines" }] });
  expect(tables.status).toBe(200);
  expect(tables.body.content).toHaveLength(1);
  return tables.body.content[0];
}

describe("virtual columns to COMPLETED", () => {
  it("SPLIT_BY_DELIMITER, JOIN and DUPLICATE columns feed txid, an additional column and entry_date in the data table", async () => {
    const { source } = await ingest(server, fixture, LEDGER, {
      targetWorkflowState: "COMPLETED",
      proposedVirtualColumns: VIRTUAL_COLUMNS,
      proposedColumnMappings: MAPPINGS,
      proposedTransactionIdSelection: { type: "COMBINATION", columnSelection: [], virtualColumnSelection: [0] },
    });
    expect(source.errors).toEqual([]);
    expect(source.workflowState).toBe("COMPLETED");
    expect(source.virtualColumns.map((v: { name: string; position: number }) => [v.name, v.position])).toEqual([["Journal", 7], ["Segment", 8], ["Posting date", 9]]);
    expect(source.columnMappings.find((m: { position: number }) => m.position === 9)).toMatchObject({ field: "Posting date", platformField: "entry_date", mappingType: "MANUAL" });
    expect(source.transactionIdSelection).toMatchObject({ type: "COMBINATION", columnSelection: [], virtualColumnSelection: [0] });

    const table = await entriesTableOf(source.id);
    const byField = Object.fromEntries(table.columns.map((c: { field: string }) => [c.field, c]));
    expect(byField.x_segment).toMatchObject({ type: "STRING", originalName: "Segment" });
    // Columns fed by a virtual column are named after it, as file columns after their header.
    expect(byField.entry_date).toMatchObject({ type: "DATE", platformField: "entry_date", originalName: "Posting date" });
    expect(byField.txid).toMatchObject({ type: "STRING", platformField: "txid", originalName: "Journal" });
    expect(byField.effective_date).toMatchObject({ originalName: "Date" });
    const data = await server.api.post(`/data-tables/${table.id}/data`, { excludeFields: ["debit", "credit"] });
    expect(data.status, JSON.stringify(data.body)).toBe(200);
    expect(data.body.content).toEqual([
      { rowid: 1, txid: "JE1", effective_date: "2023-01-15", entry_date: "2023-01-15", account: "10100", amount: 10000, x_segment: "Sales/East" },
      { rowid: 2, txid: "JE1", effective_date: "2023-01-15", entry_date: "2023-01-15", account: "40100", amount: -10000, x_segment: "Sales/East" },
      { rowid: 3, txid: "JE2", effective_date: "2023-02-10", entry_date: "2023-02-10", account: "60100", amount: 2550, x_segment: "Ops/West" },
      // JOIN skips a blank part (concat_ws), so the region-less line is just its department.
      { rowid: 4, txid: "JE2", effective_date: "2023-02-10", entry_date: "2023-02-10", account: "20100", amount: -2550, x_segment: "Ops" },
    ]);
    // The split transaction ids are queryable like any txid.
    const je2 = await server.api.post(`/data-tables/${table.id}/data`, { query: { txid: "je2" } });
    expect(je2.body.content.map((r: { rowid: number }) => r.rowid)).toEqual([3, 4]);
  });
});

describe("data table columns fed by virtual columns", () => {
  it("account from a DUPLICATE and txid from a JOIN carry the virtual column's name as originalName", async () => {
    const { source } = await ingest(server, fixture, LEDGER, {
      targetWorkflowState: "COMPLETED",
      proposedVirtualColumns: [
        { name: "AcctDup", type: "DUPLICATE", columnIndex: 2 },
        { name: "TxKey", type: "JOIN", columnIndices: [0, 1], delimiter: "#" },
      ],
      proposedColumnMappings: [
        { columnPosition: 0, platformField: "effective_date" },
        { virtualColumnIndex: 0, platformField: "account" },
        { virtualColumnIndex: 1, platformField: "txid" },
        { columnPosition: 5, platformField: "debit" },
        { columnPosition: 6, platformField: "credit" },
      ],
      proposedTransactionIdSelection: { type: "COMBINATION", columnSelection: [], virtualColumnSelection: [1] },
    });
    expect(source.errors).toEqual([]);
    expect(source.workflowState).toBe("COMPLETED");
    const table = await entriesTableOf(source.id);
    const byField = Object.fromEntries(table.columns.map((c: { field: string }) => [c.field, c]));
    expect(byField.account).toMatchObject({ platformField: "account", originalName: "AcctDup" });
    expect(byField.txid).toMatchObject({ platformField: "txid", originalName: "TxKey" });
    expect(byField.debit).toMatchObject({ originalName: "Debit" });
    const data = await server.api.post(`/data-tables/${table.id}/data`, { pageSize: 1 });
    expect(data.body.content[0]).toMatchObject({ txid: "01/15/2023#JE1-1", account: "10100" });
  });
});

describe("applied virtual columns carry an audit", () => {
  it("ids stay stable, versions count changes, and stale versions in update items are refused (409)", async () => {
    const { source } = await ingest(server, fixture, LEDGER, { targetWorkflowState: "DATA_VALIDATION_CONFIRMED", proposedVirtualColumns: VIRTUAL_COLUMNS, proposedColumnMappings: MAPPINGS });
    expect(source.workflowState).toBe("DATA_VALIDATION_CONFIRMED");
    // The job runs for the token's user: the same user info as the source's own audit.
    const user = source.lastModifiedUserInfo;
    const [journal, segment, posting] = source.virtualColumns;
    for (const column of source.virtualColumns) {
      expect(column).toMatchObject({ id: expect.stringMatching(/^[0-9a-f]{24}$/), version: 0, creationDate: expect.any(String), lastModifiedDate: expect.any(String) });
      expect(column.createdUserInfo).toEqual(user);
      expect(column.lastModifiedUserInfo).toEqual(user);
    }
    expect(new Set(source.virtualColumns.map((c: { id: string }) => c.id)).size).toBe(3);

    // The read model sent back with one definition edited: the edited column keeps its id at
    // version 1, the others keep id and version. Audit keys of the read model are read-only.
    const edited = [{ ...journal, splitIndex: 1 }, segment, posting];
    const mappings = source.columnMappings.map((m: { position: number; platformField?: string; additionalColumnName?: string }) => ({ position: m.position, platformField: m.platformField ?? null, additionalColumnName: m.additionalColumnName ?? null }));
    const { source: after } = await advance(server, source.id, { virtualColumns: edited, columnMappings: mappings });
    expect(after.workflowState).toBe("DATA_VALIDATION_CONFIRMED");
    expect(after.virtualColumns[0]).toMatchObject({ id: journal.id, version: 1, splitIndex: 1, creationDate: journal.creationDate });
    expect(after.virtualColumns[1]).toEqual(segment);
    expect(after.virtualColumns[2]).toEqual(posting);

    // The first read's version of the edited column is stale now.
    const stale = await server.api.put(`/analysis-sources/${source.id}`, { version: after.version, virtualColumns: [{ ...journal, splitIndex: 0 }, segment, posting] });
    expect(stale.status, JSON.stringify(stale.body)).toBe(409);
    expect(stale.body.problems[0]).toMatchObject({ identifier: "virtualColumns[0].version", problemType: "INVALID_STATE" });
    expect((await server.api.get(`/analysis-sources/${source.id}`)).body).toEqual(after);
    // A new column carries version 0; any other version names a column that is not there.
    const added = { name: "Dept copy", type: "DUPLICATE", columnIndex: 3 };
    const phantom = await server.api.put(`/analysis-sources/${source.id}`, { version: after.version, virtualColumns: [...after.virtualColumns, { ...added, version: 4 }] });
    expect(phantom.status).toBe(409);
    expect(phantom.body.problems[0].identifier).toBe("virtualColumns[3].version");
    const { source: grown } = await advance(server, source.id, { virtualColumns: [...after.virtualColumns, { ...added, version: 0 }] });
    expect(grown.virtualColumns.slice(0, 3)).toEqual(after.virtualColumns);
    expect(grown.virtualColumns[3]).toMatchObject({ name: "Dept copy", position: 10, version: 0, id: expect.stringMatching(/^[0-9a-f]{24}$/) });
    expect(grown.virtualColumns[3].id).not.toBe(journal.id);

    // The whole read body is accepted back as an update body (spec 2.1) and changes nothing.
    const { source: same } = await advance(server, source.id, grown);
    expect(same.virtualColumns).toEqual(grown.virtualColumns);
    expect(same.columnMappings).toEqual(grown.columnMappings);

    // GraphQL reads the same audit.
    const read = await server.gql(`query($id: ID!) { analysisSource(id: $id) { virtualColumns { id version name position createdUserInfo { userId } } } }`, { id: source.id });
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data.analysisSource.virtualColumns[0]).toEqual({ id: journal.id, version: 1, name: "Journal", position: 7, createdUserInfo: { userId: user.userId } });
  });
});
