import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { bodyFor, expectWellFormedAnswer, fuzzParameters, fuzzTimeout, hostileJson, nestedText, pathIdArbitrary, rawRequest } from "../helpers/fuzz.js";

// Hostile input on every route of the REST table (from the served OpenAPI document) and on
// /api/graphql: never a 5xx, never a hang, every error in the spec's body with the field named.
let server: TestServer;
let openApi: any;
beforeAll(async () => {
  server = await startTestServer({ ipRateLimit: 1_000_000, modifyUsersHourlyLimit: 1_000_000 });
  openApi = await (await fetch(`${server.url}/api/v1/openapi.json`)).json();
});
afterAll(async () => server?.close());

interface Operation {
  method: string;
  path: string;
  bodyKind: "json" | "multipart" | "none";
  schema?: unknown;
}

function operations(): Operation[] {
  const list: Operation[] = [];
  for (const [path, methods] of Object.entries<any>(openApi.paths)) {
    for (const [method, op] of Object.entries<any>(methods)) {
      const content = op.requestBody?.content ?? {};
      const bodyKind = content["application/json"] ? "json" : content["multipart/form-data"] ? "multipart" : "none";
      list.push({ method: method.toUpperCase(), path, bodyKind, schema: content["application/json"]?.schema });
    }
  }
  return list;
}

/** How a JSON value goes on the wire: plainly, or broken in one of the ways a parser must survive. */
const encodings = ["plain", "duplicate-key", "invalid-utf8", "nul-escape", "too-deep", "truncated", "not-json"] as const;

function encode(value: unknown, how: (typeof encodings)[number]): Buffer {
  const text = JSON.stringify(value) ?? "null";
  switch (how) {
    case "plain":
      return Buffer.from(text);
    case "duplicate-key":
      return Buffer.from(text.startsWith("{") && text.length > 2 ? `{"name": 1, "name": 2, ${text.slice(1)}` : `{"a": 1, "a": ${text}}`);
    case "invalid-utf8":
      return Buffer.concat([Buffer.from('{"name": "abc'), Buffer.from([0xc3, 0x28, 0xff, 0xfe]), Buffer.from('"}')]);
    case "nul-escape":
      return Buffer.from(`{"name": "a\\u0000b", "engagementId": "\\u0000", "filter": ${text}}`);
    case "too-deep":
      return Buffer.from(`{"name": ${nestedText(5000, "[", "]", "1")}}`);
    case "truncated":
      return Buffer.from(text.slice(0, Math.max(1, text.length - 1)));
    case "not-json":
      return Buffer.from("name=x&version=1");
  }
}

function fillPath(path: string, ids: string[]): string {
  let i = 0;
  return `/api/v1${path.replace(/\{[^}]+\}/g, () => ids[i++ % ids.length])}`;
}

describe("fuzzing every REST route", () => {
  it("answers hostile path ids, query strings and JSON bodies with a 4xx in the spec's body, never a 5xx", async () => {
    const all = operations();
    expect(all.length).toBeGreaterThan(100);
    for (const op of all) {
      const body = op.bodyKind === "json" ? fc.tuple(bodyFor(op.schema, openApi.components.schemas), fc.constantFrom(...encodings)) : fc.constant(undefined);
      await fc.assert(
        fc.asyncProperty(
          fc.array(pathIdArbitrary, { minLength: 1, maxLength: 3 }),
          body,
          fc.record({ page: fc.oneof(fc.constant(undefined), fc.constantFrom("0", "-1", "abc", "99999999999", "1.5")), sort: fc.oneof(fc.constant(undefined), fc.constantFrom("name,desc", "nope,asc", ",", "name,sideways", "%00", "a".repeat(300))) }),
          async (ids, encoded, query) => {
            const search = new URLSearchParams();
            if (query.page !== undefined) search.set("page", query.page);
            if (query.sort !== undefined) search.set("sort", query.sort);
            const url = fillPath(op.path, ids) + (search.size > 0 ? `?${search}` : "");
            const payload = encoded ? encode(encoded[0], encoded[1]) : op.method === "POST" || op.method === "PUT" ? Buffer.from("{}") : undefined;
            const headers: Record<string, string> = { authorization: `Bearer ${server.token}` };
            if (payload) headers["content-type"] = op.bodyKind === "multipart" ? "multipart/form-data; boundary=none" : "application/json";
            const response = await rawRequest(server.url, op.method, url, { headers, body: payload });
            expectWellFormedAnswer(response, `${op.method} ${url} ${payload?.toString("utf8").slice(0, 200) ?? ""}`);
          },
        ),
        fuzzParameters(4),
      );
    }
  }, fuzzTimeout(4 * 121 * 250));

  it("refuses a body nested deeper than the limit with a 400 naming the field and the limit (was a 500: stack overflow)", async () => {
    const response = await rawRequest(server.url, "POST", "/api/v1/organizations", {
      headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" },
      body: `{"name": ${nestedText(100_000, "[", "]", "")}}`,
    });
    expect(response.status, response.text).toBe(400);
    expect(response.body.problems[0]).toMatchObject({ identifier: "name", values: ["128"] });
    expect(response.body.problems[0].reason).toMatch(/deeper than 128 levels/);
    // The same body as a GraphQL variable.
    const graph = await rawRequest(server.url, "POST", "/api/graphql", {
      headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" },
      body: `{"query": "mutation($n: String!) { createOrganization(input: {name: $n}) { id } }", "variables": {"n": ${nestedText(100_000, "[", "]", "")}}}`,
    });
    expect(graph.status, graph.text).toBe(400);
    expect(graph.body.errors[0].extensions).toMatchObject({ status: 400, problems: [{ identifier: "variables" }] });
  });

  it("refuses a filter of 3,000 nested $and groups with a 400 naming the limit (was a 500: stack overflow)", async () => {
    // Within the body limit of 128 levels the query language's own limit (32 groups) speaks.
    const deep = nestedText(3000, '{"$and": [', "]}", '{"name": "x"}');
    const response = await rawRequest(server.url, "POST", "/api/v1/organizations/query", { headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" }, body: deep });
    expect(response.status, response.text).toBe(400);
    expect(response.body.problems[0]).toMatchObject({ identifier: "$and", values: ["128"] });
    const withinBody = nestedText(40, '{"$and": [', "]}", '{"name": "x"}');
    const filter = await rawRequest(server.url, "POST", "/api/v1/organizations/query", { headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" }, body: withinBody });
    expect(filter.status, filter.text).toBe(400);
    expect(filter.body.problems[0]).toMatchObject({ problemType: "FILTER_CONVERSION_FAILED", identifier: `${"$and[0].".repeat(32)}$and` });
    expect(filter.body.problems[0].reason).toMatch(/at most 32 levels/);
    // Through GraphQL, and through graphql-ws's transport, which parses JSON itself: the query language's limit holds.
    const graph = await rawRequest(server.url, "POST", "/api/graphql", {
      headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" },
      body: `{"query": "query($f: JSON) { organizations(filter: $f) { totalElements } }", "variables": {"f": ${withinBody}}}`,
    });
    expect(graph.body.errors[0].extensions).toMatchObject({ status: 400, problems: [{ problemType: "FILTER_CONVERSION_FAILED" }] });
    // 32 levels are fine.
    const ok = nestedText(32, '{"$and": [', "]}", '{"name": "x"}');
    const fine = await rawRequest(server.url, "POST", "/api/v1/organizations/query", { headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" }, body: ok });
    expect(fine.status, fine.text).toBe(200);
  });

  it("answers a deeply nested GraphQL document literal with a 400, not a crash", async () => {
    const query = `{ organizations(filter: ${nestedText(20_000, "[", "]", "1")}) { totalElements } }`;
    const response = await rawRequest(server.url, "POST", "/api/graphql", { headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" }, body: JSON.stringify({ query }) });
    expect(response.status, response.text.slice(0, 300)).toBeLessThan(500);
    expect(response.body.errors[0].extensions).toMatchObject({ status: 400, graphqlCode: "GRAPHQL_PARSE_FAILED" });
    expect(response.body.errors[0].message).toMatch(/at most 128/);
  });

  it("answers hostile GraphQL request bodies with a 4xx carrying code, status and problems", async () => {
    const operationsList = [
      "query($f: JSON, $s: [String!]) { organizations(filter: $f, sort: $s) { totalElements } }",
      "query($id: ID!) { organization(id: $id) { id } }",
      "mutation($i: CreateOrganizationInput!) { createOrganization(input: $i) { id } }",
      "query($f: JSON) { asyncResults(filter: $f) { totalElements } }",
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...operationsList), fc.oneof(fc.dictionary(fc.constantFrom("f", "s", "id", "i"), hostileJson), hostileJson), async (query, variables) => {
        const response = await rawRequest(server.url, "POST", "/api/graphql", {
          headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" },
          body: JSON.stringify({ query, variables }),
        });
        const context = `${query} ${JSON.stringify(variables)?.slice(0, 300)} -> ${response.status} ${response.text.slice(0, 400)}`;
        expect(response.status, context).toBeLessThan(500);
        for (const error of response.body?.errors ?? []) {
          expect(error.extensions, context).toMatchObject({ status: expect.any(Number), problems: expect.any(Array) });
          expect(error.extensions.status, context).toBeLessThan(500);
        }
      }),
      fuzzParameters(60),
    );
  }, fuzzTimeout(60 * 100));
});

describe("NUL in ids (audit finding: 500 from PostgreSQL)", () => {
  it("answers a path id with NUL 400 naming the path parameter, on entity routes, async results and file results", async () => {
    for (const path of ["/organizations/abc%00def", "/async-results/abc%00def", "/file-results/abc%00def", "/engagements/%00"]) {
      const response = await server.api.get(path);
      expect(response.status, `${path} ${JSON.stringify(response.body)}`).toBe(400);
      expect(response.body.problems[0].identifier, path).toMatch(/Id$|^id$/);
      expect(response.body.problems[0].reason).toMatch(/control characters/);
    }
    const deleted = await server.api.delete("/account-groupings/abc%00def");
    expect(deleted.status).toBe(400);
  });

  it("answers a GraphQL id with NUL 400 naming the variable or argument", async () => {
    const variable = await server.gql(`query($id: ID!) { organization(id: $id) { id } }`, { id: "abc\u0000def" });
    expect(variable.body.errors[0].extensions).toMatchObject({ status: 400, problems: [{ identifier: "id" }] });
    const literal = await server.gql(`{ organization(id: "abc\\u0000def") { id } }`);
    expect(literal.body.errors[0].extensions.status).toBe(400);
    expect(literal.body.errors[0].message).toMatch(/control characters/);
  });

  it("answers an email with NUL 400 naming email", async () => {
    const response = await server.api.post("/users", { email: "a\u0000b@example.com", role: "ROLE_USER" });
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(response.body.problems[0].identifier).toBe("email");
  });
});
