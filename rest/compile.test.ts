import { print } from "graphql";
import { describe, expect, it } from "vitest";
import { tinySchema } from "../test/helpers/tiny-schema.js";
import { compileRoute, compileRoutes } from "./compile.js";
import { crudRoutes, route, type RouteDef } from "./route-helpers.js";

const schema = tinySchema();
const base = { summary: "s", tag: "t" };

describe("compileRoute", () => {
  it("builds the document once: variables from the arguments, the read-model selection, a valid operation", () => {
    const compiled = compileRoute(schema, route({ method: "GET", path: "/engagements/{id}", operation: "query", field: "engagement", ...base }));
    expect(print(compiled.document)).toContain("query GET__engagements_id_($id: ID!)");
    expect(print(compiled.document)).toContain("engagement(id: $id)");
    expect(compiled.variables).toEqual([{ name: "id", type: expect.anything(), source: { from: "path", name: "id" }, readType: undefined }]);
    expect(compiled.pathParams).toEqual(["id"]);
    expect(compiled.status).toBe(200);
  });

  it("matches its path with or without a trailing slash, one segment per parameter", () => {
    const { pattern } = compileRoute(schema, route({ method: "GET", path: "/engagements/{id}", operation: "query", field: "engagement", ...base }));
    expect(pattern.exec("/engagements/abc")?.[1]).toBe("abc");
    expect(pattern.test("/engagements/abc/")).toBe(true);
    expect(pattern.test("/engagements/abc/def")).toBe(false);
    expect(pattern.test("/engagements")).toBe(false);
  });

  it("takes the permission from the root field's authScopes, the first of a list being the documented one", () => {
    const single = compileRoute(schema, route({ method: "GET", path: "/engagements/{id}", operation: "query", field: "engagement", ...base }));
    expect([single.permission, single.acceptedPermissions]).toEqual(["api.engagements.read", ["api.engagements.read"]]);
    const listed = compileRoute(schema, route({ method: "GET", path: "/entries/{id}", operation: "query", field: "entry", ...base }));
    expect([listed.permission, listed.acceptedPermissions]).toEqual(["api.file-manager.read", ["api.file-manager.read", "api.files.read"]]);
  });

  it("checks an input against the read model of the route, merging a union's possible types", () => {
    const compiled = compileRoute(schema, route({ method: "PUT", path: "/entries/{id}", operation: "mutation", field: "updateEntry", args: { input: { from: "body" } }, ...base }));
    const input = compiled.variables.find((v) => v.name === "input")!;
    expect(Object.keys((input.readType as any).getFields()).sort()).toEqual(["id", "name", "size", "version"]);
  });

  it("refuses, at start-up, routes that do not fit the schema", () => {
    expect(() => compileRoute(schema, route({ method: "GET", path: "/x/{id}", operation: "query", field: "nothing", ...base }))).toThrow("query field nothing does not exist");
    expect(() => compileRoute(schema, route({ method: "GET", path: "/x", operation: "query", field: "engagement", ...base }))).toThrow("required argument id of engagement has no source");
    expect(() => compileRoute(schema, route({ method: "GET", path: "/x/{id}", operation: "query", field: "engagement", args: { other: { from: "body" } }, ...base }))).toThrow("engagement has no argument other");
    expect(() => compileRoute(schema, route({ method: "GET", path: "/open", operation: "query", field: "open", ...base }))).toThrow("declares no permission");
    expect(() => compileRoute(schema, route({ method: "GET", path: "/x/{id}", operation: "query", field: "engagement", readModel: "Nope", ...base }))).toThrow("read model Nope");
  });
});

describe("compileRoutes", () => {
  const literal: RouteDef = route({ method: "GET", path: "/engagements/current", operation: "query", field: "engagement", args: { id: { from: "value", value: "me" } }, ...base });
  const param: RouteDef = route({ method: "GET", path: "/engagements/{id}", operation: "query", field: "engagement", ...base });

  it("orders literal paths before parameterised ones, whatever order they are listed in", () => {
    expect(compileRoutes(schema, [param, literal]).map((r) => r.path)).toEqual(["/engagements/current", "/engagements/{id}"]);
  });

  it("refuses the same method and path twice", () => {
    expect(() => compileRoutes(schema, [param, param])).toThrow("GET /engagements/{id} is defined twice");
  });

  it("crudRoutes describes the standard endpoint model (spec 4.1) of one entity", () => {
    const routes = crudRoutes({ resource: "engagements", idParam: "engagementId", entity: "Engagement", tag: "Engagements" });
    expect(routes.map((r) => `${r.method} ${r.path} ${r.field} ${r.status ?? 200}`)).toEqual([
      "POST /engagements createEngagement 200",
      "GET /engagements/{engagementId} engagement 200",
      "PUT /engagements/{engagementId} updateEngagement 200",
      "DELETE /engagements/{engagementId} deleteEngagement 204",
      "POST /engagements/query engagements 200",
    ]);
    expect(crudRoutes({ resource: "x", idParam: "id", entity: "Thing", tag: "T", ops: ["read"] }).map((r) => r.field)).toEqual(["thing"]);
  });
});
