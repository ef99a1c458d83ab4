import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { testRedisUrl } from "../../../test/helpers/redis-tests.js";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { createTestDatabase } from "../../../test/helpers/database.js";

const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers.reverse()) await s.close();
});
async function start(overrides: Parameters<typeof startTestServer>[0] = {}) {
  const s = await startTestServer(overrides);
  servers.push(s);
  return s;
}

let n = 0;
const email = () => `limit.${Date.now()}.${n++}@example.com`;

function expectLimited(response: { status: number; headers: Headers; body: any }) {
  expect(response.status).toBe(429);
  const remaining = Number(response.headers.get("x-user-hour-limit-remaining"));
  expect(Number.isInteger(remaining)).toBe(true);
  expect(remaining).toBeGreaterThan(3000);
  expect(remaining).toBeLessThanOrEqual(3600);
  expect(response.body.status).toBe(429);
}

/** Over GraphQL the limit shows in the error: status 429 and the seconds until the reset in the extensions. */
async function expectGraphqlLimited(server: TestServer, userId?: string) {
  const mutations: Array<[string, Record<string, unknown>]> = [[`mutation($e: String!) { createUser(input: { email: $e, role: ROLE_USER }) { id } }`, { e: email() }]];
  if (userId) {
    mutations.push([`mutation($id: ID!) { updateUser(id: $id, input: { enabled: false, version: 0 }) { id } }`, { id: userId }]);
    mutations.push([`mutation($id: ID!) { resendUserActivationLink(id: $id) { id } }`, { id: userId }]);
  }
  for (const [query, variables] of mutations) {
    const response = await server.gql(query, variables);
    expect(response.body.data).toBeNull();
    const { extensions } = response.body.errors[0];
    expect(extensions).toMatchObject({ code: "RATE_LIMITED", status: 429, problems: [{ problemType: "UNKNOWN" }] });
    expect(Number.isInteger(extensions.userHourLimitRemaining)).toBe(true);
    expect(extensions.userHourLimitRemaining).toBeGreaterThan(3000);
    expect(extensions.userHourLimitRemaining).toBeLessThanOrEqual(3600);
    expect(response.body.errors[0].message).toContain(`${extensions.userHourLimitRemaining} seconds`);
    // GraphQL over HTTP answers with the error's status and header too, as REST does.
    expect(response.status).toBe(429);
    expect(response.headers.get("x-user-hour-limit-remaining")).toBe(String(extensions.userHourLimitRemaining));
  }
}

describe("modify-users limit (100 calls per hour, tenant-wide)", () => {
  it("lets 100 create/update/resend calls through, from any token, and answers the 101st with 429 and X-User-Hour-Limit-Remaining", async () => {
    const server = await start();
    const second = await server.api.post("/api-tokens", { name: "second", permissions: ["api.users.read", "api.users.write", "api.users.delete"] });
    const other = server.api.withToken(second.body.token);
    const user = (await server.api.post("/users", { email: email(), role: "ROLE_USER" })).body; // call 1
    let version = user.version;
    for (let call = 2; call <= 100; call++) {
      const client = call % 2 === 0 ? other : server.api;
      let response;
      if (call % 3 === 0) response = await client.post("/users", { email: email(), role: "ROLE_USER" });
      else if (call % 3 === 1) {
        response = await client.put(`/users/${user.id}`, { role: version % 2 === 0 ? "ROLE_USER_ADMIN" : "ROLE_USER", version });
        version = response.body.version;
      } else {
        response = await client.post(`/users/${user.id}/resend-activation-link`, {});
        version = response.body.version;
      }
      expect(response.status, `call ${call}: ${JSON.stringify(response.body)}`).toBe(200);
    }
    // Reads are not limited.
    expect((await server.api.get(`/users/${user.id}`)).status).toBe(200);
    expect((await server.api.post("/users/query", {})).status).toBe(200);
    expectLimited(await other.post("/users", { email: email(), role: "ROLE_USER" }));
    expectLimited(await server.api.put(`/users/${user.id}`, { enabled: false, version }));
    expectLimited(await server.api.post(`/users/${user.id}/resend-activation-link`, {}));
    await expectGraphqlLimited(server, user.id);
    // Delete is not one of the limited calls.
    expect((await server.api.delete(`/users/${user.id}`)).status).toBe(204);
  });

  it("counts GraphQL mutations in the same budget and refuses the call past it over GraphQL", async () => {
    const server = await start({ modifyUsersHourlyLimit: 3 });
    const created = await server.gql(`mutation($e: String!) { createUser(input: { email: $e, role: ROLE_USER }) { id version } }`, { e: email() });
    expect(created.body.errors).toBeUndefined();
    const { id } = created.body.data.createUser;
    const updated = await server.gql(`mutation($id: ID!) { updateUser(id: $id, input: { role: ROLE_USER_ADMIN, version: 0 }) { version } }`, { id });
    expect(updated.body.errors).toBeUndefined();
    const resent = await server.gql(`mutation($id: ID!) { resendUserActivationLink(id: $id) { id } }`, { id });
    expect(resent.body.errors).toBeUndefined();
    await expectGraphqlLimited(server, id);
    // REST shares the budget: the same tenant is limited there too.
    expectLimited(await server.api.post("/users", { email: email(), role: "ROLE_USER" }));
    // Reads and deletes are not counted.
    expect((await server.gql(`query($id: ID!) { user(id: $id) { id } }`, { id })).body.errors).toBeUndefined();
    expect((await server.gql(`mutation($id: ID!) { deleteUser(id: $id) { id } }`, { id })).body.errors).toBeUndefined();
  });

  it("is shared by several processes on one database without Redis (PostgreSQL counter)", async () => {
    const { url } = await createTestDatabase();
    const a = await start({ databaseUrl: url, modifyUsersHourlyLimit: 5 });
    const b = await start({ databaseUrl: url, modifyUsersHourlyLimit: 5 });
    expect(a.running.app.redis).toBeUndefined();
    const statuses: number[] = [];
    // The second process finds the first's bootstrap token in the shared database.
    const bApi = b.api.withToken(a.token);
    for (let i = 0; i < 6; i++) statuses.push((await (i % 2 === 0 ? a.api : bApi).post("/users", { email: email(), role: "ROLE_USER" })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expectLimited(await a.api.post("/users", { email: email(), role: "ROLE_USER" }));
  });

  it.skipIf(!testRedisUrl())("is shared by several processes through Redis when REDIS_URL is set", async () => {
    const { url } = await createTestDatabase();
    const env = { TENANT_ID: `t-${randomBytes(4).toString("hex")}` };
    const a = await start({ databaseUrl: url, redisUrl: testRedisUrl(), modifyUsersHourlyLimit: 4, env });
    const b = await start({ databaseUrl: url, redisUrl: testRedisUrl(), modifyUsersHourlyLimit: 4, env });
    expect(a.running.app.redis).toBeDefined();
    const statuses: number[] = [];
    const bApi = b.api.withToken(a.token);
    for (let i = 0; i < 5; i++) statuses.push((await (i % 2 === 0 ? bApi : a.api).post("/users", { email: email(), role: "ROLE_USER" })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
    // The counter lives in Redis, not in the database.
    const { rows } = await a.running.app.pool.query("SELECT count(*)::int AS n FROM rate_limit_window");
    expect(rows[0].n).toBe(0);
  });
});
