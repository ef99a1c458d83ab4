import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./helpers/server.js";

describe("errors and limits", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ jsonBodyLimit: 4096, ipRateLimit: 1000 });
  });
  afterAll(async () => server?.close());

  it("answers 413 for a body above the limit", async () => {
    const response = await server.api.post("/organizations", { name: "x".repeat(5000) });
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ status: 413, problems: [{ problemType: "ILLEGAL_ARGUMENT" }] });
  });

  it("refuses duplicate keys in a body, naming the key", async () => {
    const response = await server.api.request("POST", "/organizations/query", '{"name": "a", "name": "b"}');
    expect(response.status).toBe(400);
    expect(response.body.problems[0]).toMatchObject({ identifier: "name", values: ["name"] });
    const nested = await server.api.request("POST", "/organizations/query", '{"$or": [{"name": {"$eq": "a", "$eq": "b"}}]}');
    expect(nested.status).toBe(400);
    expect(nested.body.problems[0].identifier).toBe("$or[0].name.$eq");
  });

  it("serves health, readiness, the OpenAPI document and the docs page", async () => {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${server.url}/readyz`)).json()).toEqual({ status: "ready" });
    const openapi = await (await fetch(`${server.url}/api/v1/openapi.json`)).json();
    expect(openapi.paths["/organizations/{organizationId}"].get["x-permission"]).toBe("api.organizations.read");
    const docs = await fetch(`${server.url}/api/v1/docs`);
    expect(await docs.text()).toContain("/api/v1/organizations/query");
  });

  it("turns an unexpected failure into a 500 that leaks nothing", async () => {
    await server.api.post("/organizations", { name: "Present" });
    const db = new pg.Client({ connectionString: server.databaseUrl });
    await db.connect();
    await db.query("ALTER TABLE organization RENAME COLUMN external_client_code TO ecc_renamed");
    try {
      const response = await server.api.post("/organizations/query", {});
      expect(response.status).toBe(500);
      expect(response.body).toMatchObject({ status: 500, title: "Unexpected error", problems: [{ problemType: "UNKNOWN", reason: "Unexpected error" }] });
      expect(JSON.stringify(response.body)).not.toMatch(/external_client_code|does not exist|prisma|select/i);
      const graph = await server.gql(`{ organizations { totalElements content { id } } }`);
      expect(JSON.stringify(graph.body)).not.toMatch(/external_client_code|does not exist|prisma/i);
      expect(graph.body.errors[0].extensions).toMatchObject({ code: "INTERNAL", status: 500 });
    } finally {
      await db.query("ALTER TABLE organization RENAME COLUMN ecc_renamed TO external_client_code");
      await db.end();
    }
  });
});

describe("platform per-IP rate limit", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ ipRateLimit: 5, ipRateLimitWindowSeconds: 30 });
  });
  afterAll(async () => server?.close());

  it("answers 429 without X-User-Hour-Limit-Remaining once the threshold is passed", async () => {
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 7; i++) {
      last = await server.api.get("/users/current");
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(last!.headers.get("x-user-hour-limit-remaining")).toBeNull();
    expect(Number(last!.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(last!.body).toMatchObject({ status: 429 });
  });
});
