import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routeTable } from "../../rest/routes.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

/**
 * Every route of the table, fed the inputs careless or hostile clients send: malformed ids, ids of
 * nothing, bodies of the wrong JSON type, unknown keys, broken JSON, nonsense paging. Whatever the
 * route, the answer is a documented 4xx error body (or a success), never a 500.
 */

const MISSING_ID = "0123456789abcdef01234567";

const BODIES: Array<[string, string]> = [
  ["an array", "[]"],
  ["a string", '"text"'],
  ["a number", "42"],
  ["null", "null"],
  ["broken JSON", '{"a":'],
  ["an unknown key", '{"noSuchProperty": 1}'],
  ["wrongly typed values", '{"id": 5, "name": [], "engagementId": {}, "version": "x", "size": -1, "query": 3}'],
];

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());

function fill(path: string, id: string): string {
  return path.replace(/\{[^}]+\}/g, id);
}

async function send(method: string, path: string, body?: string) {
  const response = await fetch(`${server.url}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${server.token}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    ...(body !== undefined ? { body } : {}),
  });
  const text = await response.text();
  return { status: response.status, text, type: response.headers.get("content-type") ?? "" };
}

function expectHandled(route: string, response: { status: number; text: string; type: string }) {
  expect(response.status, `${route} -> ${response.status} ${response.text.slice(0, 300)}`).toBeLessThan(500);
  if (response.status >= 400) {
    expect(response.type, route).toContain("json");
    const body = JSON.parse(response.text);
    expect(body, route).toMatchObject({ status: response.status, type: expect.any(String), title: expect.any(String), problems: expect.any(Array) });
  }
}

describe("every route under hostile input", () => {
  const routes = routeTable.filter((r) => !r.upload);

  it("answers a malformed id and an id of nothing with a 4xx error body", async () => {
    expect(routes.length).toBeGreaterThan(50);
    for (const route of routes.filter((r) => r.path.includes("{"))) {
      for (const id of ["not-an-id", MISSING_ID]) {
        const body = route.method === "GET" || route.method === "DELETE" ? undefined : "{}";
        expectHandled(`${route.method} ${route.path} with id ${id}`, await send(route.method, fill(route.path, id), body));
      }
    }
  });

  it("answers bodies of the wrong shape with a 4xx error body", async () => {
    for (const route of routes.filter((r) => r.method === "POST" || r.method === "PUT")) {
      for (const [what, body] of BODIES) {
        expectHandled(`${route.method} ${route.path} with ${what}`, await send(route.method, fill(route.path, MISSING_ID), body));
      }
    }
  });

  it("refuses an unknown body key on every POST and PUT route with 400 naming it, bodiless action routes included", async () => {
    for (const route of routes.filter((r) => (r.method === "POST" || r.method === "PUT") && !r.bodyFile)) {
      const response = await send(route.method, fill(route.path, MISSING_ID), '{"noSuchProperty": 1}');
      const where = `${route.method} ${route.path} -> ${response.status} ${response.text.slice(0, 300)}`;
      expect(response.status, where).toBe(400);
      expect(JSON.parse(response.text).problems, where).toContainEqual(expect.objectContaining({ identifier: expect.stringContaining("noSuchProperty") }));
    }
  });

  it("answers nonsense paging on every query route with a 4xx error body", async () => {
    for (const route of routes.filter((r) => r.path.endsWith("/query"))) {
      for (const qs of ["?page=-1", "?size=abc", "?size=100000", "?sort=noSuchField,up"]) {
        const response = await send("POST", `${fill(route.path, MISSING_ID)}${qs}`, "{}");
        expectHandled(`POST ${route.path}${qs}`, response);
        expect(response.status, `POST ${route.path}${qs}`).toBeGreaterThanOrEqual(400);
      }
    }
  });
});
