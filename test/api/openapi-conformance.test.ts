import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { responseProblems } from "../helpers/openapi-validator.js";

// Issue 13 point 13: the committed OpenAPI document cannot drift from what the server sends. The
// test clients (test/helpers/client.ts, multipart.ts) validate every response they receive
// against it; these tests show the check catches what it must, and that the document describes
// the bodies of every route, the single-key action routes included.

type Operation = { requestBody?: { content: Record<string, { schema: Record<string, any> }> }; responses: Record<string, unknown> };
const document = JSON.parse(readFileSync(new URL("../../rest/openapi.json", import.meta.url), "utf8")) as { paths: Record<string, Record<string, Operation>> };
const JSON_TYPE = "application/json";

const organization = {
  id: "5cc9076887f13cb8a7a1926b",
  version: 0,
  creationDate: "2025-06-30T14:05:09.123Z",
  lastModifiedDate: "2025-06-30T14:05:09.123Z",
  createdUserInfo: { userId: "5cc9076887f13cb8a7a1926c", userName: "(API) robot" },
  lastModifiedUserInfo: { userId: "5cc9076887f13cb8a7a1926c", userName: "(API) robot" },
  name: "Acme",
  managerUserIds: [],
};

describe("response validation against rest/openapi.json", () => {
  it("accepts a body the document describes", () => {
    expect(responseProblems("GET", `/organizations/${organization.id}`, 200, JSON_TYPE, organization)).toEqual([]);
  });

  it("refuses a key the document does not show, a missing required key and a wrong type", () => {
    expect(responseProblems("GET", `/organizations/${organization.id}`, 200, JSON_TYPE, { ...organization, undocumented: 1 }).join()).toMatch(/additional properties/);
    const { name: _name, ...withoutName } = organization;
    expect(responseProblems("GET", `/organizations/${organization.id}`, 200, JSON_TYPE, withoutName).join()).toMatch(/must have required property 'name'/);
    expect(responseProblems("GET", `/organizations/${organization.id}`, 200, JSON_TYPE, { ...organization, version: "0" }).join()).toMatch(/\/version must be integer/);
    expect(responseProblems("GET", `/organizations/${organization.id}`, 200, JSON_TYPE, { ...organization, version: 0.5 }).join()).toMatch(/\/version must be integer/);
  });

  it("checks maps and lists inside JSON-typed fields (effective date metrics, localized text)", () => {
    const metrics = {
      analysisSourceId: organization.id,
      periodType: "MONTH",
      entriesInPeriod: 7,
      entriesOutOfPeriod: 2,
      debitsInPeriod: 134198,
      creditsInPeriod: 134198,
      inPeriodCountHistogram: { "2023-01": 7 },
      outOfPeriodCountHistogram: {},
      entriesWithoutValidDate: 0,
      metricDetails: {},
    };
    const path = `/analysis-sources/${organization.id}/effective-date-metrics`;
    expect(responseProblems("GET", path, 200, JSON_TYPE, metrics)).toEqual([]);
    // The shape the wire reference corrected away: a count wrapped in an object.
    expect(responseProblems("GET", path, 200, JSON_TYPE, { ...metrics, entriesInPeriod: { count: 7 } }).join()).toMatch(/entriesInPeriod must be integer/);
    expect(responseProblems("GET", path, 200, JSON_TYPE, { ...metrics, inPeriodCountHistogram: { "2023-01": "7" } }).join()).toMatch(/inPeriodCountHistogram\/2023-01 must be integer/);
  });

  it("validates error bodies of every status, documented or not, and refuses undocumented success", () => {
    const error = { type: "https://x/problems/conflict", title: "Conflict", status: 409, instance: "r1", origin: "/api/v1/organizations", problemCount: 1, problems: [{ problemType: "INVALID_STATE", severity: "ERROR", reason: "busy" }] };
    expect(responseProblems("POST", "/organizations", 409, JSON_TYPE, error)).toEqual([]);
    expect(responseProblems("POST", "/organizations", 409, JSON_TYPE, { ...error, problems: [{ problemType: "BUSY", severity: "ERROR", reason: "busy" }] }).join()).toMatch(/problemType must be equal to one of the allowed values/);
    expect(responseProblems("GET", "/no-such-endpoint", 404, JSON_TYPE, { ...error, status: 404 })).toEqual([]);
    expect(responseProblems("GET", "/no-such-endpoint", 200, JSON_TYPE, {}).join()).toMatch(/no operation of the document/);
    expect(responseProblems("DELETE", `/organizations/${organization.id}`, 204, null, undefined)).toEqual([]);
    expect(responseProblems("DELETE", `/organizations/${organization.id}`, 204, JSON_TYPE, { id: organization.id }).join()).toMatch(/shows no body/);
  });

  it("compiles the response schema of every operation under strict JSON Schema rules", () => {
    let operations = 0;
    for (const [template, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const path = template.replace(/\{\w+\}/g, organization.id);
        for (const status of Object.keys(operation.responses).filter((s) => s !== "default")) {
          // The body is irrelevant here: compiling the schema (strict mode) must not throw.
          expect(() => responseProblems(method.toUpperCase(), path, Number(status), JSON_TYPE, null), `${method} ${template} ${status}`).not.toThrow();
        }
        operations++;
      }
    }
    expect(operations).toBeGreaterThan(100);
  });

  it("describes the bodies of the routes taking single keys", () => {
    const bodies: Array<[string, string[]]> = [
      ["/account-mappings/verify", ["engagementId"]],
      ["/account-mappings/delete-unused", ["engagementId"]],
      ["/account-mappings/export", ["engagementId"]],
      ["/account-groupings/{accountGroupingId}/append-from-chunked-file", ["chunkedFileId"]],
    ];
    for (const [path, keys] of bodies) {
      const schema = document.paths[path].post.requestBody?.content[JSON_TYPE].schema;
      expect(schema, path).toMatchObject({ type: "object", additionalProperties: false, required: keys });
      expect(Object.keys(schema!.properties), path).toEqual(keys);
    }
    // Every POST and PUT documents its body; one without arguments in the body takes `{}` exactly.
    const missing = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([method, operation]) => (method === "put" || method === "post") && !operation.requestBody)
        .map(([method]) => `${method} ${path}`),
    );
    expect(missing).toEqual([]);
    expect(document.paths["/analyses/{analysisId}/run"].post.requestBody?.content[JSON_TYPE].schema).toEqual({ type: "object", additionalProperties: false, properties: {} });
  });
});
