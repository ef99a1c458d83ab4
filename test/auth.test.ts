import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./helpers/server.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());

/** Sends only the headers of a POST declaring `length` body bytes; returns the response status and Connection header. */
function statusWithoutSendingBody(path: string, length: number): Promise<{ status: number; connection?: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}/api/v1${path}`, { method: "POST", headers: { "content-type": "application/json", "content-length": String(length) } }, (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, connection: res.headers.connection });
      req.destroy();
    });
    req.on("error", reject);
    req.flushHeaders();
  });
}

async function token(body: Record<string, unknown>): Promise<string> {
  const response = await server.api.post("/api-tokens", { name: "auth test", permissions: ["api.organizations.read"], ...body });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.token;
}

describe("authentication", () => {
  it("requires a bearer token", async () => {
    const response = await server.api.withToken(undefined).post("/organizations/query", {});
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ status: 401, origin: "/api/v1/organizations/query" });
    expect(response.body.title).toMatch(/bearer/i);
  });

  it("no token + bad body -> 401: the body is not read before the caller is known", async () => {
    const anonymous = server.api.withToken(undefined);
    const malformed = await anonymous.request("POST", "/organizations/query", "{ not json");
    expect(malformed.status).toBe(401);
    const unknownKey = await anonymous.post("/organizations", { name: "x", colour: "red" });
    expect(unknownKey.status).toBe(401);
    const badFilter = await anonymous.post("/engagements/query", { nope: { $gt: 1 }, name: 5 });
    expect(badFilter.status).toBe(401);
    // A body declared far above the limit and never sent: the answer comes without reading it.
    // The connection is closed rather than drained, so the unread body is never read either.
    expect(await statusWithoutSendingBody("/organizations/query", 200 * 1024 * 1024)).toEqual({ status: 401, connection: "close" });
  });

  it("refuses an unknown token", async () => {
    expect((await server.api.withToken("fap_not-a-real-token").get("/users/current")).status).toBe(401);
    expect((await server.api.request("GET", "/users/current", undefined, { authorization: "Basic abc" })).status).toBe(401);
  });

  it("refuses an expired token", async () => {
    const secret = await token({ expiry: new Date(Date.now() + 1500).toISOString() });
    const client = server.api.withToken(secret);
    expect((await client.get("/users/current")).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1700));
    const expired = await client.get("/users/current");
    expect(expired.status).toBe(401);
    expect(expired.body.title).toMatch(/expired/);
  });

  it("applies allowedAddresses with IPv4, IPv6 and CIDR entries", async () => {
    const elsewhere = await token({ allowedAddresses: ["10.0.0.0/8", "192.168.1.7"] });
    const refused = await server.api.withToken(elsewhere).get("/users/current");
    expect(refused.status).toBe(401);
    expect(refused.body.title).toMatch(/127\.0\.0\.1/);
    expect((await server.api.withToken(await token({ allowedAddresses: ["::1"] })).get("/users/current")).status).toBe(401);
    expect((await server.api.withToken(await token({ allowedAddresses: ["127.0.0.1"] })).get("/users/current")).status).toBe(200);
    expect((await server.api.withToken(await token({ allowedAddresses: ["127.0.0.0/8"] })).get("/users/current")).status).toBe(200);
    expect((await server.api.withToken(await token({ allowedAddresses: ["2001:db8::/32", "::ffff:127.0.0.0/104"] })).get("/users/current")).status).toBe(200);
  });
});

describe("authorization", () => {
  it("answers 403 naming the missing permission, per route", async () => {
    const reader = server.api.withToken(await token({ permissions: ["api.organizations.read"] }));
    expect((await reader.post("/organizations/query", {})).status).toBe(200);
    const write = await reader.post("/organizations", { name: "Nope" });
    expect(write.status).toBe(403);
    expect(write.body.problems[0]).toMatchObject({ problemType: "INSUFFICIENT_PERMISSION", values: ["api.organizations.write"] });
    expect((await reader.post("/engagements/query", {})).status).toBe(403);
    expect((await reader.get("/api-tokens/current")).status).toBe(200);
    // Nothing was written by the refused call.
    const found = await server.api.post("/organizations/query", { name: "Nope" });
    expect(found.body.totalElements).toBe(0);
  });

  it("missing permission + bad/unknown-key body -> 403, before the body is looked at", async () => {
    const reader = server.api.withToken(await token({ permissions: ["api.organizations.read"] }));
    const malformed = await reader.request("POST", "/organizations", "{ not json");
    expect(malformed.status).toBe(403);
    expect(malformed.body.problems[0].values).toEqual(["api.organizations.write"]);
    const unknownKey = await reader.post("/organizations", { name: "x", colour: "red" });
    expect(unknownKey.status).toBe(403);
    const duplicateKey = await reader.request("POST", "/engagements/query", '{"name":"a","name":"b"}');
    expect(duplicateKey.status).toBe(403);
    const badFilter = await reader.post("/engagements/query", { nope: 1 });
    expect(badFilter.status).toBe(403);
    expect(badFilter.body.problems[0].values).toEqual(["api.engagements.read"]);
    // With the permission, the same bad bodies are 400s.
    expect((await reader.post("/organizations/query", { nope: 1 })).status).toBe(400);
  });

  it("distinguishes delete from write", async () => {
    const writer = server.api.withToken(await token({ permissions: ["api.organizations.read", "api.organizations.write"] }));
    const created = await writer.post("/organizations", { name: "Keep me" });
    const refused = await writer.delete(`/organizations/${created.body.id}`);
    expect(refused.status).toBe(403);
    expect(refused.body.problems[0].values).toEqual(["api.organizations.delete"]);
  });

  it("applies the same permissions to GraphQL", async () => {
    const secret = await token({ permissions: ["api.organizations.read"] });
    const denied = await server.gql(`mutation { createOrganization(input: { name: "x" }) { id } }`, undefined, secret);
    expect(denied.body.errors?.[0].extensions).toMatchObject({ code: "FORBIDDEN", status: 403 });
    const anonymous = await server.gql(`{ currentUser { id } }`, undefined, "");
    expect(anonymous.status).toBe(401);
  });
});
