import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { awaitJob } from "../../../test/helpers/entities.js";
import { FakeWarehouse, type FakeTable } from "../../../test/helpers/fake-warehouse.js";
import { ANALYSIS_TYPE_IDS } from "../catalogue/ids.js";

let server: TestServer;
let warehouse: FakeWarehouse;
let analysisId: string;
let connectionId: string;

const vendors: FakeTable = {
  columns: [
    { name: "vendor_id", type: "STRING", fullType: "string", nullable: false },
    { name: "name", type: "STRING", fullType: "string", nullable: true },
    { name: "balance", type: "DECIMAL", fullType: "decimal(12,2)", nullable: false },
    { name: "opened", type: "DATE", fullType: "date", nullable: true },
  ],
  rowCount: 5,
  row: (i) => [`V${i}`, i === 2 ? null : `Vendor ${i}`, `${i * 100}.5${i}`, `2024-0${i + 1}-15`],
};

beforeAll(async () => {
  warehouse = await new FakeWarehouse().start();
  warehouse.chunkRows = 2;
  warehouse.tables.set("main.ap.vendors", vendors);
  server = await startTestServer({ warehouseCaFile: warehouse.caFile, warehouseTimeoutSeconds: 5 });
  const organizationId = (await server.api.post("/organizations", { name: "Catalog client" })).body.id;
  const engagementId = (await server.api.post("/engagements", { organizationId, name: "FY25", auditPeriodEndDate: "2025-12-31", accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" } })).body.id;
  analysisId = (await server.api.post("/analyses", { engagementId, analysisTypeId: ANALYSIS_TYPE_IDS.GENERAL_LEDGER, name: "Catalog", analysisPeriods: [{ startDate: "2025-01-01", endDate: "2025-12-31" }] })).body.id;
  connectionId = (await server.api.post("/connections", { name: "AP warehouse" })).body.id;
  const auth = await server.api.post("/warehouse-auth", { connectionId, authType: "PAT", host: "localhost", port: warehouse.port, httpPath: `/sql/1.0/warehouses/${warehouse.warehouseId}`, accessToken: warehouse.accessToken });
  expect(auth.status, JSON.stringify(auth.body)).toBe(200);
  expect((await server.api.post(`/connections/${connectionId}/tables`, {})).body.totalTables).toBe(1);
}, 60_000);

afterAll(async () => {
  await server?.close();
  await warehouse?.close();
});

const entry = (columns: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}) => ({ name: "Vendors", source: "CONNECTION", connectionId, tableId: "main.ap.vendors", schema: { displayName: "Vendors", columns }, ...extra });
const ID_COLUMN = { name: "vendor_id", columnType: "STRING", nullable: false };
const BALANCE = { name: "balance", columnType: "DECIMAL", nullable: false };

async function importRows(path: string, body: Record<string, unknown> = {}): Promise<{ task: Record<string, any>; rows: Array<Record<string, unknown>> }> {
  const started = await server.api.post(path, { analysisId, ...body });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  expect(started.body.type).toBe("DATA_SOURCE_IMPORT_TASK");
  const done = await awaitJob(server.api, started.body.id, 60_000);
  expect(done.status, done.error).toBe("COMPLETE");
  const task = (await server.api.get(`/data-source-import-tasks/${started.body.entityId}`)).body;
  const rows = (await server.api.post(`/data-tables/${task.dataTableId}/data`, {})).body.content;
  return { task, rows };
}

describe("data catalog entries (spec 2.6 rules)", () => {
  it("accepts a subset of the remote columns with exact names and types; precision comes back, scale is settable on create and update", async () => {
    const created = await server.api.post("/data-catalog-entries", entry([ID_COLUMN, { ...BALANCE, scale: 2 }, { name: "name", columnType: "STRING" }]));
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.schema.columns).toEqual([
      { name: "vendor_id", displayName: "vendor_id", columnType: "STRING", nullable: false },
      { name: "balance", displayName: "balance", columnType: "DECIMAL", nullable: false, precision: 12, scale: 2 },
      { name: "name", displayName: "name", columnType: "STRING", nullable: true },
    ]);
    const updated = await server.api.put(`/data-catalog-entries/${created.body.id}`, { ...created.body, schema: { columns: [ID_COLUMN, { ...BALANCE, scale: 3 }] } });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body.schema.columns[1]).toMatchObject({ precision: 12, scale: 3 });
    expect((await server.api.put(`/data-catalog-entries/${created.body.id}`, { ...created.body })).status).toBe(409);
    expect((await server.api.post("/data-catalog-entries/query", { source: "CONNECTION", connectionId })).body.totalElements).toBeGreaterThanOrEqual(1);
    expect((await server.api.post(`/data-catalog-entries/${created.body.id}/validate`, {})).body).toMatchObject({ valid: true, errors: [] });
  });

  it("refuses unknown names, other types, nullable over non-nullable, and missing source fields, naming each", async () => {
    const wrong = await server.api.post("/data-catalog-entries", entry([{ name: "Vendor_ID", columnType: "STRING" }, { name: "balance", columnType: "FLOAT64" }, { name: "vendor_id", columnType: "STRING", nullable: true }]));
    expect(wrong.status).toBe(400);
    expect(wrong.body.problems).toEqual([
      expect.objectContaining({ identifier: "schema.columns[0].name", suggestedValues: ["vendor_id"] }),
      expect.objectContaining({ identifier: "schema.columns[1].columnType", problemType: "INCORRECT_DATA_TYPE", suggestedValues: ["DECIMAL"] }),
      expect.objectContaining({ identifier: "schema.columns[2].nullable" }),
    ]);
    expect((await server.api.post("/data-catalog-entries", entry([ID_COLUMN], { tableId: undefined }))).body.problems[0].identifier).toBe("tableId");
    expect((await server.api.post("/data-catalog-entries", entry([ID_COLUMN], { tableId: "main.ap.unknown" }))).body.problems[0].identifier).toBe("tableId");
    expect((await server.api.post("/data-catalog-entries", entry([ID_COLUMN], { source: "DATA_TABLE" }))).body.problems[0].identifier).toBe("dataTableId");
    expect((await server.api.post("/data-catalog-entries", entry([ID_COLUMN], { source: "FILE" }))).status).toBe(400);
    expect((await server.api.post("/data-catalog-entries", entry([]))).status).toBe(400);
  });

  it("reports a source that changed after creation through validate", async () => {
    const created = (await server.api.post("/data-catalog-entries", entry([ID_COLUMN, BALANCE]))).body;
    warehouse.tables.set("main.ap.vendors", { ...vendors, columns: vendors.columns.map((c) => (c.name === "balance" ? { ...c, type: "DOUBLE", fullType: "double" } : c)) });
    try {
      await server.api.post(`/connections/${connectionId}/tables`, {});
      const report = await server.api.post(`/data-catalog-entries/${created.id}/validate`, {});
      expect(report.body.valid).toBe(false);
      expect(report.body.errors[0]).toMatchObject({ identifier: "schema.columns[1].columnType" });
    } finally {
      warehouse.tables.set("main.ap.vendors", vendors);
      await server.api.post(`/connections/${connectionId}/tables`, {});
    }
  });

  it("imports an entry (CONNECTION, then DATA_TABLE over the result) into data tables, and shows the chain in GraphQL", async () => {
    const created = (await server.api.post("/data-catalog-entries", entry([ID_COLUMN, BALANCE, { name: "opened", columnType: "DATE" }]))).body;
    const first = await importRows(`/data-catalog-entries/${created.id}/get-data`);
    expect(first.task).toMatchObject({ dataCatalogEntryId: created.id, rowCount: 5, status: "COMPLETE" });
    expect(first.rows).toEqual(Array.from({ length: 5 }, (_v, i) => ({ rowid: i + 1, vendor_id: `V${i}`, balance: `${i * 100}.5${i}`, opened: `2024-0${i + 1}-15` })));

    const local = await server.api.post("/data-catalog-entries", { name: "Imported vendors", source: "DATA_TABLE", dataTableId: first.task.dataTableId, schema: { columns: [ID_COLUMN, { name: "opened", columnType: "DATE" }] } });
    expect(local.status, JSON.stringify(local.body)).toBe(200);
    const wrongType = await server.api.post("/data-catalog-entries", { name: "x", source: "DATA_TABLE", dataTableId: first.task.dataTableId, schema: { columns: [{ name: "opened", columnType: "DATE_TIME" }] } });
    expect(wrongType.status).toBe(400);
    const second = await importRows(`/data-catalog-entries/${local.body.id}/get-data`);
    expect(second.rows.map((r) => r.vendor_id)).toEqual(["V0", "V1", "V2", "V3", "V4"]);
    expect(Object.keys(second.rows[0]).sort()).toEqual(["opened", "rowid", "vendor_id"]);

    const query = `query($id: ID!) { connection(id: $id) { name tables { tableId dataCatalogEntries { id importTasks { status rowCount dataTable { id rowCount logicalName } } } } } }`;
    const graph = await server.gql(query, { id: connectionId });
    expect(graph.body.errors).toBeUndefined();
    const table = graph.body.data.connection.tables[0];
    expect(table.tableId).toBe("main.ap.vendors");
    const withImport = table.dataCatalogEntries.find((e: { id: string }) => e.id === created.id);
    expect(withImport.importTasks).toEqual([{ status: "COMPLETE", rowCount: 5, dataTable: { id: first.task.dataTableId, rowCount: 5, logicalName: "catalog_vendors" } }]);
  });
});

describe("data flows (spec 2.5)", () => {
  it("applies REMAP operations in order, can be an entry's source, and imports its output", async () => {
    const input = (await server.api.post("/data-catalog-entries", entry([ID_COLUMN, { name: "name", columnType: "STRING" }, BALANCE]))).body;
    const flow = await server.api.post("/data-flows", {
      name: "Vendor remap",
      inputDataCatalogEntryId: input.id,
      operations: [
        { type: "REMAP", remapOperations: [{ source: "vendor_id", destination: "supplier" }, { source: "balance", destination: "amount" }, { source: "balance", destination: "amount_copy" }] },
        { type: "REMAP", remapOperations: [{ source: "supplier", destination: "supplier_code" }] },
      ],
    });
    expect(flow.status, JSON.stringify(flow.body)).toBe(200);
    const report = (await server.api.post(`/data-flows/${flow.body.id}/validate`, {})).body;
    expect(report.valid).toBe(true);
    expect(report.columns.map((c: { name: string }) => c.name)).toEqual(["supplier_code", "name", "amount", "amount_copy"]);
    const { rows } = await importRows(`/data-flows/${flow.body.id}/get-data`);
    expect(rows[3]).toEqual({ rowid: 4, supplier_code: "V3", name: "Vendor 3", amount: "300.53", amount_copy: "300.53" });

    const bad = await server.api.post("/data-flows", { name: "Bad", inputDataCatalogEntryId: input.id, operations: [{ type: "REMAP", remapOperations: [{ source: "nope", destination: "x" }] }] });
    expect(bad.status).toBe(400);
    expect(bad.body.problems[0].identifier).toBe("operations[0].remapOperations[0].source");
    expect((await server.api.post("/data-flows", { name: "Empty", inputDataCatalogEntryId: input.id, operations: [] })).status).toBe(400);

    const downstream = await server.api.post("/data-catalog-entries", { name: "From flow", source: "DATA_FLOW", dataFlowId: flow.body.id, schema: { columns: [{ name: "supplier_code", columnType: "STRING", nullable: false }, { name: "amount", columnType: "DECIMAL" }] } });
    expect(downstream.status, JSON.stringify(downstream.body)).toBe(200);
    const fromFlow = await importRows(`/data-catalog-entries/${downstream.body.id}/get-data`);
    expect(fromFlow.rows[0]).toEqual({ rowid: 1, supplier_code: "V0", amount: "0.50" });
    expect((await server.api.post("/data-catalog-entries", { name: "x", source: "DATA_FLOW", dataFlowId: flow.body.id, schema: { columns: [{ name: "vendor_id", columnType: "STRING" }] } })).status).toBe(400);

    // Spec 7 rule 5: circular dependencies are refused with 400, on both sides.
    const cyclicEntry = await server.api.put(`/data-catalog-entries/${input.id}`, { ...input, source: "DATA_FLOW", dataFlowId: flow.body.id, connectionId: undefined, tableId: undefined, schema: { columns: [{ name: "supplier_code", columnType: "STRING" }] } });
    expect(cyclicEntry.status).toBe(400);
    expect(cyclicEntry.body.problems[0].reason).toMatch(/Circular dependency/);
    const cyclicFlow = await server.api.put(`/data-flows/${flow.body.id}`, { ...flow.body, inputDataCatalogEntryId: downstream.body.id, operations: [{ type: "REMAP", remapOperations: [{ source: "amount", destination: "a" }] }] });
    expect(cyclicFlow.status).toBe(400);
    expect(cyclicFlow.body.problems[0].reason).toMatch(/Circular dependency/);

    // An update that would break an entry reading the flow is refused; in-use entities cannot be deleted.
    const breaking = await server.api.put(`/data-flows/${flow.body.id}`, { ...flow.body, operations: [{ type: "REMAP", remapOperations: [{ source: "name", destination: "vendor_name" }] }] });
    expect(breaking.status).toBe(400);
    const renamed = await server.api.put(`/data-flows/${flow.body.id}`, { ...flow.body, name: "Renamed flow" });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body.version).toBe(1);
    expect((await server.api.delete(`/data-catalog-entries/${input.id}`)).status).toBe(409);
    expect((await server.api.delete(`/data-flows/${flow.body.id}`)).status).toBe(409);
    expect((await server.api.delete(`/data-catalog-entries/${downstream.body.id}`)).status).toBe(204);
    expect((await server.api.delete(`/data-flows/${flow.body.id}`)).status).toBe(204);
    expect((await server.api.post("/data-flows/query", { name: { $iprefix: "renamed" } })).body.totalElements).toBe(0);
  });
});

describe("imported tables of deleted analyses", () => {
  it("are dropped by the scheduled cleanup, while tables in use stay", async () => {
    const organizationId = (await server.api.post("/organizations", { name: "Short-lived" })).body.id;
    const engagementId = (await server.api.post("/engagements", { organizationId, name: "Gone", accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" } })).body.id;
    const doomed = (await server.api.post("/analyses", { engagementId, analysisTypeId: ANALYSIS_TYPE_IDS.GENERAL_LEDGER, name: "Doomed", analysisPeriods: [{ startDate: "2025-01-01", endDate: "2025-12-31" }] })).body.id;
    const started = await server.api.post(`/connections/${connectionId}/get-data`, { tableId: "main.ap.vendors", analysisId: doomed });
    expect((await awaitJob(server.api, started.body.id, 60_000)).status).toBe("COMPLETE");
    const kept = await server.api.post(`/connections/${connectionId}/get-data`, { tableId: "main.ap.vendors", analysisId });
    expect((await awaitJob(server.api, kept.body.id, 60_000)).status).toBe("COMPLETE");
    const keptTable = (await server.api.get(`/data-source-import-tasks/${kept.body.entityId}`)).body.dataTableId;
    expect((await server.api.delete(`/analyses/${doomed}`)).status).toBe(204);
    const { orphanedImportTables } = await import("./catalog.cleanup.js");
    const app = server.running.app as never as { pool: { query: (sql: string, values?: unknown[]) => Promise<{ rows: Array<{ n: number }> }> } };
    const exists = async (taskId: string) => (await app.pool.query("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'imports' AND tablename = $1", [`t_${taskId}`])).rows[0].n;
    expect(await exists(started.body.entityId)).toBe(1);
    await orphanedImportTables.run(server.running.app as never);
    expect(await exists(started.body.entityId)).toBe(0);
    expect(await exists(kept.body.entityId)).toBe(1);
    expect((await server.api.post(`/data-tables/${keptTable}/data`, {})).body.content).toHaveLength(5);
  });
});

/** The problem identifiers of a 400 (the field each names). */
const named = (response: { status: number; body: any }) => {
  expect(response.status, JSON.stringify(response.body)).toBe(400);
  return (response.body.problems ?? []).map((p: { identifier: string }) => p.identifier);
};

describe("spec 2.1 and 2.4-2.6 input rules, valid and invalid forms", () => {
  it("data catalog entries: a read body creates another entry (read-only fields such as precision ignored); bad input is 400 naming the field", async () => {
    const created = (await server.api.post("/data-catalog-entries", entry([ID_COLUMN, BALANCE]))).body;
    const copy = await server.api.post("/data-catalog-entries", { ...created, name: "Copy", schema: { ...created.schema, columns: [created.schema.columns[0], { ...created.schema.columns[1], precision: 99 }] } });
    expect(copy.status, JSON.stringify(copy.body)).toBe(200);
    expect(copy.body.id).not.toBe(created.id);
    expect(copy.body.version).toBe(0);
    expect(copy.body.schema.columns[1]).toMatchObject({ name: "balance", precision: 12 });

    expect(named(await server.api.post("/data-catalog-entries", { ...entry([ID_COLUMN]), colour: "red" }))).toContain("colour");
    expect(named(await server.api.post("/data-catalog-entries", entry([{ ...ID_COLUMN, width: 3 }])))).toEqual([expect.stringContaining("width")]);
    expect(named(await server.api.post("/data-catalog-entries", entry([ID_COLUMN], { name: " " })))).toEqual(["name"]);
    expect(named(await server.api.post("/data-catalog-entries", entry([ID_COLUMN], { name: undefined })))).toEqual(["name"]);
    expect(named(await server.api.post("/data-catalog-entries", entry([{ name: "vendor_id", columnType: "TEXT" }])))).toEqual([expect.stringContaining("columnType")]);
    expect(named(await server.api.post("/data-catalog-entries", entry([{ name: " ", columnType: "STRING" }])))).toEqual([expect.stringMatching(/schema\.columns(\[0\])?\.name/)]);
    expect(named(await server.api.post("/data-catalog-entries", entry([ID_COLUMN], { connectionId: undefined })))).toEqual(["connectionId"]);
    expect(named(await server.api.post("/data-catalog-entries", entry([ID_COLUMN], { connectionId: "5cc9076887f13cb8a7a1aaaa" })))).toEqual(["connectionId"]);
    expect(named(await server.api.post("/data-catalog-entries", { name: "x", source: "DATA_FLOW", schema: { columns: [ID_COLUMN] } }))).toEqual(["dataFlowId"]);
    expect(named(await server.api.post("/data-catalog-entries", { name: "x", source: "DATA_FLOW", dataFlowId: "5cc9076887f13cb8a7a1aaaa", schema: { columns: [ID_COLUMN] } }))).toEqual(["dataFlowId"]);
    expect(named(await server.api.post("/data-catalog-entries", { name: "x", source: "DATA_TABLE", dataTableId: "5cc9076887f13cb8a7a1aaaa", schema: { columns: [ID_COLUMN] } }))).toEqual(["dataTableId"]);
    expect(named(await server.api.post("/data-catalog-entries", entry([ID_COLUMN], { schema: undefined })))).toEqual([expect.stringContaining("schema")]);
    // Update: version required and current; scale settable on update.
    expect(named(await server.api.put(`/data-catalog-entries/${created.id}`, { name: "No version" }))).toEqual(["version"]);
    expect((await server.api.put(`/data-catalog-entries/${created.id}`, { ...created, version: 7 })).status).toBe(409);
    expect((await server.api.get("/data-catalog-entries/5cc9076887f13cb8a7a1aaaa")).status).toBe(404);
  });

  it("a column non-nullable in the entry over a nullable source column is accepted, and the import reports the null it meets", async () => {
    const strict = await server.api.post("/data-catalog-entries", entry([ID_COLUMN, { name: "name", columnType: "STRING", nullable: false }], { name: "Strict names" }));
    expect(strict.status, JSON.stringify(strict.body)).toBe(200);
    expect(strict.body.schema.columns[1]).toMatchObject({ name: "name", nullable: false });
    const started = await server.api.post(`/data-catalog-entries/${strict.body.id}/get-data`, { analysisId });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const done = await awaitJob(server.api, started.body.id, 60_000);
    expect(done.status).toBe("ERROR");
    expect(done.error).toMatch(/Column name .*null/);
    expect((await server.api.get(`/data-source-import-tasks/${started.body.entityId}`)).body).toMatchObject({ status: "ERROR", error: expect.stringMatching(/Column name/) });
  });

  it("data flows: name, input entry and at least one REMAP operation with source and destination are required; a stale version is 409", async () => {
    const input = (await server.api.post("/data-catalog-entries", entry([ID_COLUMN, BALANCE], { name: "Flow input" }))).body;
    const remap = [{ type: "REMAP", remapOperations: [{ source: "vendor_id", destination: "supplier" }] }];
    const valid = await server.api.post("/data-flows", { name: "Valid", description: "Renames vendor_id", inputDataCatalogEntryId: input.id, operations: remap });
    expect(valid.status, JSON.stringify(valid.body)).toBe(200);
    expect(valid.body).toMatchObject({ name: "Valid", description: "Renames vendor_id", inputDataCatalogEntryId: input.id, operations: remap, version: 0 });
    expect((await server.api.post("/data-flows", { ...valid.body, name: "Copy" })).status).toBe(200);

    expect(named(await server.api.post("/data-flows", { name: " ", inputDataCatalogEntryId: input.id, operations: remap }))).toEqual(["name"]);
    expect(named(await server.api.post("/data-flows", { inputDataCatalogEntryId: input.id, operations: remap }))).toEqual(["name"]);
    expect(named(await server.api.post("/data-flows", { name: "x", operations: remap }))).toEqual(["inputDataCatalogEntryId"]);
    expect(named(await server.api.post("/data-flows", { name: "x", inputDataCatalogEntryId: "5cc9076887f13cb8a7a1aaaa", operations: remap }))).toEqual(["inputDataCatalogEntryId"]);
    expect(named(await server.api.post("/data-flows", { name: "x", inputDataCatalogEntryId: input.id }))).toEqual(["operations"]);
    expect(named(await server.api.post("/data-flows", { name: "x", inputDataCatalogEntryId: input.id, operations: [] }))).toEqual(["operations"]);
    expect(named(await server.api.post("/data-flows", { name: "x", inputDataCatalogEntryId: input.id, operations: [{ type: "FILTER", remapOperations: remap[0].remapOperations }] }))).toEqual([expect.stringMatching(/^operations(\[0\])?\.type$/)]);
    expect(named(await server.api.post("/data-flows", { name: "x", inputDataCatalogEntryId: input.id, operations: [{ type: "REMAP", remapOperations: [] }] }))).toEqual([expect.stringMatching(/^operations(\[0\])?\.remapOperations$/)]);
    expect(named(await server.api.post("/data-flows", { name: "x", inputDataCatalogEntryId: input.id, operations: [{ type: "REMAP", remapOperations: [{ source: "vendor_id", destination: " " }] }] }))).toEqual([expect.stringMatching(/^operations(\[0\])?\.remapOperations(\[0\])?\.destination$/)]);
    expect(named(await server.api.post("/data-flows", { name: "x", inputDataCatalogEntryId: input.id, operations: [{ type: "REMAP", remapOperations: [{ destination: "a" }] }] }))).toEqual([expect.stringMatching(/^operations(\[0\])?\.remapOperations(\[0\])?\.source$/)]);
    expect(named(await server.api.post("/data-flows", { name: "x", inputDataCatalogEntryId: input.id, operations: remap, extra: 1 }))).toContain("extra");
    // Update: every field required again (spec 2.5), version current.
    expect(named(await server.api.put(`/data-flows/${valid.body.id}`, { version: 0, name: "x", inputDataCatalogEntryId: input.id }))).toEqual(["operations"]);
    expect((await server.api.put(`/data-flows/${valid.body.id}`, { ...valid.body, version: 3 })).status).toBe(409);
    const updated = await server.api.put(`/data-flows/${valid.body.id}`, { ...valid.body, description: "Now documented" });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body).toMatchObject({ version: 1, description: "Now documented" });
    expect((await server.api.get(`/data-flows/${valid.body.id}`)).body.version).toBe(1);
    expect((await server.api.get("/data-flows/5cc9076887f13cb8a7a1aaaa")).status).toBe(404);
  });

  it("get-data bodies: analysisId, sortProperties, columns and tableId checked and named; import tasks read and queried", async () => {
    const created = (await server.api.post("/data-catalog-entries", entry([ID_COLUMN, BALANCE], { name: "Get data rules" }))).body;
    const path = `/data-catalog-entries/${created.id}/get-data`;
    expect(named(await server.api.post(path, {}))).toEqual(["analysisId"]);
    expect(named(await server.api.post(path, { analysisId: " " }))).toEqual(["analysisId"]);
    expect(named(await server.api.post(path, { analysisId: "5cc9076887f13cb8a7a1aaaa" }))).toEqual(["analysisId"]);
    expect(named(await server.api.post(path, { analysisId, sortProperties: [{ field: "nope" }] }))).toEqual(["sortProperties[0].field"]);
    expect(named(await server.api.post(path, { analysisId, sortProperties: [{ field: "balance", direction: "UP" }] }))).toEqual(["sortProperties[0].direction"]);
    expect(named(await server.api.post(path, { analysisId, sortProperties: [] }))).toEqual(["sortProperties"]);
    expect(named(await server.api.post(path, { analysisId, colour: "red" }))).toContain("colour");
    expect((await server.api.post("/data-catalog-entries/5cc9076887f13cb8a7a1aaaa/get-data", { analysisId })).status).toBe(404);
    const connectionPath = `/connections/${connectionId}/get-data`;
    expect(named(await server.api.post(connectionPath, { analysisId }))).toEqual(["tableId"]);
    expect(named(await server.api.post(connectionPath, { analysisId, tableId: "main.ap.vendors", columns: ["vendor_id", "nope"] }))).toEqual(["columns"]);
    expect(named(await server.api.post(connectionPath, { analysisId, tableId: "main.ap.vendors", columns: [] }))).toEqual(["columns"]);
    expect(named(await server.api.post(connectionPath, { tableId: "main.ap.vendors" }))).toEqual(["analysisId"]);
    expect((await server.api.post("/connections/5cc9076887f13cb8a7a1aaaa/get-data", { analysisId, tableId: "main.ap.vendors" })).status).toBe(404);

    const sorted = await importRows(path, { sortProperties: [{ field: "balance", direction: "DESC" }], name: "Vendors by balance" });
    expect(sorted.rows.map((r) => r.vendor_id)).toEqual(["V4", "V3", "V2", "V1", "V0"]);
    expect(sorted.task).toMatchObject({ dataCatalogEntryId: created.id, analysisId, status: "COMPLETE", rowCount: 5 });
    expect((await server.api.get(`/data-tables/${sorted.task.dataTableId}`)).body.logicalName).toBe("catalog_vendors_by_balance");
    const tasks = await server.api.post("/data-source-import-tasks/query", { dataCatalogEntryId: created.id });
    expect(tasks.body.content.map((t: { id: string }) => t.id)).toEqual([sorted.task.id]);
    expect((await server.api.post("/data-source-import-tasks/query", { $and: [{ dataCatalogEntryId: created.id }, { status: "ERROR" }] })).body.totalElements).toBe(0);
    expect((await server.api.get("/data-source-import-tasks/5cc9076887f13cb8a7a1aaaa")).status).toBe(404);

    // get-data writes a data table: api.data-tables.write as well as the catalog permission.
    const token = (await server.api.post("/api-tokens", { name: "catalog writer", permissions: ["api.connections.read", "api.data-catalog-entries.write"] })).body.token;
    const denied = await fetch(`${server.url}/api/v1${path}`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify({ analysisId }) });
    expect(denied.status).toBe(403);
  });
});

describe("GraphQL parity", () => {
  it("takes a warehouse table to a queried data table through GraphQL alone: entry, get-data, async result, import task, rows", async () => {
    const created = await server.gql(
      `mutation($input: CreateDataCatalogEntryInput!) { createDataCatalogEntry(input: $input) { id schema { columns { name columnType nullable precision scale } } } }`,
      { input: { name: "GraphQL vendors", source: "CONNECTION", connectionId, tableId: "main.ap.vendors", schema: { columns: [ID_COLUMN, { ...BALANCE, scale: 2 }] } } },
    );
    expect(created.body.errors).toBeUndefined();
    const entryId = created.body.data.createDataCatalogEntry.id;
    expect(created.body.data.createDataCatalogEntry.schema.columns[1]).toEqual({ name: "balance", columnType: "DECIMAL", nullable: false, precision: 12, scale: 2 });
    const started = await server.gql(`mutation($id: ID!, $input: GetDataInput!) { getDataCatalogEntryData(id: $id, input: $input) { id type entityType entityId status } }`, {
      id: entryId,
      input: { analysisId, sortProperties: [{ field: "vendor_id", direction: "DESC" }] },
    });
    expect(started.body.errors).toBeUndefined();
    const job = started.body.data.getDataCatalogEntryData;
    expect(job).toMatchObject({ type: "DATA_SOURCE_IMPORT_TASK", entityType: "DATA_SOURCE_IMPORT_TASK", status: "IN_PROGRESS" });
    let status = "IN_PROGRESS";
    for (let i = 0; i < 300 && status === "IN_PROGRESS"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      status = (await server.gql(`query($id: ID!) { asyncResult(id: $id) { status } }`, { id: job.id })).body.data.asyncResult.status;
    }
    expect(status).toBe("COMPLETE");
    const task = await server.gql(`query($id: ID!) { dataSourceImportTask(id: $id) { status rowCount dataTable { id logicalName columns { field type equalitySearch } } } }`, { id: job.entityId });
    expect(task.body.errors).toBeUndefined();
    const dataTable = task.body.data.dataSourceImportTask.dataTable;
    expect(task.body.data.dataSourceImportTask).toMatchObject({ status: "COMPLETE", rowCount: 5 });
    expect(dataTable.columns.map((c: { field: string }) => c.field)).toEqual(["rowid", "vendor_id", "balance"]);
    const rows = await server.gql(`query($id: ID!, $input: DataTableDataInput) { dataTableData(id: $id, input: $input) { content } }`, { id: dataTable.id, input: { query: { balance: { $gte: 200 } } } });
    expect(rows.body.errors).toBeUndefined();
    expect(rows.body.data.dataTableData.content).toEqual([
      { rowid: 1, vendor_id: "V4", balance: "400.54" },
      { rowid: 2, vendor_id: "V3", balance: "300.53" },
      { rowid: 3, vendor_id: "V2", balance: "200.52" },
    ]);
  });
});
