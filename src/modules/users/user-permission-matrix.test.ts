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

/**
 * One way of calling the user-management operations. Each answers `{ status, body }`: the HTTP
 * status and body over REST; over GraphQL the error's `extensions.status` and its extensions (which
 * carry `problems` like the REST error body), or 200 and the field's data.
 */
interface Outcome {
  status: number;
  body: any;
}
interface Transport {
  read(id: string): Promise<Outcome>;
  query(filter: Record<string, unknown>): Promise<Outcome>;
  /** A create body; keys that are not part of the operation's input are read-only (ignored). */
  create(body: { email: string; role: string; serviceAccount?: boolean }): Promise<Outcome>;
  update(id: string, body: { enabled?: boolean; role?: string; version: number; serviceAccount?: boolean }): Promise<Outcome>;
  delete(id: string): Promise<Outcome>;
  resend(id: string): Promise<Outcome>;
}

const rest: Transport = {
  read: (id) => server.api.get(`/users/${id}`),
  query: (filter) => server.api.post("/users/query", filter),
  create: (body) => server.api.post("/users", body),
  update: (id, body) => server.api.put(`/users/${id}`, body),
  delete: (id) => server.api.delete(`/users/${id}`),
  resend: (id) => server.api.post(`/users/${id}/resend-activation-link`, {}),
};

const USER_FIELDS = "id email role enabled validated serviceAccount version";
async function graphqlCall(field: string, query: string, variables: Record<string, unknown>): Promise<Outcome> {
  const response = await server.gql(query, variables);
  const error = response.body.errors?.[0];
  if (error) return { status: error.extensions.status, body: error.extensions };
  return { status: 200, body: response.body.data[field] };
}

/**
 * GraphQL inputs have no read-only keys: an unknown input field is a schema error there, not
 * something ignored. So `serviceAccount` is left out, which is what REST does with it too.
 */
const graphql: Transport = {
  read: (id) => graphqlCall("user", `query($id: ID!) { user(id: $id) { ${USER_FIELDS} } }`, { id }),
  query: (filter) => graphqlCall("users", `query($f: JSON) { users(filter: $f) { totalElements content { ${USER_FIELDS} } } }`, { f: filter }),
  create: ({ email, role }) => graphqlCall("createUser", `mutation($input: CreateUserInput!) { createUser(input: $input) { ${USER_FIELDS} } }`, { input: { email, role } }),
  update: (id, { enabled, role, version }) =>
    graphqlCall("updateUser", `mutation($id: ID!, $input: UpdateUserInput!) { updateUser(id: $id, input: $input) { ${USER_FIELDS} } }`, { id, input: { enabled, role, version } }),
  delete: (id) => graphqlCall("deleteUser", `mutation($id: ID!) { deleteUser(id: $id) { id } }`, { id }),
  resend: (id) => graphqlCall("resendUserActivationLink", `mutation($id: ID!) { resendUserActivationLink(id: $id) { ${USER_FIELDS} } }`, { id }),
};

const succeeded = (outcome: Outcome) => outcome.status >= 200 && outcome.status < 300;
/** Every cell answers success or 403; a refusal names the rule as INSUFFICIENT_PERMISSION. */
function expectAllowedOrForbidden(outcome: Outcome): boolean {
  if (!succeeded(outcome)) {
    expect(outcome.status, JSON.stringify(outcome.body)).toBe(403);
    expect(outcome.body.problems[0].problemType).toBe("INSUFFICIENT_PERMISSION");
  }
  return succeeded(outcome);
}

/** Each cell: perform the action on a fresh target through `api` and report whether it was allowed. */
const CELL: Record<Column, (kind: Kind, api: Transport) => Promise<boolean>> = {
  async read(kind, api) {
    const user = await target(kind);
    const response = await api.read(user.id);
    return expectAllowedOrForbidden(response) && response.body.id === user.id;
  },
  async query(kind, api) {
    const user = await target(kind);
    const response = await api.query({ id: user.id });
    expect(response.status).toBe(200);
    return response.body.content.length === 1;
  },
  async create(kind, api) {
    if (kind === "API Token") {
      // No role makes an API Token user; serviceAccount is read-only, so asking for one is ignored.
      const response = await api.create({ email: email(), role: "ROLE_ADMIN", serviceAccount: true });
      expect(response.status).toBe(200);
      return response.body.serviceAccount === true;
    }
    const response = await api.create({ email: email(), role: ROLE[kind] });
    const allowed = expectAllowedOrForbidden(response);
    if (!allowed) expect(response.body.problems[0]).toMatchObject({ problemType: "INSUFFICIENT_PERMISSION", identifier: "role" });
    return allowed;
  },
  async updateEnabled(kind, api) {
    const user = await target(kind);
    const response = await api.update(user.id, { enabled: false, role: user.role, version: user.version });
    const allowed = expectAllowedOrForbidden(response);
    const stored = (await rest.read(user.id)).body;
    expect(stored.enabled).toBe(!allowed);
    return allowed;
  },
  async updateRole(kind, api) {
    const user = await target(kind);
    const role = otherRole(user.role);
    const response = await api.update(user.id, { enabled: true, role, version: user.version });
    const allowed = expectAllowedOrForbidden(response);
    const stored = (await rest.read(user.id)).body;
    expect(stored.role).toBe(allowed ? role : user.role);
    return allowed;
  },
  async roleTarget(kind, api) {
    const user = await target("User");
    if (kind === "API Token") {
      const response = await api.update(user.id, { role: "ROLE_ADMIN", serviceAccount: true, version: user.version });
      expect(response.status).toBe(200);
      return response.body.serviceAccount === true;
    }
    const response = await api.update(user.id, { role: ROLE[kind], version: user.version });
    const allowed = expectAllowedOrForbidden(response);
    const stored = (await rest.read(user.id)).body;
    expect(stored.role).toBe(allowed ? ROLE[kind] : "ROLE_USER");
    return allowed;
  },
  async delete(kind, api) {
    const user = await target(kind);
    const response = await api.delete(user.id);
    const allowed = expectAllowedOrForbidden(response);
    expect((await rest.read(user.id)).status).toBe(allowed ? 404 : 200);
    return allowed;
  },
  async activationEmail(kind, api) {
    const user = await target(kind);
    const before = readOutbox(server.dataDir).length;
    const response = await api.resend(user.id);
    const allowed = expectAllowedOrForbidden(response);
    const sent = readOutbox(server.dataDir).slice(before);
    expect(sent.length).toBe(allowed ? 1 : 0);
    if (allowed) expect(sent[0].to).toBe(user.email);
    return allowed;
  },
};

// The same table of cells, once through REST and once through the GraphQL mutations and queries.
describe.each([
  ["REST", rest],
  ["GraphQL", graphql],
] as const)("user-management matrix over %s", (_name, api) => {
  describe.each(Object.keys(MATRIX) as Kind[])("row %s", (kind) => {
    it.each(COLUMNS.map((column, index) => [column, MATRIX[kind][index]] as const))(`%s: allowed = %s`, async (column, allowed) => {
      expect(await CELL[column](kind, api)).toBe(allowed);
    });
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
