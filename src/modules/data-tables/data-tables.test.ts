import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ANALYSIS_SOURCE_TYPE_IDS } from "../catalogue/ids.js";
import { awaitJob, clientWithPermissions } from "../../../test/helpers/entities.js";
import { dropEntriesTable, parseIntoEntriesTable, reparseEntriesTable, type ParsedSource } from "../../../test/helpers/entries-table.js";
import { ingest } from "../../../test/helpers/analysis-sources.js";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import type { RestClient } from "../../../test/helpers/client.js";

/** A small general ledger: 3 balanced journals, a quoted memo, an additional "Reference" column. */
const LEDGER = [
  "Journal ID,Effective Date,Account,Account Description,Debit,Credit,Memo,Reference",
  "JE1,01/15/2023,10100,Cash,1250.00,,Invoice 4471 freight,R-1",
  "JE1,01/15/2023,40100,Revenue,,1250.00,Invoice 4471 freight,R-1",
  'JE2,02/28/2023,60100,Office Supplies,45.99,,"Paper ""A4"", toner",R-2',
  "JE2,02/28/2023,20100,Accounts Payable,,45.99,Paper,R-2",
  "JE3,03/31/2023,10150,Cash Reserve,300.00,,Reclass to reserve,R-3",
  "JE3,03/31/2023,10100,Cash,,300.00,Reclass to reserve,R-3",
].join("\r\n") + "\r\n";

const MAPPINGS = [
  { columnPosition: 0, platformField: "txid" },
  { columnPosition: 1, platformField: "effective_date" },
  { columnPosition: 2, platformField: "account" },
  { columnPosition: 3, platformField: "account_description" },
  { columnPosition: 4, platformField: "debit" },
  { columnPosition: 5, platformField: "credit" },
  { columnPosition: 6, platformField: "memo" },
  { columnPosition: 7, additionalColumnName: "Reference" },
];

let server: TestServer;
let source: ParsedSource;
let dataTableId: string;

/** The analysis's data tables (entries tables by default: a journal also publishes gl_journal_tx). */
async function findDataTable(analysisId: string, includeUnstable = false, type: "entries" | "transactions" | null = "entries") {
  const filter = type ? { $and: [{ analysisId }, { type }] } : { analysisId };
  const response = await server.api.post(`/data-tables/query${includeUnstable ? "?include-unstable-schemas=true" : ""}`, filter);
  expect(response.status).toBe(200);
  return response.body.content as Array<Record<string, any>>;
}

const data = (body: unknown, id = dataTableId, client: RestClient = server.api) => client.post(`/data-tables/${id}/data`, body);

async function rowsOf(body: Record<string, unknown>) {
  const response = await data(body);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.content as Array<Record<string, any>>;
}

async function download(client: RestClient, fileResultId: string): Promise<string> {
  const response = await client.get(`/file-results/${fileResultId}/export`);
  expect(response.status).toBe(200);
  return response.body as string;
}

async function exportCsv(body: Record<string, unknown>, client: RestClient = server.api, id = dataTableId): Promise<string> {
  const started = await client.post(`/data-tables/${id}/export`, body);
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  expect(started.body).toMatchObject({ type: "DATA_TABLE_EXPORT", entityType: "FILE_RESULT", status: "IN_PROGRESS" });
  const done = await awaitJob(client, started.body.id);
  expect(done.status, done.error).toBe("COMPLETE");
  return download(client, done.entityId);
}

beforeAll(async () => {
  server = await startTestServer();
  source = await parseIntoEntriesTable(server, LEDGER, { proposedColumnMappings: MAPPINGS });
  const [table] = await findDataTable(source.analysisId);
  dataTableId = table.id;
});

afterAll(async () => {
  await server?.close();
});

describe("data table definitions", () => {
  it("publishes a parsed general ledger as gl_journal_lines with typed, flagged columns (REST)", async () => {
    const response = await server.api.get(`/data-tables/${dataTableId}`);
    expect(response.status).toBe(200);
    const table = response.body;
    expect(table).toMatchObject({
      id: dataTableId,
      version: 0,
      engagementId: source.engagementId,
      analysisId: source.analysisId,
      analysisSourceId: source.analysisSourceId,
      logicalName: "gl_journal_lines",
      type: "entries",
      apiStability: "STABLE",
      rowCount: 6,
    });
    expect(table.createdUserInfo).toBeDefined();
    expect(table).not.toHaveProperty("tableName");
    const byField = Object.fromEntries((table.columns as Array<Record<string, any>>).map((c) => [c.field, c]));
    expect(Object.keys(byField)).toEqual(["rowid", "txid", "effective_date", "account", "account_description", "memo", "debit", "credit", "amount", "x_reference", "parse_errors"]);
    expect(byField.rowid).toMatchObject({ type: "INT64", equalitySearch: true, rangeSearch: true, sortable: true, nullable: false });
    expect(byField.account).toMatchObject({
      type: "STRING",
      platformField: "account",
      originalName: "Account",
      equalitySearch: true,
      caseInsensitivePrefixSearch: true,
      allowCaseInsensitiveSubstringSearch: true,
      rangeSearch: false,
      keywordSearch: false,
    });
    expect(byField.memo).toMatchObject({ type: "STRING", originalName: "Memo", equalitySearch: false, allowCaseInsensitiveSubstringSearch: true, keywordSearch: true });
    expect(byField.effective_date).toMatchObject({ type: "DATE", originalName: "Effective Date", equalitySearch: true, rangeSearch: true });
    expect(byField.debit).toMatchObject({ type: "MONEY_100", platformField: "debit", originalName: "Debit", rangeSearch: true });
    expect(byField.amount).toMatchObject({ type: "MONEY_100", platformField: "amount" });
    expect(byField.x_reference).toMatchObject({ type: "STRING", originalName: "Reference" });
    expect(byField.x_reference).not.toHaveProperty("platformField");
    expect(byField.parse_errors).toMatchObject({ type: "INT32", equalitySearch: true, rangeSearch: false });
    for (const column of table.columns) expect(column).not.toHaveProperty("sql");
  });

  it("reads the same definition through GraphQL", async () => {
    const result = await server.gql(`query($id: ID!) { dataTable(id: $id) { id logicalName apiStability rowCount analysisSourceId columns { field type platformField equalitySearch } } }`, { id: dataTableId });
    expect(result.body.errors).toBeUndefined();
    expect(result.body.data.dataTable).toMatchObject({ id: dataTableId, logicalName: "gl_journal_lines", apiStability: "STABLE", rowCount: 6, analysisSourceId: source.analysisSourceId });
    expect(result.body.data.dataTable.columns[2]).toEqual({ field: "effective_date", type: "DATE", platformField: "effective_date", equalitySearch: true });
  });

  it("relates data tables, analysis sources and analyses in GraphQL (DataTable.analysis/analysisSource, AnalysisSource.analysis/engagement, Analysis.analysisSources)", async () => {
    // An analysis of its own: a COMPLETED source with its data tables and a second source left where ingestion stops by default.
    const parsed = await parseIntoEntriesTable(server, LEDGER, { proposedColumnMappings: MAPPINGS });
    const [table] = await findDataTable(parsed.analysisId);
    const analysis = (await server.api.get(`/analyses/${parsed.analysisId}`)).body;
    const { source: second } = await ingest(server, { engagementId: parsed.engagementId, analysisId: parsed.analysisId, periodId: analysis.analysisPeriods[0].id }, LEDGER);
    expect(second.workflowState).not.toBe("COMPLETED");

    const read = await server.gql(
      `query($id: ID!) { dataTable(id: $id) { analysis { id name } analysisSource { id workflowState analysis { id name } engagement { id name } } } }`,
      { id: table.id },
    );
    expect(read.body.errors, JSON.stringify(read.body.errors)).toBeUndefined();
    const engagement = (await server.api.get(`/engagements/${parsed.engagementId}`)).body;
    expect(read.body.data.dataTable).toEqual({
      analysis: { id: parsed.analysisId, name: analysis.name },
      analysisSource: { id: parsed.analysisSourceId, workflowState: "COMPLETED", analysis: { id: parsed.analysisId, name: analysis.name }, engagement: { id: parsed.engagementId, name: engagement.name } },
    });

    const sources = await server.gql(
      `query($id: ID!, $f: JSON) { analysis(id: $id) { all: analysisSources(sort: ["creationDate,desc"]) { id analysisId } completed: analysisSources(filter: $f) { id } } }`,
      { id: parsed.analysisId, f: { workflowState: "COMPLETED" } },
    );
    expect(sources.body.errors, JSON.stringify(sources.body.errors)).toBeUndefined();
    expect(sources.body.data.analysis).toEqual({
      all: [{ id: second.id, analysisId: parsed.analysisId }, { id: parsed.analysisSourceId, analysisId: parsed.analysisId }],
      completed: [{ id: parsed.analysisSourceId }],
    });
    const badSort = await server.gql(`query($id: ID!) { analysis(id: $id) { analysisSources(sort: ["colour"]) { id } } }`, { id: parsed.analysisId });
    expect(badSort.body.errors[0].extensions).toMatchObject({ code: "VALIDATION", status: 400 });
    expect(badSort.body.errors[0].extensions.problems[0]).toMatchObject({ identifier: "sort[0]" });

    // analysisSource is nullable (tables of analysis results have none); analysis is not.
    const shape = await server.gql(`{ __type(name: "DataTable") { fields { name type { kind name } } } }`);
    const fields = Object.fromEntries(shape.body.data.__type.fields.map((f: { name: string; type: unknown }) => [f.name, f.type]));
    expect(fields.analysisSource).toEqual({ kind: "OBJECT", name: "AnalysisSource" });
    expect(fields.analysis).toEqual({ kind: "NON_NULL", name: null });

    // Each field needs its target's read permission.
    const tokenWith = async (permissions: string[]) => (await server.api.post("/api-tokens", { name: "relations", permissions, allowedAddresses: [] })).body.token as string;
    const tablesOnly = await tokenWith(["api.data-tables.read"]);
    for (const [field, selection] of [["analysis", "analysis { id }"], ["analysisSource", "analysisSource { id }"]]) {
      const denied = await server.gql(`query($id: ID!) { dataTable(id: $id) { id ${selection} } }`, { id: table.id }, tablesOnly);
      expect(denied.body.errors?.[0].extensions).toMatchObject({ code: "FORBIDDEN", status: 403 });
      expect(denied.body.errors?.[0].path).toEqual(["dataTable", field]);
    }
    const sourcesOnly = await tokenWith(["api.analysis-sources.read"]);
    for (const [field, selection] of [["analysis", "analysis { id }"], ["engagement", "engagement { id }"]]) {
      const denied = await server.gql(`query($id: ID!) { analysisSource(id: $id) { id ${selection} } }`, { id: parsed.analysisSourceId }, sourcesOnly);
      expect(denied.body.errors?.[0].extensions).toMatchObject({ code: "FORBIDDEN", status: 403 });
      expect(denied.body.errors?.[0].path).toEqual(["analysisSource", field]);
    }
    const allowed = await server.gql(`query($id: ID!) { dataTable(id: $id) { analysisSource { id } } }`, { id: table.id }, await tokenWith(["api.data-tables.read", "api.analysis-sources.read"]));
    expect(allowed.body.data.dataTable.analysisSource).toEqual({ id: parsed.analysisSourceId });
  });

  it("hides unstable schemas from queries unless include-unstable-schemas=true", async () => {
    const other = await parseIntoEntriesTable(server, LEDGER, {
      proposedColumnMappings: MAPPINGS,
      analysisSourceTypeId: ANALYSIS_SOURCE_TYPE_IDS.ADJUSTING_ENTRIES,
      analysis: { engagementId: source.engagementId, analysisId: source.analysisId },
    });
    const stable = await findDataTable(source.analysisId);
    expect(stable.map((t) => t.id)).toEqual([dataTableId]);
    const all = await findDataTable(source.analysisId, true);
    expect(all).toHaveLength(2);
    const unstable = all.find((t) => t.analysisSourceId === other.analysisSourceId)!;
    expect(unstable).toMatchObject({ logicalName: "adjusting_entries_entries", apiStability: "UNSTABLE" });
    const byStability = await server.api.post("/data-tables/query?include-unstable-schemas=true", { apiStability: "UNSTABLE", analysisId: source.analysisId, type: "entries" });
    expect(byStability.body.content.map((t: { id: string }) => t.id)).toEqual([unstable.id]);
    const gql = await server.gql(`query($f: JSON) { a: dataTables(filter: $f) { totalElements } b: dataTables(filter: $f, includeUnstableSchemas: true) { totalElements } }`, { f: { analysisId: source.analysisId } });
    // The journal's transactions table is stable too; the adjusting entries' one is not.
    expect(gql.body.data).toEqual({ a: { totalElements: 2 }, b: { totalElements: 4 } });
    expect((await findDataTable(source.analysisId, true, "transactions")).map((t) => t.logicalName).sort()).toEqual(["adjusting_entries_transactions", "gl_journal_tx"]);
    expect((await server.api.post("/data-tables/query?include-unstable-schemas=yes", {})).status).toBe(400);
    expect((await server.api.post("/data-tables/query", { tableName: "x" })).status).toBe(400);
    await dropEntriesTable(server, other);
    expect((await server.api.get(`/data-tables/${unstable.id}`)).status).toBe(404);
    expect(await findDataTable(source.analysisId, true)).toHaveLength(1);
    expect(await findDataTable(source.analysisId, true, null)).toHaveLength(2);
  });

  it("replaces a source's definition when it is parsed again (same id, next version)", async () => {
    const again = await parseIntoEntriesTable(server, LEDGER, { proposedColumnMappings: MAPPINGS.slice(0, 7) });
    const [first] = await findDataTable(again.analysisId);
    const [firstTx] = await findDataTable(again.analysisId, false, "transactions");
    expect(firstTx).toMatchObject({ logicalName: "gl_journal_tx", rowCount: 3 });
    await reparseEntriesTable(server, again, LEDGER.split("\r\n").slice(0, 3).join("\r\n") + "\r\n", MAPPINGS);
    const [second] = await findDataTable(again.analysisId);
    expect(second).toMatchObject({ id: first.id, version: 1, rowCount: 2 });
    expect((await findDataTable(again.analysisId, false, "transactions"))[0]).toMatchObject({ id: firstTx.id, version: 1, rowCount: 1 });
    expect(second.columns.map((c: { field: string }) => c.field)).toContain("x_reference");
    expect(first.columns.map((c: { field: string }) => c.field)).not.toContain("x_reference");
  });

  it("serves rows from the definition as stored now, though the process read an older one before (cached definitions are checked by version)", async () => {
    const again = await parseIntoEntriesTable(server, LEDGER, { proposedColumnMappings: MAPPINGS.slice(0, 7) });
    const [table] = await findDataTable(again.analysisId);
    // Full pages (a next page exists) are the ones answered from the cached definition alone.
    const before = await data({ pageSize: 1 }, table.id);
    expect(before.status).toBe(200);
    expect(before.body.content[0]).not.toHaveProperty("x_reference");
    expect((await data({ pageSize: 1, page: 1 }, table.id)).body.last).toBe(false);
    await reparseEntriesTable(server, again, LEDGER.split("\r\n").slice(0, 4).join("\r\n") + "\r\n", MAPPINGS);
    const after = await data({ pageSize: 1 }, table.id);
    expect(after.status).toBe(200);
    expect(after.body.content[0]).toMatchObject({ x_reference: "R-1" });
    const cursor = after.body.endCursor;
    expect((await data({ pageSize: 2, after: cursor }, table.id)).body.content.map((r: Record<string, unknown>) => r.x_reference)).toEqual(["R-1", "R-2"]);
    await dropEntriesTable(server, again);
    expect((await data({ pageSize: 1 }, table.id)).status).toBe(404);
    expect((await data({ pageSize: 1, after: cursor }, table.id)).status).toBe(404);
  });

  it("answers 404 for an unknown id and 403 without api.data-tables.read", async () => {
    expect((await server.api.get("/data-tables/0123456789abcdef01234567")).status).toBe(404);
    expect((await data({}, "0123456789abcdef01234567")).status).toBe(404);
    const limited = await clientWithPermissions(server.api, ["api.file-manager.read"]);
    expect((await limited.get(`/data-tables/${dataTableId}`)).status).toBe(403);
    expect((await limited.post("/data-tables/query", {})).status).toBe(403);
    expect((await data({}, dataTableId, limited)).status).toBe(403);
  });
});

describe("the data endpoint", () => {
  it("returns rows in rowid order with wire formats: MONEY_100 integers, ISO dates", async () => {
    const response = await data({});
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ number: 0, size: 100, numberOfElements: 6, first: true, last: true });
    const rows = response.body.content;
    expect(rows.map((r: { rowid: number }) => r.rowid)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(rows[0]).toEqual({
      rowid: 1,
      txid: "JE1",
      effective_date: "2023-01-15",
      account: "10100",
      account_description: "Cash",
      memo: "Invoice 4471 freight",
      debit: 125000,
      credit: 0,
      amount: 125000,
      x_reference: "R-1",
    });
    // Null values are left out (wire convention), like every other REST response.
    expect(rows[0]).not.toHaveProperty("parse_errors");
    expect(rows[3]).toMatchObject({ debit: 0, credit: 4599, amount: -4599 });
  });

  it("filters by every kind of column in SQL: strings, dates, amounts, ids, logic and keywords", async () => {
    const ids = async (query: unknown) => (await rowsOf({ query })).map((r) => r.rowid);
    expect(await ids({ account: "10100" })).toEqual([1, 6]);
    expect(await ids({ txid: "je2" })).toEqual([3, 4]); // case-insensitive equality
    expect(await ids({ account: { $iprefix: "101" } })).toEqual([1, 5, 6]);
    expect(await ids({ account: { $niprefix: "101" } })).toEqual([2, 3, 4]);
    expect(await ids({ account: { $in: ["40100", "20100"] } })).toEqual([2, 4]);
    expect(await ids({ account_description: { $isubstr: "CASH" } })).toEqual([1, 5, 6]);
    expect(await ids({ memo: { $isubstr: '"a4"' } })).toEqual([3]);
    expect(await ids({ effective_date: "2023-02-28" })).toEqual([3, 4]);
    expect(await ids({ effective_date: { $gte: "2023-02-01", $lt: "2023-03-31" } })).toEqual([3, 4]);
    expect(await ids({ debit: { $gt: 100000 } })).toEqual([1]);
    expect(await ids({ amount: { $lt: 0 } })).toEqual([2, 4, 6]);
    expect(await ids({ amount: -4599 })).toEqual([4]);
    expect(await ids({ rowid: { $in: [2, 5] } })).toEqual([2, 5]);
    expect(await ids({ rowid: { $gt: 4 } })).toEqual([5, 6]);
    expect(await ids({ $or: [{ account: "40100" }, { $and: [{ txid: "JE3" }, { amount: { $gt: 0 } }] }] })).toEqual([2, 5]);
    expect(await ids({ $keyword_prefix: "recl" })).toEqual([5, 6]);
    expect(await ids({ $keyword_prefix_not: "recl" })).toEqual([1, 2, 3, 4]);
    expect(await ids({ parse_errors: null })).toEqual([1, 2, 3, 4, 5, 6]);
    expect(await ids({ x_reference: { $isubstr: "r-2" } })).toEqual([3, 4]);
  });

  it("refuses filters the definition does not allow, naming the key", async () => {
    const problem = async (body: unknown) => {
      const response = await data(body);
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      return response.body.problems[0];
    };
    expect(await problem({ query: { account_number: "1" } })).toMatchObject({ identifier: "account_number", problemType: "FILTER_CONVERSION_FAILED" });
    expect(await problem({ query: { memo: "Paper" } })).toMatchObject({ identifier: "memo", reason: expect.stringContaining("equalitySearch") });
    expect(await problem({ query: { memo: { $iprefix: "Pap" } } })).toMatchObject({ identifier: "memo.$iprefix", reason: expect.stringContaining("caseInsensitivePrefixSearch") });
    expect(await problem({ query: { account: { $gt: "1" } } })).toMatchObject({ identifier: "account.$gt", reason: expect.stringContaining("rangeSearch") });
    expect(await problem({ query: { debit: "12.50" } })).toMatchObject({ identifier: "debit", problemType: "INCORRECT_DATA_TYPE" });
    expect(await problem({ query: { debit: { $eq: 12.5 } } })).toMatchObject({ identifier: "debit.$eq", problemType: "INCORRECT_DATA_TYPE" });
    expect(await problem({ query: { effective_date: "15/01/2023" } })).toMatchObject({ identifier: "effective_date", problemType: "INCORRECT_DATA_TYPE" });
    expect(await problem({ query: { account: { $contains: "1" } } })).toMatchObject({ identifier: "account.$contains" });
    expect(await problem({ pageSize: 2001 })).toMatchObject({ identifier: "pageSize", problemType: "LESS_VALUE_REQUIRED" });
    expect(await problem({ pageSize: 0 })).toMatchObject({ identifier: "pageSize" });
    expect(await problem({ page: -1 })).toMatchObject({ identifier: "page" });
    expect(await problem({ sort: { field: "nope" } })).toMatchObject({ identifier: "sort[0].field" });
    expect(await problem({ excludeFields: ["memo", "nope"] })).toMatchObject({ identifier: "excludeFields[1]" });
    expect(await problem({ unknownKey: 1 })).toMatchObject({ identifier: "unknownKey" });
    expect((await data({ pageSize: 2000 })).status).toBe(200);
  });

  it("sorts by any sortable column, rowid breaking ties in the first key's direction, and pages with page/pageSize", async () => {
    expect((await rowsOf({ sort: { field: "amount", direction: "DESC" } })).map((r) => r.rowid)).toEqual([1, 5, 3, 4, 6, 2]);
    expect((await rowsOf({ sort: [{ field: "account" }, { field: "rowid", direction: "DESC" }] })).map((r) => r.rowid)).toEqual([6, 1, 5, 4, 2, 3]);
    expect((await rowsOf({ sort: { field: "effective_date", direction: "DESC" } })).map((r) => r.rowid)).toEqual([6, 5, 4, 3, 2, 1]);
    const pages = [];
    for (let page = 0; page < 3; page++) {
      const response = await data({ page, pageSize: 4, sort: { field: "rowid", direction: "DESC" }, excludeFields: ["memo", "x_reference"] });
      expect(response.status).toBe(200);
      pages.push(response.body);
    }
    expect(pages.map((p) => p.content.map((r: { rowid: number }) => r.rowid))).toEqual([[6, 5, 4, 3], [2, 1], []]);
    expect(pages.map((p) => p.last)).toEqual([false, true, true]);
    expect(Object.keys(pages[0].content[0])).not.toContain("memo");
    expect(Object.keys(pages[0].content[0])).toContain("account");
  });

  it("pages by cursor (after: endCursor) in every order, nulls and ties included, exactly as one page holds them", async () => {
    const sorts = [
      undefined,
      { field: "amount", direction: "DESC" },
      [{ field: "account" }, { field: "rowid", direction: "DESC" }],
      { field: "effective_date", direction: "DESC" },
      [{ field: "x_reference" }, { field: "amount" }],
      [{ field: "x_reference", direction: "DESC" }, { field: "account", direction: "DESC" }],
      [{ field: "txid", direction: "DESC" }],
    ];
    for (const sort of sorts) {
      const whole = (await rowsOf({ sort, pageSize: 100 })).map((r) => r.rowid);
      for (const pageSize of [1, 4]) {
        const walked: number[] = [];
        let after: string | undefined;
        for (let i = 0; i < 10; i++) {
          const response = await data({ sort, pageSize, ...(after ? { after } : {}) });
          expect(response.status, JSON.stringify(response.body)).toBe(200);
          walked.push(...response.body.content.map((r: { rowid: number }) => r.rowid));
          if (response.body.last) break;
          expect(response.body.hasNextPage).toBe(true);
          after = response.body.endCursor;
        }
        expect(walked, JSON.stringify(sort)).toEqual(whole);
      }
    }
    // Nulls (blank references) sort as larger than any value: last ascending, first descending.
    const blanks = await parseIntoEntriesTable(server, LEDGER.replace(/,R-1\r\n/g, ",\r\n").replace("R-3\r\nJE3", "\r\nJE3"), { proposedColumnMappings: MAPPINGS });
    const [withNulls] = await findDataTable(blanks.analysisId);
    for (const sort of [[{ field: "x_reference" }], [{ field: "x_reference", direction: "DESC" }], [{ field: "x_reference", direction: "DESC" }, { field: "amount" }]]) {
      const wholeResponse = await data({ sort, pageSize: 100 }, withNulls!.id);
      const whole = wholeResponse.body.content.map((r: { rowid: number }) => r.rowid);
      expect(wholeResponse.body.content.filter((r: Record<string, unknown>) => r.x_reference === undefined).length).toBe(3);
      const walked: number[] = [];
      let after: string | undefined;
      for (let i = 0; i < 10; i++) {
        const response = await data({ sort, pageSize: 1, ...(after ? { after } : {}) }, withNulls!.id);
        expect(response.status, JSON.stringify(response.body)).toBe(200);
        walked.push(...response.body.content.map((r: { rowid: number }) => r.rowid));
        if (response.body.last) break;
        after = response.body.endCursor;
      }
      expect(walked, JSON.stringify(sort)).toEqual(whole);
    }
    // With a filter, through GraphQL.
    const first = await server.gql(`query($id: ID!, $i: DataTableDataInput) { dataTableData(id: $id, input: $i) { content endCursor hasNextPage } }`, {
      id: dataTableId,
      i: { query: { amount: { $gt: 0 } }, sort: { field: "amount", direction: "ASC" }, pageSize: 1 },
    });
    expect(first.body.errors, JSON.stringify(first.body.errors)).toBeUndefined();
    const next = await server.gql(`query($id: ID!, $i: DataTableDataInput) { dataTableData(id: $id, input: $i) { content hasNextPage } }`, {
      id: dataTableId,
      i: { query: { amount: { $gt: 0 } }, sort: { field: "amount", direction: "ASC" }, pageSize: 1, after: first.body.data.dataTableData.endCursor },
    });
    expect([first, next].map((r) => r.body.data.dataTableData.content[0].amount)).toEqual((await rowsOf({ query: { amount: { $gt: 0 } }, sort: { field: "amount" } })).slice(0, 2).map((r) => r.amount));
    // A cursor of another sort, a forged one, or one combined with a page number: 400 naming after/page.
    const cursor = (await data({ sort: { field: "amount" }, pageSize: 1 })).body.endCursor;
    for (const [body, identifier] of [
      [{ sort: { field: "account" }, after: cursor }, "after"],
      [{ after: "not-a-cursor" }, "after"],
      [{ sort: { field: "amount" }, after: cursor, page: 2 }, "page"],
    ] as const) {
      const refused = await data(body);
      expect(refused.status, JSON.stringify(refused.body)).toBe(400);
      expect(refused.body.problems[0].identifier).toBe(identifier);
    }
  });

  it("returns only the columns `fields` names, in that order, less any in excludeFields (wire reference 5)", async () => {
    const problem = async (body: unknown) => {
      const response = await data(body);
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      return response.body.problems[0];
    };
    const chosen = await data({ fields: ["debit", "account", "rowid"], sort: { field: "rowid" }, pageSize: 2 });
    expect(chosen.status, JSON.stringify(chosen.body)).toBe(200);
    expect(chosen.body.content.map((row: Record<string, unknown>) => Object.keys(row))).toEqual([
      ["debit", "account", "rowid"],
      ["debit", "account", "rowid"],
    ]);
    const narrowed = await data({ fields: ["debit", "account", "rowid"], excludeFields: ["debit"], pageSize: 1 });
    expect(Object.keys(narrowed.body.content[0])).toEqual(["account", "rowid"]);
    expect(await problem({ fields: ["account", "nope"] })).toMatchObject({ identifier: "fields[1]", values: ["nope"] });
    expect(await problem({ fields: ["account"], excludeFields: ["account"] })).toMatchObject({ identifier: "excludeFields" });
    const gql = await server.gql(`query($id: ID!, $input: DataTableDataInput) { dataTableData(id: $id, input: $input) { content } }`, { id: dataTableId, input: { fields: ["account"], pageSize: 1 } });
    expect(Object.keys(gql.body.data.dataTableData.content[0])).toEqual(["account"]);
  });

  it("serves the same rows through GraphQL", async () => {
    const result = await server.gql(`query($id: ID!, $input: DataTableDataInput) { dataTableData(id: $id, input: $input) { content numberOfElements last } }`, {
      id: dataTableId,
      input: { query: { txid: "JE3" }, sort: [{ field: "amount", direction: "ASC" }], pageSize: 10 },
    });
    expect(result.body.errors).toBeUndefined();
    expect(result.body.data.dataTableData.content.map((r: { rowid: number; amount: number }) => [r.rowid, r.amount])).toEqual([[6, -30000], [5, 30000]]);
    const refused = await server.gql(`query($id: ID!) { dataTableData(id: $id, input: { pageSize: 5000 }) { numberOfElements } }`, { id: dataTableId });
    expect(refused.body.errors[0].extensions).toMatchObject({ status: 400 });
  });
});

describe("CSV export", () => {
  it("exports every default column sorted by rowid, values in wire formats, CSV quoting", async () => {
    const csv = await exportCsv({});
    const lines = csv.trimEnd().split("\r\n");
    expect(lines[0]).toBe("rowid,txid,effective_date,account,account_description,memo,debit,credit,amount,x_reference,parse_errors");
    expect(lines).toHaveLength(7);
    expect(lines[1]).toBe("1,JE1,2023-01-15,10100,Cash,Invoice 4471 freight,125000,0,125000,R-1,");
    expect(lines[3]).toBe('3,JE2,2023-02-28,60100,Office Supplies,"Paper ""A4"", toner",4599,0,4599,R-2,');
  });

  it("honours fields, query, sort, limit and csvConfiguration", async () => {
    const csv = await exportCsv({
      fields: ["txid", "memo", "amount"],
      query: { amount: { $gt: 0 } },
      sort: { field: "amount", direction: "ASC" },
      limit: 2,
      csvConfiguration: { delimiter: ";", quote: "'", quoteEscape: "\\" },
    });
    expect(csv).toBe("txid;memo;amount\r\nJE2;Paper \"A4\", toner;4599\r\nJE3;Reclass to reserve;30000\r\n");
    const quoted = await exportCsv({ fields: ["memo"], query: { rowid: 3 }, csvConfiguration: { delimiter: ",", quote: '"', quoteEscape: "\\", quoteEscapeEscape: "\\" } });
    expect(quoted).toBe('memo\r\n"Paper \\"A4\\", toner"\r\n');
  });

  it("neutralises spreadsheet formulas in text cells (=, +, -, @, tab, CR get a leading apostrophe), never in numbers", async () => {
    const hostile = [
      "Journal ID,Effective Date,Account,Account Description,Debit,Credit,Memo,Reference",
      'JE9,01/15/2023,10100,=HYPERLINK("http://evil.example";"x"),10.00,,@SUM(A1:A9),+1+2',
      'JE9,01/15/2023,40100,"-2+3+cmd|\' /C calc\'!A0",,10.00,"\tTab",-R-9',
    ].join("\r\n") + "\r\n";
    const parsed = await parseIntoEntriesTable(server, hostile, { proposedColumnMappings: MAPPINGS });
    const [table] = await findDataTable(parsed.analysisId);
    const csv = await exportCsv({ fields: ["txid", "account_description", "memo", "x_reference", "amount"] }, server.api, table.id);
    expect(csv).toBe(
      [
        "txid,account_description,memo,x_reference,amount",
        `JE9,"'=HYPERLINK(""http://evil.example"";""x"")",'@SUM(A1:A9),'+1+2,1000`,
        `JE9,'-2+3+cmd|' /C calc'!A0,'\tTab,'-R-9,-1000`,
        "",
      ].join("\r\n"),
    );
    // The data itself is untouched: the rows still read as written.
    const rows = (await data({ sort: { field: "rowid" } }, table.id)).body.content;
    expect(rows.map((r: Record<string, string>) => r.account_description)).toEqual(['=HYPERLINK("http://evil.example";"x")', "-2+3+cmd|' /C calc'!A0"]);
    await dropEntriesTable(server, parsed);
  });

  it("refuses bad export requests with 400 naming the key, before starting a job", async () => {
    const refuse = async (body: unknown) => {
      const response = await server.api.post(`/data-tables/${dataTableId}/export`, body);
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      return response.body.problems[0].identifier;
    };
    expect(await refuse({ fields: [] })).toBe("fields");
    expect(await refuse({ fields: ["nope"] })).toBe("fields[0]");
    expect(await refuse({ sort: { field: "memo2" } })).toBe("sort.field");
    expect(await refuse({ query: { memo: { $eq: "x" } } })).toBe("memo.$eq");
    expect(await refuse({ limit: 0 })).toBe("limit");
    expect(await refuse({ csvConfiguration: { delimiter: ";;" } })).toBe("csvConfiguration.delimiter");
    expect(await refuse({ csvConfiguration: { delimiter: '"' } })).toBe("csvConfiguration.quote");
    expect(await refuse({ innerListCsvConfiguration: { quote: "\n" } })).toBe("innerListCsvConfiguration.quote");
    expect(await refuse({ format: "xlsx" })).toBe("format");
    expect((await server.api.post("/data-tables/0123456789abcdef01234567/export", {})).status).toBe(404);
  });

  it("walks from the export's async result to its file result, and from the data table to its engagement and result, in GraphQL", async () => {
    const started = await server.api.post(`/data-tables/${dataTableId}/export`, {});
    const done = await awaitJob(server.api, started.body.id);
    const walked = await server.gql(`query($a: ID!, $d: ID!) {
      asyncResult(id: $a) { fileResult { id fileName } analysisSource { id } }
      dataTable(id: $d) { engagement { id } analysisResult { id } analysisSource { id } } }`, { a: started.body.id, d: dataTableId });
    expect(walked.body.errors, JSON.stringify(walked.body.errors)).toBeUndefined();
    expect(walked.body.data.asyncResult).toMatchObject({ fileResult: { id: done.entityId }, analysisSource: null });
    expect(walked.body.data.dataTable).toEqual({ engagement: { id: source.engagementId }, analysisResult: null, analysisSource: { id: source.analysisSourceId } });
  });

  it("starts the same export through GraphQL", async () => {
    const result = await server.gql(`mutation($id: ID!, $input: DataTableExportInput) { exportDataTable(id: $id, input: $input) { id type entityType status } }`, {
      id: dataTableId,
      input: { fields: ["txid", "amount"], query: { txid: "JE2" }, sort: { field: "amount", direction: "DESC" } },
    });
    expect(result.body.errors).toBeUndefined();
    expect(result.body.data.exportDataTable).toMatchObject({ type: "DATA_TABLE_EXPORT", entityType: "FILE_RESULT" });
    const done = await awaitJob(server.api, result.body.data.exportDataTable.id);
    expect(await download(server.api, done.entityId)).toBe("txid,amount\r\nJE2,4599\r\nJE2,-4599\r\n");
  });

  it("keeps the file result to the starting token and needs api.data-tables.read", async () => {
    const reader = await clientWithPermissions(server.api, ["api.data-tables.read"], "exporter");
    const started = await reader.post(`/data-tables/${dataTableId}/export`, { fields: ["rowid"] });
    const done = await awaitJob(reader, started.body.id);
    expect(done.status).toBe("COMPLETE");
    expect(await download(reader, done.entityId)).toBe("rowid\r\n1\r\n2\r\n3\r\n4\r\n5\r\n6\r\n");
    const fileResult = await reader.get(`/file-results/${done.entityId}`);
    expect(fileResult.body.fileName).toBe(`gl_journal_lines-${dataTableId}.csv`);
    expect((await server.api.get(`/file-results/${done.entityId}`)).status).toBe(404);
    expect((await server.api.get(`/async-results/${started.body.id}`)).status).toBe(404);
    const writerOnly = await clientWithPermissions(server.api, ["api.file-manager.write"], "no data tables");
    expect((await writerOnly.post(`/data-tables/${dataTableId}/export`, {})).status).toBe(403);
  });
});

describe("POST /file-manager/import-from-data-table", () => {
  it("writes the export as a CSV file of the engagement (async DATA_TABLE_EXPORT targeting the file)", async () => {
    const started = await server.api.post("/file-manager/import-from-data-table", { dataTableId, name: "ledger extract", fields: ["txid", "account", "amount"], query: { txid: "JE1" } });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(started.body).toMatchObject({ type: "DATA_TABLE_EXPORT", entityType: "FILE_MANAGER_FILE", status: "IN_PROGRESS" });
    const done = await awaitJob(server.api, started.body.id);
    expect(done.status, done.error).toBe("COMPLETE");
    const file = await server.api.get(`/file-manager/${done.entityId}`);
    expect(file.body).toMatchObject({ type: "FILE", engagementId: source.engagementId, name: "ledger extract", extension: "csv", originalName: "ledger extract.csv" });
    const bytes = await server.api.get(`/file-manager/${done.entityId}/export`);
    expect(bytes.status).toBe(200);
    expect(bytes.body).toBe("txid,account,amount\r\nJE1,10100,125000\r\nJE1,40100,-125000\r\n");
  });

  it("checks permissions, the data table, the engagement and the export options", async () => {
    const fileWriter = await clientWithPermissions(server.api, ["api.file-manager.write"], "files only");
    const forbidden = await fileWriter.post("/file-manager/import-from-data-table", { dataTableId });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.problems[0].values).toEqual(["api.data-tables.read"]);
    const reader = await clientWithPermissions(server.api, ["api.data-tables.read"], "tables only");
    expect((await reader.post("/file-manager/import-from-data-table", { dataTableId })).status).toBe(403);
    const refuse = async (body: unknown) => {
      const response = await server.api.post("/file-manager/import-from-data-table", body);
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      return response.body.problems[0].identifier;
    };
    expect(await refuse({ dataTableId: "0123456789abcdef01234567" })).toBe("dataTableId");
    const other = await server.api.post("/engagements", {
      organizationId: (await server.api.get(`/engagements/${source.engagementId}`)).body.organizationId,
      name: "Other",
      accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" },
    });
    expect(await refuse({ dataTableId, engagementId: other.body.id })).toBe("engagementId");
    expect(await refuse({ dataTableId, fields: ["nope"] })).toBe("fields[0]");
    expect(await refuse({ dataTableId, parentFileManagerEntityId: "0123456789abcdef01234567" })).toBe("parentFileManagerEntityId");
    expect(await refuse({ dataTableId, name: " " })).toBe("name");
  });
});

describe("exports above the sort limit", () => {
  let small: TestServer;
  beforeAll(async () => {
    small = await startTestServer({ dataTableExportSortLimit: 3 });
  });
  afterAll(async () => {
    await small?.close();
  });

  it("are written unsorted (table order) when more rows than the limit are exported", async () => {
    const parsed = await parseIntoEntriesTable(small, LEDGER, { proposedColumnMappings: MAPPINGS });
    const [table] = (await small.api.post("/data-tables/query", { $and: [{ analysisId: parsed.analysisId }, { logicalName: "gl_journal_lines" }] })).body.content;
    const run = async (body: Record<string, unknown>) => {
      const started = await small.api.post(`/data-tables/${table.id}/export`, { fields: ["rowid"], sort: { field: "rowid", direction: "DESC" }, ...body });
      const done = await awaitJob(small.api, started.body.id);
      expect(done.status, done.error).toBe("COMPLETE");
      return (await download(small.api, done.entityId)).trimEnd().split("\r\n").slice(1).map(Number);
    };
    // 6 rows > 3: the requested descending order is not applied.
    expect(await run({})).toEqual([1, 2, 3, 4, 5, 6]);
    // A filter or limit bringing the export within the limit keeps the order.
    expect(await run({ query: { amount: { $gt: 0 } } })).toEqual([5, 3, 1]);
    expect(await run({ limit: 3 })).toEqual([6, 5, 4]);
  });
});
