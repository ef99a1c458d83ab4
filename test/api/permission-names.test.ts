import { readdirSync, readFileSync } from "node:fs";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { clientWithPermissions, createEngagement } from "../helpers/entities.js";
import { WIRE_PERMISSIONS } from "../fixtures/wire-enums.js";

// Issue 13 point 1: permission names are exactly the wire reference's set; families without an
// area of their own are governed by the area they belong to; an unknown name is a 400 naming it;
// stored tokens with the names issued before were rewritten by a migration.

let server: TestServer;
let db: pg.Pool;

beforeAll(async () => {
  server = await startTestServer();
  db = new pg.Pool({ connectionString: server.databaseUrl, max: 2 });
});
afterAll(async () => {
  await db?.end();
  await server?.close();
});

const RETIRED = [
  "api.account-mappings.read",
  "api.account-mappings.write",
  "api.account-mappings.delete",
  "api.async-results.read",
  "api.chunked-files.write",
  "api.json-tables.read",
  "api.file-results.read",
  "api.populations.write",
  "api.data-flows.read",
  "api.risk-segmentation-configs.delete",
  "api.connections.write",
  "api.connections.delete",
  "api.data-catalog-entries.read",
  "api.data-catalog-entries.delete",
];

describe("permission names", () => {
  it("the bootstrap token holds exactly the wire reference's permissions", async () => {
    const current = await server.api.get("/api-tokens/current");
    expect(current.status).toBe(200);
    expect([...current.body.permissions].sort()).toEqual([...WIRE_PERMISSIONS].sort());
  });

  it("creating a token with a name outside the set is a 400 naming it", async () => {
    for (const name of RETIRED) {
      const response = await server.api.post("/api-tokens", { name: "x", permissions: ["api.organizations.read", name] });
      expect(response.status, name).toBe(400);
      expect(response.body.problems[0]).toMatchObject({ identifier: "permissions", values: [name] });
      expect(response.body.problems[0].reason).toContain(name);
    }
  });

  it("every route requires a wire permission (or only a valid token), never an alternative name", () => {
    const document = JSON.parse(readFileSync(new URL("../../rest/openapi.json", import.meta.url), "utf8")) as { paths: Record<string, Record<string, Record<string, unknown>>> };
    const known = new Set([...WIRE_PERMISSIONS, "authenticated"]);
    const operations = Object.entries(document.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ where: `${method} ${path}`, operation })));
    expect(operations.length).toBeGreaterThan(100);
    expect(operations.filter(({ operation }) => !known.has(operation["x-permission"] as string)).map((o) => o.where)).toEqual([]);
    expect(operations.filter(({ operation }) => "x-permission-alternatives" in operation).map((o) => o.where)).toEqual([]);
  });

  it("families without an area are governed by their area's permissions", async () => {
    const engagement = await createEngagement(server.api, "governed");
    const fileManager = await clientWithPermissions(server.api, ["api.file-manager.read", "api.file-manager.write"], "file manager only");
    expect((await fileManager.post("/chunked-files", { name: "a.csv", size: 3 })).status).toBe(200);
    expect((await fileManager.post("/json-tables", {})).status).toBe(200);
    const analyses = await clientWithPermissions(server.api, ["api.analyses.read", "api.analyses.write"], "analyses only");
    expect((await analyses.post("/account-mappings/query", { engagementId: engagement.id })).status).toBe(200);
    expect((await analyses.post("/account-mappings/verify", { engagementId: engagement.id })).status).toBe(200);
    const neither = await clientWithPermissions(server.api, ["api.engagements.read"], "neither");
    expect((await neither.post("/chunked-files", { name: "a.csv", size: 3 })).body.problems[0].values).toEqual(["api.file-manager.write"]);
    expect((await neither.post("/account-mappings/query", {})).body.problems[0].values).toEqual(["api.analyses.read"]);
  });

  it("the migration rewrites stored tokens' permissions to the governing names", async () => {
    const folder = readdirSync(new URL("../../prisma/migrations/", import.meta.url)).find((name) => name.endsWith("_wire_permission_names"));
    expect(folder).toBeDefined();
    const sql = readFileSync(new URL(`../../prisma/migrations/${folder}/migration.sql`, import.meta.url), "utf8");
    // A token as an older server stored it (created fresh here, then given the old names, never used before).
    const created = await server.api.post("/api-tokens", { name: "issued earlier", permissions: ["api.organizations.read"] });
    expect(created.status).toBe(200);
    const stored = ["api.organizations.read", "api.chunked-files.read", "api.chunked-files.write", "api.account-mappings.read", "api.account-mappings.delete", "api.async-results.read", "api.file-results.read", "api.populations.read", "api.data-flows.write", "api.connections.delete", "api.data-catalog-entries.read"];
    await db.query("UPDATE api_token SET permissions = $2 WHERE id = $1", [created.body.id, stored]);
    await db.query(sql);
    const read = await server.api.get(`/api-tokens/${created.body.id}`);
    expect(read.body.permissions).toEqual([
      "api.organizations.read",
      "api.file-manager.read",
      "api.file-manager.write",
      "api.analyses.read",
      "api.analyses.write",
      "api.filters.read",
      "api.data-catalog-entries.write",
      "api.connections.read",
    ]);
    // The rewritten token does what the old names allowed.
    const token = server.api.withToken(created.body.token);
    expect((await token.post("/chunked-files", { name: "b.csv", size: 3 })).status).toBe(200);
    expect((await token.post("/account-mappings/query", {})).status).toBe(200);
    // Tokens holding only wire names are left as they were.
    const bootstrap = await server.api.get("/api-tokens/current");
    expect([...bootstrap.body.permissions].sort()).toEqual([...WIRE_PERMISSIONS].sort());
  });
});
