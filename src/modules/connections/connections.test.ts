import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { awaitJob } from "../../../test/helpers/entities.js";
import { FakeWarehouse, ledgerTable } from "../../../test/helpers/fake-warehouse.js";
import { ANALYSIS_TYPE_IDS } from "../catalogue/ids.js";

let server: TestServer;
let warehouse: FakeWarehouse;
let db: pg.Pool;
let analysisId: string;
/** Text that CSV must quote or could misread: separators, quotes, line breaks, empty, null, a line that looks like the header. */
const AWKWARD = ["plain", 'say "hi"', "a,b", "two\nlines", "crlf\r\ninside", "", null, "id,memo", "  padded  ", "tab\there", "ünïcödé €", "\\N"];

beforeAll(async () => {
  warehouse = await new FakeWarehouse().start();
  warehouse.chunkRows = 1000;
  warehouse.tables.set("main.finance.gl_lines", ledgerTable(2500));
  warehouse.tables.set("main.finance.vendors", {
    columns: [
      { name: "vendor_id", type: "STRING", fullType: "string", nullable: false },
      { name: "name", type: "STRING", fullType: "string", nullable: true },
    ],
    rowCount: 3,
    row: (i) => [`V${i}`, i === 1 ? null : `Vendor ${i}`],
  });
  warehouse.tables.set("main.finance.slow_lines", { ...ledgerTable(10), delayMs: 1200 });
  warehouse.tables.set("main.finance.broken", { ...ledgerTable(10), fail: { error_code: "DIVIDE_BY_ZERO", message: "[DIVIDE_BY_ZERO] Division by zero." } });
  warehouse.tables.set("main.finance.hanging", { ...ledgerTable(10), hang: true });
  warehouse.tables.set("main.finance.many_chunks", { ...ledgerTable(2350), chunkRows: 100 });
  warehouse.tables.set("main.finance.awkward_text", {
    columns: [
      { name: "id", type: "INT", fullType: "int", nullable: false },
      { name: "memo", type: "STRING", fullType: "string", nullable: true },
    ],
    rowCount: AWKWARD.length,
    row: (i) => [String(i), AWKWARD[i]],
    chunkRows: 3,
    csvLineEnd: "\r\n",
    csvFinalLineBreak: false,
  });
  server = await startTestServer({ warehouseCaFile: warehouse.caFile, warehouseTimeoutSeconds: 2 });
  db = new pg.Pool({ connectionString: server.databaseUrl, max: 2 });
  const organizationId = (await server.api.post("/organizations", { name: "Warehouse client" })).body.id;
  const engagementId = (await server.api.post("/engagements", { organizationId, name: "FY25", auditPeriodEndDate: "2025-12-31", accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" } })).body.id;
  const analysis = await server.api.post("/analyses", { engagementId, analysisTypeId: ANALYSIS_TYPE_IDS.GENERAL_LEDGER, name: "Imports", analysisPeriods: [{ startDate: "2025-01-01", endDate: "2025-12-31" }] });
  expect(analysis.status, JSON.stringify(analysis.body)).toBe(200);
  analysisId = analysis.body.id;
}, 60_000);

afterAll(async () => {
  await db?.end();
  await server?.close();
  await warehouse?.close();
});

const pat = (connectionId: string, overrides: Record<string, unknown> = {}) => ({
  connectionId,
  authType: "PAT",
  host: "localhost",
  port: warehouse.port,
  httpPath: `/sql/1.0/warehouses/${warehouse.warehouseId}`,
  accessToken: warehouse.accessToken,
  ...overrides,
});

async function connection(name: string, auth?: (id: string) => Record<string, unknown>): Promise<string> {
  const created = await server.api.post("/connections", { name, type: "WAREHOUSE" });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  if (auth) {
    const authorization = await server.api.post("/warehouse-auth", auth(created.body.id));
    expect(authorization.status, JSON.stringify(authorization.body)).toBe(200);
  }
  return created.body.id;
}

async function outbox(type: string, entityId: string): Promise<Array<{ payload: Record<string, unknown> }>> {
  return (await db.query("SELECT payload FROM outbox_event WHERE type = $1 AND entity_id = $2 ORDER BY id", [type, entityId])).rows;
}

describe("connections and warehouse authorizations", () => {
  it("creates, reads, queries by name and deletes connections, emitting connection.created/deleted through the outbox", async () => {
    const id = await connection("Finance lakehouse");
    const read = await server.api.get(`/connections/${id}`);
    expect(read.body).toMatchObject({ id, name: "Finance lakehouse", type: "WAREHOUSE", version: 0 });
    await connection("Other warehouse");
    const byName = await server.api.post("/connections/query?sort=name,asc", { name: { $iprefix: "finance" } });
    expect(byName.body.content.map((c: { id: string }) => c.id)).toEqual([id]);
    expect((await server.api.post("/connections", { name: " " })).status).toBe(400);
    expect((await server.api.post("/connections", { name: "x", type: "FTP" })).status).toBe(400);
    expect((await server.api.put(`/connections/${id}`, { name: "y", version: 0 })).status).toBe(405);
    expect(await outbox("connection.created", id)).toHaveLength(1);
    expect((await server.api.delete(`/connections/${id}`)).status).toBe(204);
    expect((await server.api.get(`/connections/${id}`)).status).toBe(404);
    expect(await outbox("connection.deleted", id)).toHaveLength(1);
  });

  it("keeps one authorization per connection, encrypts secrets at rest and never returns them", async () => {
    const id = await connection("Secrets");
    const created = await server.api.post("/warehouse-auth", pat(id));
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toMatchObject({ connectionId: id, authType: "PAT", host: "localhost", port: warehouse.port, version: 0 });
    expect(created.body.accessToken).toBeUndefined();
    const stored = (await db.query("SELECT * FROM warehouse_authorization WHERE id = $1", [created.body.id])).rows[0];
    expect(JSON.stringify(stored)).not.toContain(warehouse.accessToken);
    expect(stored.secret_ciphertext).toMatch(/^v1:/);

    const second = await server.api.post("/warehouse-auth", pat(id));
    expect(second.status).toBe(409);
    expect(second.body.problems[0]).toMatchObject({ identifier: "connectionId" });

    const read = await server.api.get(`/warehouse-auth/${created.body.id}`);
    expect(read.body.accessToken).toBeUndefined();
    expect((await server.api.post("/warehouse-auth/query", { connectionId: id })).body.totalElements).toBe(1);

    // PUT /warehouse-auth carries the id in the body; a read body sent back keeps the stored secret.
    const updated = await server.api.put("/warehouse-auth", { ...read.body, httpPath: `/sql/1.0/warehouses/${warehouse.warehouseId}/` });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body.version).toBe(1);
    const test = await server.api.post(`/connections/${id}/test`, {});
    expect(test.body).toMatchObject({ success: true });
    expect((await server.api.put("/warehouse-auth", { ...read.body })).status).toBe(409);
    // Switching to OAuth needs the client credentials.
    const noSecret = await server.api.put("/warehouse-auth", { id: read.body.id, version: 1, authType: "OAUTH_M2M", clientId: "x" });
    expect(noSecret.status).toBe(400);
    expect(noSecret.body.problems.map((p: { identifier: string }) => p.identifier)).toEqual(["clientSecret"]);

    const other = await connection("Other");
    const missing = await server.api.post("/warehouse-auth", { ...pat(other), accessToken: undefined, httpPath: "/nothing" });
    expect(missing.status).toBe(400);
    expect(missing.body.problems.map((p: { identifier: string }) => p.identifier).sort()).toEqual(["accessToken", "httpPath"]);
    expect((await server.api.post("/warehouse-auth", { ...pat(other), authType: "BASIC" })).status).toBe(400);
    expect((await server.api.delete(`/warehouse-auth/${created.body.id}`)).status).toBe(204);
    const without = await server.api.post(`/connections/${id}/test`, {});
    expect(without.status).toBe(409);
  });

  it("records test results: success, bad credentials, unknown warehouse, unreachable host; emits connection.test.complete", async () => {
    const good = await connection("Good", (id) => pat(id));
    const ok = await server.api.post(`/connections/${good}/test`, {});
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toMatchObject({ connectionId: good, success: true, message: "Connection succeeded" });
    expect((await server.api.get(`/connection-test-results/${ok.body.id}`)).body).toEqual(ok.body);
    expect(await outbox("connection.test.complete", good)).toHaveLength(1);

    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ["Bad token", { accessToken: "dapi-wrong" }, /refused the credentials \(401 UNAUTHENTICATED\)/],
      ["No such warehouse", { httpPath: "/sql/1.0/warehouses/doesnotexist" }, /Unknown SQL warehouse doesnotexist/],
      ["Closed port", { port: 1 }, /Cannot reach localhost:1/],
    ];
    for (const [name, overrides, message] of cases) {
      const id = await connection(name, (c) => pat(c, overrides));
      const result = await server.api.post(`/connections/${id}/test`, {});
      expect(result.status, name).toBe(200);
      expect(result.body.success, name).toBe(false);
      expect(result.body.message, name).toMatch(message);
    }
    const failures = await server.api.post("/connection-test-results/query", { success: false });
    expect(failures.body.totalElements).toBeGreaterThanOrEqual(3);
  });

  it("exchanges OAuth M2M credentials for a token, reuses it, and renews it once the warehouse refuses it as expired", async () => {
    const id = await connection("OAuth", (c) => ({ ...pat(c), authType: "OAUTH_M2M", accessToken: undefined, clientId: warehouse.clientId, clientSecret: warehouse.clientSecret }));
    const before = warehouse.tokenRequests;
    expect((await server.api.post(`/connections/${id}/test`, {})).body.success).toBe(true);
    expect((await server.api.post(`/connections/${id}/test`, {})).body.success).toBe(true);
    expect(warehouse.tokenRequests).toBe(before + 1);
    warehouse.expireTokens();
    expect((await server.api.post(`/connections/${id}/test`, {})).body.success).toBe(true);
    expect(warehouse.tokenRequests).toBe(before + 2);
    const wrong = await connection("OAuth wrong", (c) => ({ ...pat(c), authType: "OAUTH_M2M", accessToken: undefined, clientId: warehouse.clientId, clientSecret: "nope" }));
    const refused = await server.api.post(`/connections/${wrong}/test`, {});
    expect(refused.body).toMatchObject({ success: false, message: expect.stringMatching(/OAuth token request refused \(401\): Client authentication failed/) });
  });

  it("discovers tables with mapped column types, and repeating discovery upserts by tableId", async () => {
    const id = await connection("Discovery", (c) => pat(c));
    const first = await server.api.post(`/connections/${id}/tables`, {});
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({ connectionId: id, success: true, totalTables: warehouse.tables.size });
    expect((await server.api.get(`/connection-tables-results/${first.body.id}`)).body.totalTables).toBe(warehouse.tables.size);
    const tables = await server.api.post("/connection-tables/query?size=50", { connectionId: id });
    expect(tables.body.totalElements).toBe(warehouse.tables.size);
    const gl = tables.body.content.find((t: { tableId: string }) => t.tableId === "main.finance.gl_lines");
    expect(gl).toMatchObject({ name: "gl_lines", tablesResultId: first.body.id, version: 0 });
    expect(gl.schema.columns).toEqual([
      { name: "entry_id", displayName: "entry_id", description: "Journal line id", columnType: "STRING", nullable: false },
      { name: "account", displayName: "account", columnType: "STRING", nullable: true },
      { name: "amount", displayName: "amount", columnType: "DECIMAL", nullable: false, precision: 18, scale: 2 },
      { name: "posted", displayName: "posted", columnType: "DATE", nullable: true },
      { name: "posted_at", displayName: "posted_at", columnType: "DATE_TIME", nullable: true },
      { name: "line_no", displayName: "line_no", columnType: "INT32", nullable: true },
      { name: "is_manual", displayName: "is_manual", columnType: "BOOLEAN", nullable: true },
      { name: "batch", displayName: "batch", columnType: "INT64", nullable: true },
      { name: "tags", displayName: "tags", columnType: "ARRAY_STRINGS", nullable: true },
    ]);
    expect((await server.api.get(`/connection-tables/${gl.id}`)).body).toEqual(gl);

    // The warehouse changes: one table gone, one gains a column.
    const vendors = warehouse.tables.get("main.finance.vendors")!;
    const hanging = warehouse.tables.get("main.finance.hanging")!;
    warehouse.tables.delete("main.finance.hanging");
    warehouse.tables.set("main.finance.vendors", { ...vendors, columns: [...vendors.columns, { name: "score", type: "DOUBLE", fullType: "double", nullable: true }], row: (i) => [...vendors.row(i), "1.5"] });
    try {
      const second = await server.api.post(`/connections/${id}/tables`, {});
      expect(second.body.totalTables).toBe(warehouse.tables.size);
      const again = await server.api.post("/connection-tables/query?size=50", { connectionId: id });
      expect(again.body.totalElements).toBe(warehouse.tables.size);
      expect(again.body.content.some((t: { tableId: string }) => t.tableId === "main.finance.hanging")).toBe(false);
      const changed = again.body.content.find((t: { tableId: string }) => t.tableId === "main.finance.vendors");
      expect(changed).toMatchObject({ version: 1, tablesResultId: second.body.id });
      expect(changed.schema.columns.at(-1)).toMatchObject({ name: "score", columnType: "FLOAT64" });
      expect(again.body.content.find((t: { tableId: string }) => t.tableId === "main.finance.gl_lines").id).toBe(gl.id);
    } finally {
      warehouse.tables.set("main.finance.vendors", vendors);
      warehouse.tables.set("main.finance.hanging", hanging);
    }
    // A failing warehouse is recorded and leaves the known tables alone.
    const broken = await connection("Discovery broken", (c) => pat(c, { accessToken: "wrong" }));
    const failed = await server.api.post(`/connections/${broken}/tables`, {});
    expect(failed.body).toMatchObject({ success: false, totalTables: 0, message: expect.stringMatching(/refused the credentials/) });
  });

  it("removes test results older than 7 days in the scheduled cleanup", async () => {
    const id = await connection("Cleanup", (c) => pat(c));
    const old = (await server.api.post(`/connections/${id}/test`, {})).body.id;
    const fresh = (await server.api.post(`/connections/${id}/test`, {})).body.id;
    await db.query("UPDATE connection_test_result SET creation_date = now() - interval '8 days' WHERE id = $1", [old]);
    const { connectionTestResultCleanup } = await import("./connection.cleanup.js");
    await connectionTestResultCleanup.run(server.running.app as never);
    expect((await server.api.get(`/connection-test-results/${old}`)).status).toBe(404);
    expect((await server.api.get(`/connection-test-results/${fresh}`)).status).toBe(200);
  });
});

const named = (response: { status: number; body: any }) => {
  expect(response.status, JSON.stringify(response.body)).toBe(400);
  return (response.body.problems ?? []).map((p: { identifier: string }) => p.identifier);
};

describe("spec 2.3 and 2.7 input rules, valid and invalid forms", () => {
  it("connections: name required and non-blank, type WAREHOUSE only, unknown properties refused; a read body creates another", async () => {
    expect(named(await server.api.post("/connections", {}))).toEqual(["name"]);
    expect(named(await server.api.post("/connections", { name: "" }))).toEqual(["name"]);
    expect(named(await server.api.post("/connections", { name: "x", type: "FTP" }))).toEqual(["type"]);
    expect(named(await server.api.post("/connections", { name: "x", colour: "red" }))).toContain("colour");
    const first = (await server.api.post("/connections", { name: "Original" })).body;
    const copy = await server.api.post("/connections", { ...first, name: "Copy of original" });
    expect(copy.status, JSON.stringify(copy.body)).toBe(200);
    expect(copy.body).toMatchObject({ name: "Copy of original", type: "WAREHOUSE", version: 0 });
    expect(copy.body.id).not.toBe(first.id);
    for (const path of ["/connections", "/connection-test-results", "/connection-tables-results", "/connection-tables", "/warehouse-auth"]) {
      expect((await server.api.get(`${path}/5cc9076887f13cb8a7a1aaaa`)).status, path).toBe(404);
    }
    expect((await server.api.delete("/connections/5cc9076887f13cb8a7a1aaaa")).status).toBe(404);
    // Results and connection tables are read-only records (spec 2.3, 2.7): no write routes.
    for (const path of ["/connection-test-results", "/connection-tables-results", "/connection-tables"]) {
      expect([404, 405], path).toContain((await server.api.post(path, {})).status);
      expect([404, 405], path).toContain((await server.api.delete(`${path}/5cc9076887f13cb8a7a1aaaa`)).status);
    }
  });

  it("warehouse authorizations: the fields each authType uses, port optional (1-65535), connection known; bad input named", async () => {
    const noPort = await connection("No port");
    const created = await server.api.post("/warehouse-auth", pat(noPort, { port: undefined }));
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.port ?? 443).toBe(443);
    const oauth = await connection("OAuth fields");
    const valid = await server.api.post("/warehouse-auth", { connectionId: oauth, authType: "OAUTH_M2M", host: "adb-1234.5.azuredatabricks.net", httpPath: "/sql/1.0/warehouses/abc123", clientId: "svc", clientSecret: "s3cret", port: 443 });
    expect(valid.status, JSON.stringify(valid.body)).toBe(200);
    expect(valid.body).toMatchObject({ authType: "OAUTH_M2M", clientId: "svc", port: 443 });
    expect(valid.body.clientSecret).toBeUndefined();

    const other = await connection("Bad auth input");
    expect(named(await server.api.post("/warehouse-auth", pat(other, { port: 70000 })))).toEqual(["port"]);
    expect(named(await server.api.post("/warehouse-auth", pat(other, { port: 0 })))).toEqual(["port"]);
    expect(named(await server.api.post("/warehouse-auth", pat(other, { host: "https://example.com/x" })))).toEqual(["host"]);
    expect(named(await server.api.post("/warehouse-auth", pat(other, { host: undefined })))).toEqual(["host"]);
    expect(named(await server.api.post("/warehouse-auth", pat(other, { accessToken: " " })))).toEqual(["accessToken"]);
    expect(named(await server.api.post("/warehouse-auth", pat(other, { authType: undefined })))).toEqual(["authType"]);
    expect(named(await server.api.post("/warehouse-auth", { ...pat(other), authType: "OAUTH_M2M", accessToken: undefined }))).toEqual(["clientId", "clientSecret"]);
    expect(named(await server.api.post("/warehouse-auth", pat("5cc9076887f13cb8a7a1aaaa")))).toEqual(["connectionId"]);
    expect(named(await server.api.post("/warehouse-auth", pat(other, { colour: "red" })))).toContain("colour");
    expect(named(await server.api.put("/warehouse-auth", { version: 0, host: "localhost" }))).toEqual(["id"]);
    expect((await server.api.put("/warehouse-auth", { id: "5cc9076887f13cb8a7a1aaaa", version: 0 })).status).toBe(404);
  });
});

describe("importing warehouse data", () => {
  let connectionId: string;
  beforeAll(async () => {
    connectionId = await connection("Ledger warehouse", (c) => pat(c));
    expect((await server.api.post(`/connections/${connectionId}/tables`, {})).body.success).toBe(true);
  });

  it("reads a multi-chunk table through get-data into a data table whose every value matches the warehouse", async () => {
    const started = await server.api.post(`/connections/${connectionId}/get-data`, { tableId: "main.finance.gl_lines", analysisId });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(started.body).toMatchObject({ type: "DATA_SOURCE_IMPORT_TASK", entityType: "DATA_SOURCE_IMPORT_TASK", status: "IN_PROGRESS" });
    const taskAtStart = await server.api.get(`/data-source-import-tasks/${started.body.entityId}`);
    expect(taskAtStart.status).toBe(200);
    const done = await awaitJob(server.api, started.body.id, 60_000);
    expect(done.status, done.error).toBe("COMPLETE");
    const task = (await server.api.get(`/data-source-import-tasks/${started.body.entityId}`)).body;
    expect(task).toMatchObject({ status: "COMPLETE", rowCount: 2500, connectionId, tableId: "main.finance.gl_lines", analysisId });
    // Read as EXTERNAL_LINKS CSV (three chunks downloaded from their presigned links, never with the
    // bearer token); the discovery before it used INLINE JSON_ARRAY.
    expect(warehouse.posted.filter((p) => p.statement.includes("gl_lines")).map((p) => [p.disposition, p.format])).toEqual([["EXTERNAL_LINKS", "CSV"]]);
    expect(warehouse.posted.find((p) => p.statement.includes("information_schema"))).toMatchObject({ disposition: "INLINE", format: "JSON_ARRAY" });
    expect(warehouse.downloadsWithAuthorization).toBe(0);
    const table = (await server.api.get(`/data-tables/${task.dataTableId}`)).body;
    expect(table).toMatchObject({ analysisId, rowCount: 2500, type: "imported" });
    const source = ledgerTable(2500);
    const seen: Array<Record<string, unknown>> = [];
    for (let page = 0; ; page++) {
      const rows = await server.api.post(`/data-tables/${task.dataTableId}/data`, { page, pageSize: 2000 });
      expect(rows.status, JSON.stringify(rows.body)).toBe(200);
      seen.push(...rows.body.content);
      if (rows.body.last) break;
    }
    expect(seen).toHaveLength(2500);
    seen.forEach((row, i) => {
      const [entryId, account, amount, posted, postedAt, lineNo, manual, batch, tags] = source.row(i);
      const expected: Record<string, unknown> = { rowid: i + 1, entry_id: entryId, amount: Number(amount).toFixed(2), posted, posted_at: postedAt, line_no: Number(lineNo), is_manual: manual === "true", batch: Number(batch), tags: JSON.parse(tags!) };
      if (account !== null) expected.account = account;
      expect(row).toEqual(expected);
    });
    const filtered = await server.api.post(`/data-tables/${task.dataTableId}/data`, { query: { entry_id: "JE-0000042" } });
    expect(filtered.body.content).toHaveLength(1);

    // Searchable and indexed as an ingested table is, before COMPLETE: keys by equality and prefix
    // (lower(col) index), dates and numbers by range, flags by equality; statistics gathered.
    expect(Object.fromEntries(table.columns.map((c: Record<string, unknown>) => [c.field, [c.equalitySearch, c.caseInsensitivePrefixSearch, c.rangeSearch, c.sortable]]))).toEqual({
      rowid: [true, false, true, true],
      entry_id: [true, true, false, true],
      account: [true, true, false, true],
      amount: [true, false, true, true],
      posted: [true, false, true, true],
      posted_at: [true, false, true, true],
      line_no: [true, false, true, true],
      is_manual: [true, false, false, true],
      batch: [true, false, true, true],
      tags: [false, false, false, false],
    });
    const physical = `t_${task.id}`;
    const indexes = (await db.query("SELECT indexdef FROM pg_indexes WHERE schemaname = 'imports' AND tablename = $1", [physical])).rows.map((r) => r.indexdef.replace(/^.* USING btree /, ""));
    expect(indexes.sort()).toEqual(["(c2, row_no)", "(c3, row_no)", "(c4, row_no)", "(c5, row_no)", "(c7, row_no)", "(lower(c0) text_pattern_ops)", "(lower(c1) text_pattern_ops)", "(row_no)"]);
    expect((await db.query("SELECT count(*)::int AS n FROM pg_stats WHERE schemaname = 'imports' AND tablename = $1", [physical])).rows[0].n).toBeGreaterThan(0);
    const ranged = await server.api.post(`/data-tables/${task.dataTableId}/data`, { query: { $and: [{ account: { $iprefix: "400" } }, { posted: { $gte: "2025-12-01" } }, { is_manual: true }] }, pageSize: 2000 });
    expect(ranged.status, JSON.stringify(ranged.body)).toBe(200);
    const expectedRanged = Array.from({ length: 2500 }, (_v, i) => source.row(i)).filter((r) => r[1]?.startsWith("400") && r[3]! >= "2025-12-01" && r[6] === "true");
    expect(ranged.body.content.map((r: { entry_id: string }) => r.entry_id)).toEqual(expectedRanged.map((r) => r[0]));
    expect(await outbox("connection.data.complete", connectionId)).toEqual([expect.objectContaining({ payload: expect.objectContaining({ status: "COMPLETE", rowCount: 2500 }) })]);
  });

  it("imports a table of many chunks, every row once and in order, retrying chunk fetches whose connection the warehouse dropped", async () => {
    const before = warehouse.chunkRequests;
    warehouse.dropChunkRequests = 2;
    // A result far above the warehouse's INLINE limit (scaled down from 25 MiB) still imports: the
    // import reads EXTERNAL_LINKS.
    warehouse.inlineLimitBytes = 16 * 1024;
    const started = await server.api.post(`/connections/${connectionId}/get-data`, { tableId: "main.finance.many_chunks", analysisId, columns: ["entry_id", "line_no"] });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const done = await awaitJob(server.api, started.body.id, 60_000).finally(() => (warehouse.inlineLimitBytes = 25 * 1024 * 1024));
    expect(done.status, done.error).toBe("COMPLETE");
    // 24 chunks: the first one's link in the statement's answer, 23 links fetched, 2 of those twice.
    expect(warehouse.chunkRequests - before).toBe(25);
    expect(warehouse.dropChunkRequests).toBe(0);
    const task = (await server.api.get(`/data-source-import-tasks/${started.body.entityId}`)).body;
    expect(task).toMatchObject({ status: "COMPLETE", rowCount: 2350 });
    const seen: Array<{ rowid: number; entry_id: string; line_no: number }> = [];
    for (let page = 0; ; page++) {
      const rows = await server.api.post(`/data-tables/${task.dataTableId}/data`, { page, pageSize: 2000 });
      seen.push(...rows.body.content);
      if (rows.body.last) break;
    }
    const source = ledgerTable(2350);
    expect(seen).toEqual(Array.from({ length: 2350 }, (_v, i) => ({ rowid: i + 1, entry_id: source.row(i)[0], line_no: Number(source.row(i)[5]) })));
  });

  it("re-requests expired links, retries a dropped download, and joins CRLF chunks without final line breaks exactly", async () => {
    const before = { chunkRequests: warehouse.chunkRequests, expired: warehouse.expiredDownloads, downloads: warehouse.downloads };
    // Chunk 0's link arrives already expired (re-requested before use); its replacement is refused by
    // storage although its expiration says valid (re-requested after the 403); one download drops.
    warehouse.expireNextLinks = 1;
    warehouse.revokeNextLinks = 1;
    warehouse.dropDownloads = 1;
    const started = await server.api.post(`/connections/${connectionId}/get-data`, { tableId: "main.finance.awkward_text", analysisId });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const done = await awaitJob(server.api, started.body.id, 60_000);
    expect(done.status, done.error).toBe("COMPLETE");
    // 4 chunks: chunk 0 fetched twice more (expired, then revoked), chunks 1-3 once each.
    expect(warehouse.chunkRequests - before.chunkRequests).toBe(5);
    expect(warehouse.expiredDownloads - before.expired).toBe(1);
    expect(warehouse.downloads - before.downloads).toBe(4);
    expect([warehouse.expireNextLinks, warehouse.revokeNextLinks, warehouse.dropDownloads, warehouse.downloadsWithAuthorization]).toEqual([0, 0, 0, 0]);
    const task = (await server.api.get(`/data-source-import-tasks/${started.body.entityId}`)).body;
    expect(task).toMatchObject({ status: "COMPLETE", rowCount: AWKWARD.length });
    const rows = (await server.api.post(`/data-tables/${task.dataTableId}/data`, { pageSize: 100 })).body.content;
    expect(rows).toEqual(AWKWARD.map((memo, i) => (memo === null ? { rowid: i + 1, id: i } : { rowid: i + 1, id: i, memo })));
  });

  it("the fake's storage refuses a link carrying an Authorization header, as cloud storage does; INLINE past its limit is aborted", async () => {
    const { Agent, request } = await import("undici");
    const { readFileSync } = await import("node:fs");
    const dispatcher = new Agent({ connect: { ca: readFileSync(warehouse.caFile, "utf8") } });
    try {
      const base = `https://localhost:${warehouse.port}`;
      const posted = await request(`${base}/api/2.0/sql/statements`, {
        method: "POST",
        dispatcher,
        headers: { authorization: `Bearer ${warehouse.accessToken}`, "content-type": "application/json" },
        body: JSON.stringify({ statement: "SELECT `vendor_id`, `name` FROM `main`.`finance`.`vendors`", warehouse_id: warehouse.warehouseId, disposition: "EXTERNAL_LINKS", format: "CSV" }),
      });
      const statement = (await posted.body.json()) as { manifest: { format: string; total_chunk_count: number }; result: { external_links: Array<{ external_link: string; expiration: string }> } };
      expect(statement.manifest).toMatchObject({ format: "CSV", total_chunk_count: 1 });
      const link = statement.result.external_links[0];
      expect(Date.parse(link.expiration)).toBeGreaterThan(Date.now());
      const withAuth = await request(link.external_link, { dispatcher, headers: { authorization: `Bearer ${warehouse.accessToken}` } });
      expect(withAuth.statusCode).toBe(400);
      expect(await withAuth.body.text()).toContain("Only one auth mechanism allowed");
      const tampered = await request(link.external_link.replace(/X-Amz-Expires=\d+/, `X-Amz-Expires=${Date.now() + 10 ** 9}`), { dispatcher });
      expect(tampered.statusCode).toBe(403);
      await tampered.body.dump();
      // The same statement INLINE is aborted past the INLINE limit (scaled down here), as Databricks does at 25 MiB.
      warehouse.inlineLimitBytes = 32;
      try {
        const inline = await request(`${base}/api/2.0/sql/statements`, {
          method: "POST",
          dispatcher,
          headers: { authorization: `Bearer ${warehouse.accessToken}`, "content-type": "application/json" },
          body: JSON.stringify({ statement: "SELECT `vendor_id`, `name` FROM `main`.`finance`.`vendors`", warehouse_id: warehouse.warehouseId, disposition: "INLINE", format: "JSON_ARRAY" }),
        });
        expect(await inline.body.json()).toMatchObject({ status: { state: "FAILED", error: { message: expect.stringContaining("Inline byte limit exceeded") } } });
      } finally {
        warehouse.inlineLimitBytes = 25 * 1024 * 1024;
      }
      const plain = await request(link.external_link, { dispatcher });
      expect(plain.statusCode).toBe(200);
      expect(await plain.body.text()).toBe("vendor_id,name\nV0,Vendor 0\nV1,null\nV2,Vendor 2\n");
    } finally {
      await dispatcher.close();
    }
  });

  it("polls a slow statement to completion and applies sortProperties", async () => {
    const started = await server.api.post(`/connections/${connectionId}/get-data`, { tableId: "main.finance.slow_lines", analysisId, columns: ["entry_id", "line_no"], sortProperties: [{ field: "entry_id", direction: "DESC" }] });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect((await awaitJob(server.api, started.body.id, 30_000)).status).toBe("COMPLETE");
    const task = (await server.api.get(`/data-source-import-tasks/${started.body.entityId}`)).body;
    const rows = (await server.api.post(`/data-tables/${task.dataTableId}/data`, {})).body.content;
    expect(rows.map((r: { entry_id: string }) => r.entry_id)).toEqual(Array.from({ length: 10 }, (_v, i) => `JE-000000${9 - i}`));
    expect(Object.keys(rows[0]).sort()).toEqual(["entry_id", "line_no", "rowid"]);
    expect(warehouse.statementsPosted.some((s) => s.includes("ORDER BY `entry_id` DESC"))).toBe(true);
  });

  it("records a failing statement and a statement that never answers in the import task, never a 500", async () => {
    for (const [tableId, message] of [
      ["main.finance.broken", /Statement FAILED \(DIVIDE_BY_ZERO\)/],
      ["main.finance.hanging", /did not answer within 2 s/],
    ] as const) {
      const started = await server.api.post(`/connections/${connectionId}/get-data`, { tableId, analysisId });
      expect(started.status).toBe(200);
      const done = await awaitJob(server.api, started.body.id, 60_000);
      expect(done.status).toBe("ERROR");
      expect(done.error).toMatch(message);
      const task = (await server.api.get(`/data-source-import-tasks/${started.body.entityId}`)).body;
      expect(task).toMatchObject({ status: "ERROR", error: expect.stringMatching(message) });
      expect(task.dataTableId).toBeUndefined();
      const events = await outbox("connection.data.complete", connectionId);
      expect(events.map((e) => e.payload)).toContainEqual(expect.objectContaining({ dataSourceImportTaskId: started.body.entityId, status: "ERROR", error: expect.stringMatching(message) }));
    }
    const unknown = await server.api.post(`/connections/${connectionId}/get-data`, { tableId: "main.finance.nope", analysisId });
    expect(unknown.status).toBe(400);
    expect(unknown.body.problems[0].identifier).toBe("tableId");
    const noAnalysis = await server.api.post(`/connections/${connectionId}/get-data`, { tableId: "main.finance.vendors", analysisId: "5cc9076887f13cb8a7a1aaaa" });
    expect(noAnalysis.status).toBe(400);
  });

  it("refuses discovery and get-data with 409 once the connection has no authorization", async () => {
    const id = await connection("Authorization removed", (c) => pat(c));
    expect((await server.api.post(`/connections/${id}/tables`, {})).body.success).toBe(true);
    const auth = (await server.api.post("/warehouse-auth/query", { connectionId: id })).body.content[0];
    expect((await server.api.delete(`/warehouse-auth/${auth.id}`)).status).toBe(204);
    const discovery = await server.api.post(`/connections/${id}/tables`, {});
    expect(discovery.status).toBe(409);
    const read = await server.api.post(`/connections/${id}/get-data`, { tableId: "main.finance.vendors", analysisId });
    expect(read.status, JSON.stringify(read.body)).toBe(409);
    expect(read.body.problems[0]).toMatchObject({ identifier: "connectionId" });
  });

  it("needs api.data-tables.write for get-data", async () => {
    const token = await server.api.post("/api-tokens", { name: "catalog only", permissions: ["api.connections.read", "api.data-catalog-entries.write"] });
    const response = await fetch(`${server.url}/api/v1/connections/${connectionId}/get-data`, {
      method: "POST",
      headers: { authorization: `Bearer ${token.body.token}`, "content-type": "application/json" },
      body: JSON.stringify({ tableId: "main.finance.vendors", analysisId }),
    });
    expect(response.status).toBe(403);
  });
});
