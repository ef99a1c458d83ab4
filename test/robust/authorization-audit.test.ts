import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { createEngagement } from "../helpers/entities.js";
import { postMultipart } from "../helpers/multipart.js";
import { rawRequest } from "../helpers/fuzz.js";
import type { RestClient } from "../helpers/client.js";

// Issue 16 point 6: each edge the authorization audit found, tried through the public API with
// narrow tokens. (The activation-link finding is in src/modules/users/users.test.ts, "activation
// links without PUBLIC_URL"; NUL in path ids and emails in test/robust/fuzz-routes.test.ts.)

// One server for every describe that needs no configuration of its own (each starts the app, clones
// a database, compiles the routes): the tests make their own tokens and entities and compare
// relative to them, so they do not disturb one another.
let shared: TestServer;
beforeAll(async () => {
  shared = await startTestServer();
});
afterAll(async () => shared?.close());

async function token(api: RestClient, body: Record<string, unknown>): Promise<{ id: string; token: string; expiry: string; allowedAddresses: string[] }> {
  const created = await api.post("/api-tokens", { name: `t${Math.random().toString(36).slice(2, 8)}`, ...body });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return created.body;
}

function wsAttempt(url: string, secret: string, headers: Record<string, string> = {}): Promise<{ opened: boolean; closeCode?: number; closedAt?: number; socket: WebSocket }> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`${url.replace(/^http/, "ws")}/api/graphql`, "graphql-transport-ws", { headers });
    let acked = false;
    socket.on("open", () => socket.send(JSON.stringify({ type: "connection_init", payload: { Authorization: `Bearer ${secret}` } })));
    socket.on("message", (data) => {
      const message = JSON.parse(String(data));
      if (message.type === "connection_ack") {
        acked = true;
        resolve({ opened: true, socket });
      }
    });
    socket.on("close", (code) => {
      if (!acked) resolve({ opened: false, closeCode: code, socket });
    });
  });
}

describe("X-Forwarded-For with TRUST_PROXY: the address the trusted proxy appended counts", () => {
  let proxied: TestServer;
  let twoHops: TestServer;
  let direct: TestServer;
  beforeAll(async () => {
    [proxied, twoHops] = await Promise.all([startTestServer({ trustProxy: true, trustProxyHops: 1 }), startTestServer({ trustProxy: true, trustProxyHops: 2 })]);
    direct = shared;
  });
  afterAll(async () => Promise.all([proxied?.close(), twoHops?.close()]));

  it("refuses a 10.0.0.0/8 token whose caller wrote 10.1.2.3 left of the proxy's entry (REST, GraphQL, graphql-ws)", async () => {
    const limited = await token(proxied.api, { permissions: ["api.organizations.read"], allowedAddresses: ["10.0.0.0/8"] });
    const spoofed = { "x-forwarded-for": "10.1.2.3, 203.0.113.9" };
    const rest = await rawRequest(proxied.url, "GET", "/api/v1/users/current", { headers: { authorization: `Bearer ${limited.token}`, ...spoofed } });
    expect(rest.status).toBe(401);
    const graph = await rawRequest(proxied.url, "POST", "/api/graphql", { headers: { authorization: `Bearer ${limited.token}`, "content-type": "application/json", ...spoofed }, body: JSON.stringify({ query: "{ currentApiToken { id } }" }) });
    expect(graph.body.errors[0].extensions.status).toBe(401);
    const ws = await wsAttempt(proxied.url, limited.token, spoofed);
    expect(ws.opened).toBe(false);

    // The proxy's own entry is the client: a request that really came from 10.1.2.3 passes.
    const real = { "x-forwarded-for": "203.0.113.9, 10.1.2.3" };
    expect((await rawRequest(proxied.url, "GET", "/api/v1/users/current", { headers: { authorization: `Bearer ${limited.token}`, ...real } })).status).toBe(200);
    const wsReal = await wsAttempt(proxied.url, limited.token, real);
    expect(wsReal.opened).toBe(true);
    wsReal.socket.close();
  });

  it("with TRUST_PROXY=2, takes the entry two places from the right", async () => {
    const limited = await token(twoHops.api, { permissions: ["api.organizations.read"], allowedAddresses: ["10.0.0.0/8"] });
    const ok = await rawRequest(twoHops.url, "GET", "/api/v1/users/current", { headers: { authorization: `Bearer ${limited.token}`, "x-forwarded-for": "192.0.2.1, 10.1.2.3, 198.51.100.7" } });
    expect(ok.status).toBe(200);
    const refused = await rawRequest(twoHops.url, "GET", "/api/v1/users/current", { headers: { authorization: `Bearer ${limited.token}`, "x-forwarded-for": "10.1.2.3, 192.0.2.1, 198.51.100.7" } });
    expect(refused.status).toBe(401);
  });

  it("ignores X-Forwarded-For without TRUST_PROXY", async () => {
    const limited = await token(direct.api, { permissions: ["api.organizations.read"], allowedAddresses: ["10.0.0.0/8"] });
    const response = await rawRequest(direct.url, "GET", "/api/v1/users/current", { headers: { authorization: `Bearer ${limited.token}`, "x-forwarded-for": "10.1.2.3" } });
    expect(response.status).toBe(401);
    expect(response.body.title).toMatch(/127\.0\.0\.1/);
  });
});

describe("a token gives and touches only what it has", () => {
  let server: TestServer;
  beforeAll(() => {
    server = shared;
  });

  it("cannot create a token that outlives it; left out, the expiry is its own", async () => {
    const inAnHour = new Date(Date.now() + 3600_000).toISOString();
    const parent = await token(server.api, { permissions: ["api.api-tokens.write", "api.api-tokens.read", "api.organizations.read"], expiry: inAnHour });
    const asParent = server.api.withToken(parent.token);
    const twoYears = new Date(Date.now() + 700 * 24 * 3600_000).toISOString();
    const refused = await asParent.post("/api-tokens", { name: "longer", permissions: ["api.organizations.read"], expiry: twoYears });
    expect(refused.status).toBe(403);
    expect(refused.body.problems[0]).toMatchObject({ identifier: "expiry", suggestedValues: [new Date(parent.expiry).toISOString()] });
    const defaulted = await asParent.post("/api-tokens", { name: "default", permissions: ["api.organizations.read"] });
    expect(defaulted.status).toBe(200);
    expect(new Date(defaulted.body.expiry).getTime()).toBe(new Date(parent.expiry).getTime());
    const shorter = await asParent.post("/api-tokens", { name: "shorter", permissions: ["api.organizations.read"], expiry: new Date(Date.now() + 600_000).toISOString() });
    expect(shorter.status).toBe(200);
  });

  it("cannot create a token usable from addresses outside its own; left out, the addresses are its own", async () => {
    const parent = await token(server.api, { permissions: ["api.api-tokens.write", "api.organizations.read"], allowedAddresses: ["127.0.0.0/8", "10.0.0.0/8"] });
    const asParent = server.api.withToken(parent.token);
    const anywhere = await asParent.post("/api-tokens", { name: "anywhere", permissions: ["api.organizations.read"], allowedAddresses: [] });
    expect(anywhere.status).toBe(403);
    expect(anywhere.body.problems[0]).toMatchObject({ identifier: "allowedAddresses" });
    const wider = await asParent.post("/api-tokens", { name: "wider", permissions: ["api.organizations.read"], allowedAddresses: ["10.0.0.0/7"] });
    expect(wider.status).toBe(403);
    expect(wider.body.problems[0].values).toEqual(["10.0.0.0/7"]);
    const narrower = await asParent.post("/api-tokens", { name: "narrower", permissions: ["api.organizations.read"], allowedAddresses: ["10.20.0.0/16", "127.0.0.1"] });
    expect(narrower.status, JSON.stringify(narrower.body)).toBe(200);
    const inherited = await asParent.post("/api-tokens", { name: "inherited", permissions: ["api.organizations.read"] });
    expect(inherited.body.allowedAddresses).toEqual(["127.0.0.0/8", "10.0.0.0/8"]);
  });

  it("neither reads, lists, renames nor deletes tokens holding permissions it lacks (the bootstrap admin token among them)", async () => {
    const admin = (await server.api.post("/api-tokens/query", {})).body;
    const adminTokenId = (await server.gql(`{ currentApiToken { id } }`)).body.data.currentApiToken.id;
    const narrow = await token(server.api, { permissions: ["api.api-tokens.read", "api.api-tokens.write", "api.api-tokens.delete"] });
    const peer = await token(server.api, { permissions: ["api.api-tokens.read"] });
    const asNarrow = server.api.withToken(narrow.token);
    expect((await asNarrow.get(`/api-tokens/${adminTokenId}`)).status).toBe(404);
    expect((await asNarrow.delete(`/api-tokens/${adminTokenId}`)).status).toBe(404);
    expect((await asNarrow.put(`/api-tokens/${adminTokenId}`, { name: "renamed", version: 0 })).status).toBe(404);
    const listed = await asNarrow.post("/api-tokens/query", {});
    const ids = listed.body.content.map((t: { id: string }) => t.id);
    expect(ids).toContain(narrow.id);
    expect(ids).toContain(peer.id);
    expect(ids).not.toContain(adminTokenId);
    expect(listed.body.totalElements).toBeLessThan(admin.totalElements);
    // Tokens within its permissions it may touch.
    expect((await asNarrow.get(`/api-tokens/${peer.id}`)).status).toBe(200);
    expect((await asNarrow.delete(`/api-tokens/${peer.id}`)).status).toBe(204);
    // The admin token still works.
    expect((await server.api.get("/users/current")).status).toBe(200);
  });
});

describe("a GraphQL mutation selecting what the token may not read", () => {
  let server: TestServer;
  beforeAll(() => {
    server = shared;
  });

  it("is refused before it writes anything (was: committed, then 403 with data null, and a retry duplicated it)", async () => {
    const organization = (await server.api.post("/organizations", { name: "Selection org" })).body;
    const limited = await token(server.api, { permissions: ["api.engagements.write", "api.engagements.read"] });
    const create = `mutation($i: CreateEngagementInput!) { createEngagement(input: $i) { id name organization { name } } }`;
    const input = { organizationId: organization.id, name: "Selected", accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" } };
    const count = async () => (await server.api.post("/engagements/query", { name: "Selected" })).body.totalElements;
    const refused = await server.gql(create, { i: input }, limited.token);
    expect(refused.body.data ?? null, JSON.stringify(refused.body)).toBeNull();
    expect(refused.body.errors[0].extensions).toMatchObject({ status: 403, problems: [{ identifier: "createEngagement.organization", suggestedValues: ["api.organizations.read"] }] });
    expect(refused.body.errors[0].message).toMatch(/nothing was changed/);
    expect(await count()).toBe(0);
    // Through a fragment too.
    const viaFragment = await server.gql(`mutation($i: CreateEngagementInput!) { createEngagement(input: $i) { ...E } } fragment E on Engagement { id organization { id } }`, { i: input }, limited.token);
    expect(viaFragment.body.errors[0].extensions.status).toBe(403);
    expect(await count()).toBe(0);
    // Without the relation it is written once.
    const written = await server.gql(`mutation($i: CreateEngagementInput!) { createEngagement(input: $i) { id name } }`, { i: input }, limited.token);
    expect(written.body.data.createEngagement.name).toBe("Selected");
    expect(await count()).toBe(1);
  });
});

describe("subscriptions end when their token expires", () => {
  let server: TestServer;
  beforeAll(() => {
    server = shared;
  });

  it("closes the connection (4401) at the moment of expiry, not up to 30 seconds later", async () => {
    const expiresAt = Date.now() + 2500;
    const shortLived = await token(server.api, { permissions: ["api.organizations.read"], expiry: new Date(expiresAt).toISOString() });
    const attempt = await wsAttempt(server.url, shortLived.token);
    expect(attempt.opened).toBe(true);
    attempt.socket.send(JSON.stringify({ id: "1", type: "subscribe", payload: { query: `subscription { entityChanged(entityType: "ORGANIZATION") { type } }` } }));
    const closed = await new Promise<{ code: number; at: number }>((resolve) => attempt.socket.on("close", (code) => resolve({ code, at: Date.now() })));
    expect(closed.code).toBe(4401);
    expect(closed.at).toBeGreaterThanOrEqual(expiresAt - 50);
    expect(closed.at - expiresAt).toBeLessThan(1500);
  });
});

describe("chunked files and JSON tables belong to the token that created them", () => {
  let server: TestServer;
  let owner: RestClient;
  let stranger: RestClient;
  let engagementId: string;
  beforeAll(async () => {
    server = shared;
    const permissions = ["api.file-manager.read", "api.file-manager.write", "api.file-manager.delete", "api.engagements.read"];
    owner = server.api.withToken((await token(server.api, { permissions })).token);
    stranger = server.api.withToken((await token(server.api, { permissions })).token);
    engagementId = (await createEngagement(server.api, "Ownership")).id;
  });

  it("a stranger cannot read, extend, assemble or delete another token's chunked file", async () => {
    const file = (await owner.post("/chunked-files", { name: "owned.csv", size: 8 })).body;
    const part = (as: RestClient) =>
      postMultipart(server.url, as.token, `/chunked-files/${file.id}/part`, [
        { name: "chunkedFilePart", json: { offset: 0, size: 8 } },
        { name: "fileChunk", filename: "part", data: "a,b\n1,2\n" },
      ]);
    expect((await stranger.get(`/chunked-files/${file.id}`)).status).toBe(404);
    expect((await part(stranger)).status).toBe(404);
    expect((await part(owner)).status).toBe(200);
    expect((await stranger.post("/file-manager/create-from-chunked-file", { chunkedFileId: file.id, engagementId })).status).toBe(404);
    expect((await stranger.delete(`/chunked-files/${file.id}`)).status).toBe(404);
    expect((await stranger.post("/chunked-files/query", {})).body.totalElements).toBe(0);
    expect((await owner.get(`/chunked-files/${file.id}`)).body.chunkedFileParts).toEqual([{ offset: 0, size: 8 }]);
    const made = await owner.post("/file-manager/create-from-chunked-file", { chunkedFileId: file.id, engagementId });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
  });

  it("a stranger cannot read, append to or import another token's JSON table", async () => {
    const table = (await owner.post("/json-tables", {})).body;
    expect((await stranger.get(`/json-tables/${table.id}`)).status).toBe(404);
    expect((await stranger.post(`/json-tables/${table.id}/append`, [{ a: 1 }])).status).toBe(404);
    const viaGraphql = await server.gql(`mutation($id: ID!, $t: String) { appendJsonTable(id: $id, rowsText: $t) { id } }`, { id: table.id, t: '[{"a": 1}]' }, stranger.token);
    expect(viaGraphql.body.errors?.[0]?.extensions?.status ?? 0, JSON.stringify(viaGraphql.body)).toBe(404);
    expect((await owner.post(`/json-tables/${table.id}/append`, [{ a: 1 }])).status).toBe(200);
    const imported = await stranger.post("/file-manager/import-from-json-table", { engagementId, jsonTableId: table.id, name: "stolen" });
    expect(imported.status).toBe(400);
    expect(imported.body.problems[0].identifier).toBe("jsonTableId");
    expect((await owner.post("/file-manager/import-from-json-table", { engagementId, jsonTableId: table.id, name: "mine" })).status).toBe(200);
  });
});

describe("missing endpoints of the files family", () => {
  let server: TestServer;
  beforeAll(() => {
    server = shared;
  });

  it("POST /chunked-files/query lists the caller's chunked files with the filter language", async () => {
    await server.api.post("/chunked-files", { name: "alpha.csv", size: 10 });
    await server.api.post("/chunked-files", { name: "beta.csv", size: 2000 });
    const all = await server.api.post("/chunked-files/query?sort=name,desc", {});
    expect(all.status).toBe(200);
    expect(all.body.content.map((f: { name: string }) => f.name)).toEqual(["beta.csv", "alpha.csv"]);
    const big = await server.api.post("/chunked-files/query", { size: { $gt: 100 } });
    expect(big.body.content.map((f: { name: string }) => f.name)).toEqual(["beta.csv"]);
    const bad = await server.api.post("/chunked-files/query", { nope: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.problems[0].identifier).toBe("nope");
  });

  it("DELETE /chunked-files/{id} removes it and the bytes of its parts", async () => {
    const file = (await server.api.post("/chunked-files", { name: "gone.csv", size: 4 })).body;
    const sent = await postMultipart(server.url, server.token, `/chunked-files/${file.id}/part`, [
      { name: "chunkedFilePart", json: { offset: 0, size: 4 } },
      { name: "fileChunk", filename: "part", data: "abcd" },
    ]);
    expect(sent.status).toBe(200);
    const partsDir = join(server.dataDir, "files", "chunked", file.id);
    expect(readdirSync(partsDir)).toHaveLength(1);
    expect((await server.api.delete(`/chunked-files/${file.id}`)).status).toBe(204);
    expect((await server.api.get(`/chunked-files/${file.id}`)).status).toBe(404);
    expect(existsSync(partsDir) ? readdirSync(partsDir) : []).toEqual([]);
    expect((await server.api.delete(`/chunked-files/${file.id}`)).status).toBe(404);
  });

  it("POST /file-results/query lists only the calling token's file results", async () => {
    const engagement = await createEngagement(server.api, "Results");
    const other = server.api.withToken((await token(server.api, { permissions: ["api.analyses.read", "api.engagements.read"] })).token);
    const mine = await server.api.post("/account-mappings/export", { engagementId: engagement.id });
    expect(mine.status, JSON.stringify(mine.body)).toBe(200);
    const theirs = await other.post("/account-mappings/export", { engagementId: engagement.id });
    expect(theirs.status, JSON.stringify(theirs.body)).toBe(200);
    const listed = await server.api.post("/file-results/query", {});
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body.content.map((r: { id: string }) => r.id)).toEqual([mine.body.entityId]);
    const otherListed = await other.post("/file-results/query?sort=fileName,asc", {});
    expect(otherListed.body.content.map((r: { id: string }) => r.id)).toEqual([theirs.body.entityId]);
  });
});

describe("failed authentication attempts are limited per address", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ authFailureLimit: 3, authFailureWindowSeconds: 60, trustProxy: true, trustProxyHops: 1 });
  });
  afterAll(async () => server?.close());

  it("answers 429 with Retry-After once an address has failed too often, even with a valid token; other addresses go on", async () => {
    const from = (address: string, secret: string) => rawRequest(server.url, "GET", "/api/v1/users/current", { headers: { authorization: `Bearer ${secret}`, "x-forwarded-for": address } });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await from("198.51.100.20", `fap_guess_${i}`)).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    const blocked = await from("198.51.100.20", server.token);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers["retry-after"])).toBeGreaterThan(0);
    expect(blocked.body.problems[0].reason).toMatch(/failed authentication/);
    expect((await from("198.51.100.21", server.token)).status).toBe(200);
  });
});

describe("response headers a security scanner expects", () => {
  let server: TestServer;
  beforeAll(() => {
    server = shared;
  });

  it("sends nosniff, no framing, no caching, a strict CSP, and no software names or versions", async () => {
    for (const [method, path, body] of [
      ["GET", "/api/v1/users/current", undefined],
      ["GET", "/api/v1/organizations/nope", undefined],
      ["POST", "/api/graphql", JSON.stringify({ query: "{ currentApiToken { id } }" })],
      ["GET", "/api/v1/missing", undefined],
    ] as const) {
      const response = await rawRequest(server.url, method, path, { headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" }, body });
      expect(response.headers["x-content-type-options"], path).toBe("nosniff");
      expect(response.headers["x-frame-options"], path).toBe("DENY");
      expect(response.headers["cache-control"], path).toBe("no-store");
      expect(response.headers["content-security-policy"], path).toMatch(/default-src 'none'/);
      expect(response.headers["x-powered-by"], path).toBeUndefined();
      expect(response.headers.server, path).toBeUndefined();
      expect(response.text, path).not.toMatch(/\bat .*\.(ts|js):\d+|node_modules|Express|graphql-yoga\/|Node\.js/);
    }
  });

  it("answers a malformed activation form with a 4xx body, not a 500 with a stack", async () => {
    const response = await rawRequest(server.url, "POST", "/api/activate", { headers: { "content-type": "application/x-www-form-urlencoded" }, body: `token=${"x".repeat(5000)}` });
    expect(response.status).toBe(413);
    expect(response.text).not.toMatch(/at .*\.js:\d+/);
  });
});
