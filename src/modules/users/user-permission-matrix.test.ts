import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { readOutbox } from "../../../test/helpers/mail.js";
import { newId } from "../../core/ids.js";

/**
 * Spec 5's user-management matrix, one test per cell. The row is the kind of user the action is
 * done TO; the caller is always the full-permission App Admin token, so only the matrix decides.
 * This table is copied from the spec on purpose, not imported from the implementation.
 */
type Kind = "App Admin" | "User Admin" | "Organization Manager" | "User" | "Client" | "Platform Support" | "API Token";
type Column = "read" | "query" | "create" | "updateEnabled" | "updateRole" | "roleTarget" | "delete" | "activationEmail";
const COLUMNS: Column[] = ["read", "query", "create", "updateEnabled", "updateRole", "roleTarget", "delete", "activationEmail"];
const MATRIX: Record<Kind, boolean[]> = {
  //                     read  query create enabled role  roleTo delete activation
  "App Admin": [true, true, true, false, false, true, false, true],
  "User Admin": [true, true, true, true, true, true, true, true],
  "Organization Manager": [true, true, true, true, true, true, true, true],
  User: [true, true, true, true, true, true, true, true],
  Client: [true, true, false, true, false, false, true, true],
  "Platform Support": [true, true, false, false, false, false, false, false],
  "API Token": [true, true, false, false, false, false, false, false],
};
const ROLE: Record<Exclude<Kind, "API Token">, string> = {
  "App Admin": "ROLE_ADMIN",
  "User Admin": "ROLE_USER_ADMIN",
  "Organization Manager": "ROLE_ORGANIZATION_ADMIN",
  User: "ROLE_USER",
  Client: "ROLE_CLIENT",
  "Platform Support": "ROLE_PLATFORM_SUPPORT",
};

let server: TestServer;
let db: pg.Pool;
beforeAll(async () => {
  server = await startTestServer({ modifyUsersHourlyLimit: 100_000 });
  db = new pg.Pool({ connectionString: server.databaseUrl, max: 2 });
});
afterAll(async () => {
  await db?.end();
  await server?.close();
});

let n = 0;
const email = () => `matrix.${Date.now()}.${n++}@example.com`;

/** A target of the given kind, put in place directly so every cell is tested on its own. */
async function target(kind: Kind): Promise<{ id: string; version: number; role: string; email?: string }> {
  if (kind === "API Token") {
    const created = await server.api.post("/api-tokens", { name: `matrix ${n++}`, permissions: ["api.users.read"] });
    return (await server.api.get(`/users/${created.body.userId}`)).body;
  }
  const id = newId();
  const address = email();
  await db.query("INSERT INTO app_user (id, email, role, enabled, validated) VALUES ($1, $2, $3, true, false)", [id, address, ROLE[kind]]);
  return { id, version: 0, role: ROLE[kind], email: address };
}

const otherRole = (role: string) => (role === "ROLE_USER" ? "ROLE_USER_ADMIN" : "ROLE_USER");

/** Each cell: perform the action on a fresh target and report whether it was allowed. */
const CELL: Record<Column, (kind: Kind) => Promise<boolean>> = {
  async read(kind) {
    const user = await target(kind);
    const response = await server.api.get(`/users/${user.id}`);
    expect([200, 403]).toContain(response.status);
    return response.status === 200 && response.body.id === user.id;
  },
  async query(kind) {
    const user = await target(kind);
    const response = await server.api.post("/users/query", { id: user.id });
    expect(response.status).toBe(200);
    return response.body.content.length === 1;
  },
  async create(kind) {
    if (kind === "API Token") {
      // No role makes an API Token user; serviceAccount is read-only, so asking for one is ignored.
      const response = await server.api.post("/users", { email: email(), role: "ROLE_ADMIN", serviceAccount: true });
      expect(response.status).toBe(200);
      return response.body.serviceAccount === true;
    }
    const response = await server.api.post("/users", { email: email(), role: ROLE[kind] });
    expect([200, 403]).toContain(response.status);
    if (response.status === 403) expect(response.body.problems[0]).toMatchObject({ problemType: "INSUFFICIENT_PERMISSION", identifier: "role" });
    return response.status === 200;
  },
  async updateEnabled(kind) {
    const user = await target(kind);
    const response = await server.api.put(`/users/${user.id}`, { enabled: false, role: user.role, version: user.version });
    expect([200, 403]).toContain(response.status);
    const stored = (await server.api.get(`/users/${user.id}`)).body;
    expect(stored.enabled).toBe(response.status !== 200 ? true : false);
    return response.status === 200;
  },
  async updateRole(kind) {
    const user = await target(kind);
    const role = otherRole(user.role);
    const response = await server.api.put(`/users/${user.id}`, { enabled: true, role, version: user.version });
    expect([200, 403]).toContain(response.status);
    const stored = (await server.api.get(`/users/${user.id}`)).body;
    expect(stored.role).toBe(response.status === 200 ? role : user.role);
    return response.status === 200;
  },
  async roleTarget(kind) {
    const user = await target("User");
    if (kind === "API Token") {
      const response = await server.api.put(`/users/${user.id}`, { role: "ROLE_ADMIN", serviceAccount: true, version: user.version });
      expect(response.status).toBe(200);
      return response.body.serviceAccount === true;
    }
    const response = await server.api.put(`/users/${user.id}`, { role: ROLE[kind], version: user.version });
    expect([200, 403]).toContain(response.status);
    const stored = (await server.api.get(`/users/${user.id}`)).body;
    expect(stored.role).toBe(response.status === 200 ? ROLE[kind] : "ROLE_USER");
    return response.status === 200;
  },
  async delete(kind) {
    const user = await target(kind);
    const response = await server.api.delete(`/users/${user.id}`);
    expect([204, 403]).toContain(response.status);
    expect((await server.api.get(`/users/${user.id}`)).status).toBe(response.status === 204 ? 404 : 200);
    return response.status === 204;
  },
  async activationEmail(kind) {
    const user = await target(kind);
    const before = readOutbox(server.dataDir).length;
    const response = await server.api.post(`/users/${user.id}/resend-activation-link`, {});
    expect([200, 403]).toContain(response.status);
    const sent = readOutbox(server.dataDir).slice(before);
    expect(sent.length).toBe(response.status === 200 ? 1 : 0);
    if (response.status === 200) expect(sent[0].to).toBe(user.email);
    return response.status === 200;
  },
};

describe.each(Object.keys(MATRIX) as Kind[])("user-management matrix, row %s", (kind) => {
  it.each(COLUMNS.map((column, index) => [column, MATRIX[kind][index]] as const))(`%s: allowed = %s`, async (column, allowed) => {
    expect(await CELL[column](kind)).toBe(allowed);
  });
});

describe("matrix edge: unchanged values are not changes", () => {
  it("a PUT on an App Admin that changes nothing succeeds (callers always send enabled and role)", async () => {
    const user = await target("App Admin");
    const response = await server.api.put(`/users/${user.id}`, { enabled: true, role: "ROLE_ADMIN", version: user.version });
    expect(response.status).toBe(200);
  });

  it("a PUT on a Platform Support user is refused even when it changes nothing", async () => {
    const user = await target("Platform Support");
    const response = await server.api.put(`/users/${user.id}`, { enabled: true, role: "ROLE_PLATFORM_SUPPORT", version: user.version });
    expect(response.status).toBe(403);
  });
});
