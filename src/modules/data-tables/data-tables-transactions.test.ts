import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ANALYSIS_SOURCE_TYPE_IDS } from "../catalogue/ids.js";
import { analysisFixture, ingest, type SourceFixture } from "../../../test/helpers/analysis-sources.js";
import { awaitJob, waitFor } from "../../../test/helpers/entities.js";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";

/**
 * General Ledger Transactions (spec 2.10, `gl_journal_tx`): one row per transaction of a parsed
 * journal, published beside its entries, through the REST API.
 */
const LEDGER = [
  "Journal ID,Effective Date,Entry Date,Account,Debit,Credit,Memo",
  "JE2,01/15/2023,01/16/2023,10100,100.00,,Deposit",
  "JE2,01/17/2023,01/16/2023,40100,,100.00,Deposit",
  "je1,02/01/2023,02/02/2023,60100,45.99,,Paper",
  "je1,02/01/2023,02/02/2023,20100,,45.99,Paper",
  "JE3,03/31/2023,03/31/2023,70100,510.00,,Depreciation",
  "JE3,03/31/2023,03/31/2023,15100,,500.00,Depreciation",
  "JE10,04/01/2023,04/01/2023,10100,1.00,,Rounding",
].join("\n") + "\n";

let server: TestServer;
let db: pg.Pool;
let fixture: SourceFixture;
let sourceId: string;
let txTable: Record<string, any>;
let linesTable: Record<string, any>;

async function tablesOf(filter: Record<string, unknown>) {
  const response = await server.api.post("/data-tables/query?include-unstable-schemas=true", filter);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.content as Array<Record<string, any>>;
}

async function rows(body: Record<string, unknown>, id = txTable.id) {
  const response = await server.api.post(`/data-tables/${id}/data`, body);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.content as Array<Record<string, any>>;
}

beforeAll(async () => {
  server = await startTestServer();
  db = new pg.Pool({ connectionString: server.databaseUrl, max: 2 });
  fixture = await analysisFixture(server, "Transactions");
  const { source } = await ingest(server, fixture, LEDGER, {
    targetWorkflowState: "COMPLETED",
    proposedTransactionIdSelection: { type: "COMBINATION", columnSelection: [0] },
  });
  expect(source.workflowState).toBe("COMPLETED");
  sourceId = source.id;
  const tables = await tablesOf({ analysisSourceId: sourceId });
  txTable = tables.find((t) => t.logicalName === "gl_journal_tx")!;
  linesTable = tables.find((t) => t.logicalName === "gl_journal_lines")!;
});
afterAll(async () => {
  await db?.end();
  await server?.close();
});

describe("gl_journal_tx", () => {
  it("is published with the entries, in the parse's transaction: one row per transaction, typed and flagged columns", async () => {
    expect(txTable).toMatchObject({ logicalName: "gl_journal_tx", type: "transactions", apiStability: "STABLE", rowCount: 4, analysisId: fixture.analysisId, engagementId: fixture.engagementId, analysisSourceId: sourceId });
    expect(linesTable).toMatchObject({ type: "entries", rowCount: 7 });
    // Both definitions were written by the same transaction (the one recording the parse).
    const { rows: audit } = await db.query("SELECT DISTINCT xmin::text AS x FROM data_table WHERE analysis_source_id = $1", [sourceId]);
    expect(audit).toHaveLength(1);
    const byField = Object.fromEntries(txTable.columns.map((c: { field: string }) => [c.field, c]));
    expect(Object.keys(byField)).toEqual(["rowid", "txid", "entry_count", "debit_total", "credit_total", "balance", "balanced", "effective_date", "last_effective_date", "entry_date"]);
    expect(byField.txid).toMatchObject({ type: "STRING", platformField: "txid", equalitySearch: true, caseInsensitivePrefixSearch: true, allowCaseInsensitiveSubstringSearch: true, rangeSearch: false, sortable: true });
    expect(byField.entry_count).toMatchObject({ type: "INT64", equalitySearch: true, rangeSearch: true });
    expect(byField.debit_total).toMatchObject({ type: "MONEY_100", rangeSearch: true });
    expect(byField.balance).toMatchObject({ type: "MONEY_100", rangeSearch: true });
    expect(byField.balanced).toMatchObject({ type: "BOOLEAN", equalitySearch: true, rangeSearch: false });
    expect(byField.effective_date).toMatchObject({ type: "DATE", platformField: "effective_date", rangeSearch: true });
    expect(byField.rowid).toMatchObject({ type: "INT64", equalitySearch: true, rangeSearch: true, nullable: false });
    expect((await server.gql(`query($f: JSON) { dataTables(filter: $f) { content { logicalName type } } }`, { f: { $and: [{ analysisSourceId: sourceId }, { type: "transactions" }] } })).body.data.dataTables.content).toEqual([
      { logicalName: "gl_journal_tx", type: "transactions" },
    ]);
  });

  it("pages in txid order by default, with totals, balance and dates; rowid is the first entry's", async () => {
    expect(await rows({})).toEqual([
      { rowid: 3, txid: "je1", entry_count: 2, debit_total: 4599, credit_total: 4599, balance: 0, balanced: true, effective_date: "2023-02-01", last_effective_date: "2023-02-01", entry_date: "2023-02-02" },
      { rowid: 7, txid: "JE10", entry_count: 1, debit_total: 100, credit_total: 0, balance: 100, balanced: false, effective_date: "2023-04-01", last_effective_date: "2023-04-01", entry_date: "2023-04-01" },
      { rowid: 1, txid: "JE2", entry_count: 2, debit_total: 10000, credit_total: 10000, balance: 0, balanced: true, effective_date: "2023-01-15", last_effective_date: "2023-01-17", entry_date: "2023-01-16" },
      { rowid: 5, txid: "JE3", entry_count: 2, debit_total: 51000, credit_total: 50000, balance: 1000, balanced: false, effective_date: "2023-03-31", last_effective_date: "2023-03-31", entry_date: "2023-03-31" },
    ]);
    // The default order is the order of an explicit txid sort; rowid orders by the file.
    expect((await rows({ sort: { field: "txid" } })).map((r) => r.rowid)).toEqual([3, 7, 1, 5]);
    expect((await rows({ sort: { field: "rowid" } })).map((r) => r.txid)).toEqual(["JE2", "je1", "JE3", "JE10"]);
    const paged = await server.api.post(`/data-tables/${txTable.id}/data`, { page: 1, pageSize: 3 });
    expect(paged.body).toMatchObject({ number: 1, numberOfElements: 1, last: true });
    expect(paged.body.content[0].txid).toBe("JE3");
  });

  it("filters and sorts with the query language on its own columns", async () => {
    const txids = async (body: Record<string, unknown>) => (await rows(body)).map((r) => r.txid);
    expect(await txids({ query: { balanced: false } })).toEqual(["JE10", "JE3"]);
    expect(await txids({ query: { balance: { $ne: 0 } }, sort: { field: "balance", direction: "DESC" } })).toEqual(["JE3", "JE10"]);
    expect(await txids({ query: { txid: "je2" } })).toEqual(["JE2"]);
    expect(await txids({ query: { txid: { $iprefix: "je1" } } })).toEqual(["je1", "JE10"]);
    expect(await txids({ query: { entry_count: { $gte: 2 } }, sort: { field: "debit_total", direction: "DESC" } })).toEqual(["JE3", "JE2", "je1"]);
    expect(await txids({ query: { $and: [{ effective_date: { $lt: "2023-03-01" } }, { last_effective_date: { $gt: "2023-01-15" } }] } })).toEqual(["je1", "JE2"]);
    expect(await txids({ sort: { field: "txid", direction: "DESC" } })).toEqual(["JE3", "JE2", "JE10", "je1"]);
    const refused = await server.api.post(`/data-tables/${txTable.id}/data`, { query: { txid: { $gt: "A" } } });
    expect(refused.status).toBe(400);
    expect(refused.body.problems[0].identifier).toBe("txid.$gt");
    // rowid leads to the transaction's first line in gl_journal_lines.
    const [je3] = await rows({ query: { txid: "JE3" } });
    const lines = await rows({ query: { rowid: { $gte: je3.rowid } }, pageSize: je3.entry_count }, linesTable.id);
    expect(lines.map((l) => l.txid)).toEqual(["JE3", "JE3"]);
  });

  it("exports as CSV sorted by txid (its default sort)", async () => {
    const started = await server.api.post(`/data-tables/${txTable.id}/export`, { fields: ["txid", "entry_count", "balance", "balanced"] });
    expect(started.status).toBe(200);
    const done = await awaitJob(server.api, started.body.id);
    expect(done.status).toBe("COMPLETE");
    const file = await server.api.get(`/file-results/${done.entityId}`);
    expect(file.body.fileName).toBe(`gl_journal_tx-${txTable.id}.csv`);
    const csv = await server.api.get(`/file-results/${done.entityId}/export`);
    expect(csv.body).toBe("txid,entry_count,balance,balanced\r\nje1,2,0,true\r\nJE10,1,100,false\r\nJE2,2,0,true\r\nJE3,2,1000,false\r\n");
  });

  it("gets its indexes from the index job (every indexed column)", async () => {
    const name = `tx_${sourceId}`;
    // Every column but `balanced`, plus (lower(txid), row_no) for the default order.
    const indexed = txTable.columns.filter((c: { field: string }) => c.field !== "balanced").length + 1;
    const indexes = await waitFor(async () => {
      const { rows: found } = await db.query("SELECT indexdef FROM pg_indexes WHERE schemaname = 'ingest' AND tablename = $1", [name]);
      return found.length >= indexed ? found.map((r) => r.indexdef as string) : undefined;
    }, "transactions table indexes");
    expect(indexes).toHaveLength(indexed);
    expect(indexes.some((d) => d.includes("lower(txid) text_pattern_ops"))).toBe(true);
    expect(indexes.some((d) => d.includes("(lower(txid), row_no)"))).toBe(true);
  });

  it("is dropped with its source", async () => {
    const own = await analysisFixture(server, "Transactions dropped");
    const { source } = await ingest(server, own, LEDGER, { targetWorkflowState: "COMPLETED", proposedTransactionIdSelection: { type: "COMBINATION", columnSelection: [0] } });
    const tables = await tablesOf({ analysisSourceId: source.id });
    expect(tables.map((t) => t.logicalName).sort()).toEqual(["gl_journal_lines", "gl_journal_tx"]);
    expect((await server.api.delete(`/analysis-sources/${source.id}`)).status).toBe(204);
    for (const table of tables) expect((await server.api.get(`/data-tables/${table.id}`)).status).toBe(404);
    const { rows: left } = await db.query("SELECT to_regclass($1) AS t", [`ingest.tx_${source.id}`]);
    expect(left[0].t).toBeNull();
    const { rows: deleted } = await db.query("SELECT entity_id FROM outbox_event WHERE type = 'data-table.deleted' AND entity_id = ANY($1::text[])", [tables.map((t) => t.id)]);
    expect(deleted.map((r) => r.entity_id).sort()).toEqual(tables.map((t) => t.id).sort());
  });

  it("is not published for sources without transactions (a chart of accounts)", async () => {
    const own = await analysisFixture(server, "Chart only");
    const chart = ["Account,Description,Type", "1000,Cash,Asset", "4000,Sales,Revenue"].join("\n") + "\n";
    const { source } = await ingest(server, own, chart, { analysisSourceTypeId: ANALYSIS_SOURCE_TYPE_IDS.CHART_OF_ACCOUNTS, targetWorkflowState: "COMPLETED" });
    expect(source.workflowState).toBe("COMPLETED");
    expect((await tablesOf({ analysisSourceId: source.id })).map((t) => [t.logicalName, t.type])).toEqual([["chart_of_accounts_entries", "entries"]]);
  });
});
