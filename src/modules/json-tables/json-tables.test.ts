import { existsSync, readdirSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { clientWithPermissions, createEngagement, waitFor } from "../../../test/helpers/entities.js";

const BODY_LIMIT = 4 * 1024 * 1024;
let server: TestServer;
let db: pg.Pool;
let engagementId: string;

beforeAll(async () => {
  // A small body limit so the 413 of an oversized page is cheap to provoke.
  server = await startTestServer({ cleanupIntervalSeconds: 1, schedulerTickSeconds: 1, jsonBodyLimit: BODY_LIMIT });
  db = new pg.Pool({ connectionString: server.databaseUrl, max: 3 });
  engagementId = (await createEngagement(server.api, "json tables")).id;
});
afterAll(async () => {
  await db?.end();
  await server?.close();
});

async function newTable(): Promise<string> {
  const created = await server.api.post("/json-tables", {});
  expect(created.status).toBe(200);
  return created.body.id;
}

async function csvOf(jsonTableId: string, name = "rows"): Promise<string> {
  const file = await server.api.post("/file-manager/import-from-json-table", { engagementId, jsonTableId, name });
  expect(file.status).toBe(200);
  const response = await fetch(`${server.url}/api/v1/file-manager/${file.body.id}/export`, { headers: { authorization: `Bearer ${server.token}` } });
  return response.text();
}

describe("JSON tables", () => {
  it("creates an empty table from {} (and from a read body), refusing unknown keys", async () => {
    const created = await server.api.post("/json-tables", {});
    expect(created.body).toMatchObject({ headers: [], currentSize: 0, version: 0 });
    expect((await server.api.get(`/json-tables/${created.body.id}`)).body).toEqual(created.body);
    expect((await server.api.post("/json-tables", created.body)).status).toBe(200);
    const unknown = await server.api.post("/json-tables", { colour: "red" });
    expect(unknown.status).toBe(400);
    expect(unknown.body.problems[0].identifier).toBe("colour");
  });

  it("appends pages, collecting headers in order of first appearance", async () => {
    const id = await newTable();
    const first = await server.api.post(`/json-tables/${id}/append`, [{ b: 1, a: "x" }, { a: "y", c: true }]);
    expect(first.status).toBe(200);
    expect(first.body.headers).toEqual(["b", "a", "c"]);
    expect(first.body.currentSize).toBeGreaterThan(0);
    const second = await server.api.post(`/json-tables/${id}/append`, [{ d: null, a: "z" }]);
    expect(second.body.headers).toEqual(["b", "a", "c", "d"]);
    expect(second.body.currentSize).toBeGreaterThan(first.body.currentSize);
    expect(second.body.version).toBe(2);
  });

  it("refuses pages that are not arrays of non-empty objects", async () => {
    const id = await newTable();
    for (const [body, identifier] of [[{ a: 1 }, "body"], [[], "body"], [[{ a: 1 }, 5], "[1]"], [[{}], "[0]"]] as const) {
      const response = await server.api.post(`/json-tables/${id}/append`, body);
      expect(response.status).toBe(400);
      expect(response.body.problems[0].identifier).toBe(identifier);
    }
    expect((await server.api.get(`/json-tables/${id}`)).body.currentSize).toBe(0);
    expect((await server.api.post("/json-tables/0123456789abcdef01234567/append", [{ a: 1 }])).status).toBe(404);
  });

  it("streams a large page: every row is stored, headers in order of first appearance", async () => {
    const id = await newTable();
    const rows = 60_000;
    const page = Array.from({ length: rows }, (_, i) => ({ n: i, text: `row ${i}, "quoted"`, ...(i === rows - 1 ? { last: true } : {}) }));
    const body = JSON.stringify(page, null, "\t"); // whitespace between tokens is allowed anywhere
    expect(body.length).toBeGreaterThan(2 * 1024 * 1024);
    const appended = await server.api.request("POST", `/json-tables/${id}/append`, ` \n${body}\n `);
    expect(appended.status).toBe(200);
    expect(appended.body.headers).toEqual(["n", "text", "last"]);
    expect(appended.body.version).toBe(1);
    const lines = (await csvOf(id, "large")).trimEnd().split("\r\n");
    expect(lines.length).toBe(1 + rows);
    expect(lines[1]).toBe('0,"row 0, ""quoted""",');
    expect(lines[rows]).toBe(`${rows - 1},"row ${rows - 1}, ""quoted""",true`);
  });

  it("refuses malformed JSON anywhere in the page (400) and stores nothing of it", async () => {
    const id = await newTable();
    await server.api.post(`/json-tables/${id}/append`, [{ a: 1 }]);
    const before = (await server.api.get(`/json-tables/${id}`)).body;
    const good = Array.from({ length: 30_000 }, (_, i) => JSON.stringify({ a: i, b: "x".repeat(30) })).join(",");
    const bodies = [`[${good},{"a":`, `[${good},{"a":1} {"a":2}]`, `[${good},{"a":tru}]`, `[${good}]]`, `[${good}] x`, `[${good},]`, "[", "nonsense", `[{"a":1}`];
    for (const body of bodies) {
      const response = await server.api.request("POST", `/json-tables/${id}/append`, body);
      expect(response.status, body.slice(-30)).toBe(400);
      expect(response.body.title, body.slice(-30)).toMatch(/Request body is not valid JSON/);
    }
    expect((await server.api.get(`/json-tables/${id}`)).body).toEqual(before);
    expect((await csvOf(id, "after malformed")).trimEnd().split("\r\n")).toEqual(["a", "1"]);
    // Neither the staged bodies nor half-written pages are left behind.
    for (const dir of ["uploads", ".tmp"]) expect(existsSync(join(server.dataDir, "files", dir)) ? readdirSync(join(server.dataDir, "files", dir)) : [], dir).toEqual([]);
    expect(readdirSync(join(server.dataDir, "files", "json-tables", id))).toEqual(["000000"]);
  });

  it("names a row whose key appears twice, and the rows that are not objects, storing nothing", async () => {
    const id = await newTable();
    const duplicate = await server.api.request("POST", `/json-tables/${id}/append`, '[{"a":1},{"a":1,"b":{"c":1,"c":2}}]');
    expect(duplicate.status).toBe(400);
    expect(duplicate.body.problems[0]).toMatchObject({ identifier: "[1].b.c", values: ["c"] });
    const mixed = await server.api.post(`/json-tables/${id}/append`, [{ a: 1 }, "x", [1], null, {}, { b: 2 }]);
    expect(mixed.status).toBe(400);
    expect(mixed.body.problems.map((p: { identifier: string }) => p.identifier)).toEqual(["[1]", "[2]", "[3]", "[4]"]);
    for (const body of ["", "  ", "null", '"rows"', "42", '{"a":1,"a":2}']) {
      const response = await server.api.request("POST", `/json-tables/${id}/append`, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
    }
    expect((await server.api.get(`/json-tables/${id}`)).body.currentSize).toBe(0);
  });

  it("appends over GraphQL with the rows as a variable; the REST-only field takes no bytes from GraphQL", async () => {
    const id = await newTable();
    const append = `mutation ($id: ID!, $rows: JSON!) { appendJsonTable(id: $id, rows: $rows) { headers currentSize version } }`;
    const appended = await server.gql(append, { id, rows: [{ x: 1 }, { y: "2" }] });
    expect(appended.body.errors).toBeUndefined();
    expect(appended.body.data.appendJsonTable).toMatchObject({ headers: ["x", "y"], version: 1 });
    const refused = await server.gql(append, { id, rows: [{ x: 1 }, 7] });
    expect(refused.body.errors[0].extensions.problems[0].identifier).toBe("[1]");
    const staged = await server.gql(`mutation ($id: ID!) { appendJsonTableFromBody(id: $id, page: "0123456789abcdef01234567") { version } }`, { id });
    expect(staged.body.errors[0].extensions.problems[0].identifier).toBe("page");
    expect((await csvOf(id, "graphql")).trimEnd().split("\r\n")).toEqual(["x,y", "1,", ",2"]);
  });

  it("refuses a page larger than the body limit with 413", async () => {
    const id = await newTable();
    const page = Array.from({ length: 1 + BODY_LIMIT / 40 }, (_, i) => ({ a: i, b: "y".repeat(40) }));
    const response = await server.api.post(`/json-tables/${id}/append`, page);
    expect(response.status).toBe(413);
    expect((await server.api.get(`/json-tables/${id}`)).body.currentSize).toBe(0);
  });

  it("refuses an append while another page of the same table is being appended (409), then accepts it", async () => {
    const id = await newTable();
    const holder = await db.connect();
    try {
      await holder.query("BEGIN");
      await holder.query("SELECT id FROM json_table WHERE id = $1 FOR UPDATE", [id]); // an append in progress
      const refused = await server.api.post(`/json-tables/${id}/append`, [{ a: 1 }]);
      expect(refused.status).toBe(409);
      expect(refused.body.title).toMatch(/being appended; pages are uploaded one at a time/);
      expect(refused.body.problems[0]).toMatchObject({ problemType: "INVALID_STATE" });
      await holder.query("COMMIT");
    } finally {
      holder.release();
    }
    expect((await server.api.post(`/json-tables/${id}/append`, [{ a: 1 }])).status).toBe(200);
  });

  it("refuses a second page while the first is still arriving, over REST and GraphQL, and accepts it once the first is stored", async () => {
    const id = await newTable();
    // The first page's body arrives slowly: half of it, then (after the second attempts) the rest.
    const first = request(`${server.url}/api/v1/json-tables/${id}/append`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" },
    });
    const firstAnswer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      first.on("response", (response) => {
        let body = "";
        response.on("data", (chunk) => (body += chunk));
        response.on("end", () => resolve({ status: response.statusCode!, body }));
      });
      first.on("error", reject);
    });
    first.write('[{"page": 1, "row": 1},');
    // Once the first request holds its claim (an advisory lock in this test's database), it is mid-body.
    await waitFor(async () => {
      const { rows } = await db.query("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())");
      return rows[0].n > 0 ? true : undefined;
    }, "the first append's claim");

    const second = await server.api.post(`/json-tables/${id}/append`, [{ page: 2 }]);
    expect(second.status, JSON.stringify(second.body)).toBe(409);
    expect(second.body.title).toMatch(/being appended; pages are uploaded one at a time/);
    const overGraphql = await server.gql(`mutation($id: ID!, $page: String) { appendJsonTable(id: $id, rowsText: $page) { id } }`, { id, page: '[{"page": 3}]' });
    expect(overGraphql.body.errors?.[0]?.extensions, JSON.stringify(overGraphql.body)).toMatchObject({ code: "CONFLICT" });

    first.end('{"page": 1, "row": 2}]');
    expect((await firstAnswer).status).toBe(200);
    expect((await server.api.post(`/json-tables/${id}/append`, [{ page: 2 }])).status).toBe(200);
    expect((await csvOf(id, "sequential")).split("\r\n")).toEqual(["page,row", "1,1", "1,2", "2,", ""]);
  });

  it("keeps the table consistent under truly concurrent appends: each page is either stored whole or refused", async () => {
    const id = await newTable();
    const page = (n: number) => Array.from({ length: 20_000 }, (_, i) => ({ page: n, row: i, text: "x".repeat(20) }));
    const responses = await Promise.all([0, 1, 2, 3, 4].map((n) => server.api.post(`/json-tables/${id}/append`, page(n))));
    const statuses = responses.map((r) => r.status);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    const accepted = statuses.filter((s) => s === 200).length;
    expect(accepted).toBeGreaterThan(0);
    const csv = await csvOf(id, "concurrent");
    expect(csv.trimEnd().split("\r\n").length).toBe(1 + accepted * 20_000);
  });

  it("merges all pages into one CSV: header by first appearance, missing values empty, values escaped", async () => {
    const id = await newTable();
    await server.api.post(`/json-tables/${id}/append`, [{ account: "1000", amount: 12.5 }, { amount: -3, memo: 'says "hi", twice' }]);
    await server.api.post(`/json-tables/${id}/append`, [{ flag: true, account: "2000" }, { memo: "two\nlines", nested: { a: [1, 2] }, account: null }]);
    const csv = await csvOf(id, "merged");
    expect(csv).toBe(
      [
        "account,amount,memo,flag,nested",
        "1000,12.5,,,",
        ',-3,"says ""hi"", twice",,',
        "2000,,,true,",
        ',,"two\nlines",,"{""a"":[1,2]}"',
        "",
      ].join("\r\n"),
    );
    const file = await server.api.post("/file-manager/import-from-json-table", { engagementId, jsonTableId: id, name: "ledger rows" });
    expect(file.body).toMatchObject({ type: "FILE", name: "ledger rows", extension: "csv", originalName: "ledger rows.csv" });
  });

  it("orders headers by first appearance in the text, integer-like keys included", async () => {
    const id = await newTable();
    // JSON.parse would hand these keys back as 2022, 2023, 10, name, ...: integer-like keys first.
    const first = await server.api.request("POST", `/json-tables/${id}/append`, '[{"name":"cash","2023":1,"2022":2,"b":3},{"10":"x","name":"bank"}]');
    expect(first.status).toBe(200);
    expect(first.body.headers).toEqual(["name", "2023", "2022", "b", "10"]);
    const second = await server.api.request("POST", `/json-tables/${id}/append`, '[{"7":"seven","\\u0041":"escaped key","name":"fees"}]');
    expect(second.body.headers).toEqual(["name", "2023", "2022", "b", "10", "7", "A"]);
    expect((await server.api.get(`/json-tables/${id}`)).body.headers).toEqual(second.body.headers);
    expect((await csvOf(id, "year columns")).split("\r\n")).toEqual(["name,2023,2022,b,10,7,A", "cash,1,2,3,,,", "bank,,,,x,,", "fees,,,,,seven,escaped key", ""]);
  });

  it("writes number tokens into the CSV exactly as they were sent", async () => {
    const id = await newTable();
    const page = `[
      {"id": 12345678901234567890, "amount": 1.10, "rate": 1E+2, "zero": -0.0, "small": 0.000001000, "flag": false, "none": null,
       "nested": {"x": 1.50, "2": 0, "big": 98765432109876543210}, "list": [1.0, 2.50]},
      {"id": 9007199254740993, "amount": -0.10, "text": "1.10 as text"}
    ]`;
    const appended = await server.api.request("POST", `/json-tables/${id}/append`, page);
    expect(appended.status).toBe(200);
    expect(appended.body.headers).toEqual(["id", "amount", "rate", "zero", "small", "flag", "none", "nested", "list", "text"]);
    expect((await csvOf(id, "exact numbers")).split("\r\n")).toEqual([
      "id,amount,rate,zero,small,flag,none,nested,list,text",
      '12345678901234567890,1.10,1E+2,-0.0,0.000001000,false,,"{""x"":1.50,""2"":0,""big"":98765432109876543210}","[1.0,2.50]",',
      "9007199254740993,-0.10,,,,,,,,1.10 as text",
      "",
    ]);
  });

  it("reads a GraphQL page sent as rowsText exactly like a REST body; rows and rowsText exclude each other", async () => {
    const id = await newTable();
    const append = `mutation ($id: ID!, $rows: JSON, $rowsText: String) { appendJsonTable(id: $id, rows: $rows, rowsText: $rowsText) { headers version } }`;
    const appended = await server.gql(append, { id, rowsText: '[{"account":"1000","2024":12345678901234567890,"2023":1.10}]' });
    expect(appended.body.errors).toBeUndefined();
    expect(appended.body.data.appendJsonTable).toEqual({ headers: ["account", "2024", "2023"], version: 1 });
    expect((await csvOf(id, "graphql text")).split("\r\n")).toEqual(["account,2024,2023", "1000,12345678901234567890,1.10", ""]);
    for (const variables of [{ id }, { id, rows: [{ a: 1 }], rowsText: '[{"a":1}]' }]) {
      const refused = await server.gql(append, variables);
      expect(refused.body.errors[0].extensions).toMatchObject({ status: 400, problems: [{ identifier: "rows" }] });
    }
    const malformed = await server.gql(append, { id, rowsText: '[{"a":1},{"a":1,"a":2}]' });
    expect(malformed.body.errors[0].extensions.problems[0]).toMatchObject({ identifier: "[1].a" });
    const notArray = await server.gql(append, { id, rowsText: '{"a":1}' });
    expect(notArray.body.errors[0].extensions.problems[0]).toMatchObject({ identifier: "body" });
    expect((await server.api.get(`/json-tables/${id}`)).body.version).toBe(1);
  });

  it("needs api.file-manager.read/write (JSON tables belong to the file manager area)", async () => {
    const fileManager = await clientWithPermissions(server.api, ["api.file-manager.read", "api.file-manager.write"], "file manager");
    const created = await fileManager.post("/json-tables", {});
    expect(created.status).toBe(200);
    expect((await fileManager.post(`/json-tables/${created.body.id}/append`, [{ a: 1 }])).status).toBe(200);
    expect((await fileManager.get(`/json-tables/${created.body.id}`)).body.headers).toEqual(["a"]);
    expect((await fileManager.post("/file-manager/import-from-json-table", { engagementId, jsonTableId: created.body.id, name: "wire" })).status).toBe(200);

    const neither = await clientWithPermissions(server.api, ["api.engagements.read"], "no tables");
    const refused = await neither.post(`/json-tables/${created.body.id}/append`, [{ a: 2 }]);
    expect(refused.status).toBe(403);
    expect(refused.body.problems[0].values).toEqual(["api.file-manager.write"]);
    expect((await neither.get(`/json-tables/${created.body.id}`)).status).toBe(403);
    expect((await fileManager.get(`/json-tables/${created.body.id}`)).body.version).toBe(1);
    // A JSON table belongs to the token that created it: even the admin token does not see it.
    expect((await server.api.get(`/json-tables/${created.body.id}`)).status).toBe(404);
  });

  it("refuses to import an unknown or empty table", async () => {
    const unknown = await server.api.post("/file-manager/import-from-json-table", { engagementId, jsonTableId: "0123456789abcdef01234567", name: "x" });
    expect(unknown.status).toBe(400);
    expect(unknown.body.problems[0].identifier).toBe("jsonTableId");
    const empty = await server.api.post("/file-manager/import-from-json-table", { engagementId, jsonTableId: await newTable(), name: "x" });
    expect(empty.status).toBe(400);
  });

  it("forgets tables older than 7 days; the scheduled cleanup deletes them and their pages", async () => {
    const id = await newTable();
    await server.api.post(`/json-tables/${id}/append`, [{ a: 1 }]);
    const pages = join(server.dataDir, "files", "json-tables", id);
    expect(existsSync(pages)).toBe(true);
    await db.query("UPDATE json_table SET creation_date = now() - interval '8 days' WHERE id = $1", [id]);
    expect((await server.api.get(`/json-tables/${id}`)).status).toBe(404);
    expect((await server.api.post(`/json-tables/${id}/append`, [{ a: 1 }])).status).toBe(404);
    await waitFor(async () => ((await db.query("SELECT 1 FROM json_table WHERE id = $1", [id])).rowCount === 0 ? true : undefined), "the cleanup", 15_000);
    expect(existsSync(pages)).toBe(false);
  });
});
