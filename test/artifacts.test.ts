import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { renderOpenApi, renderSdl } from "../scripts/print-artifacts.js";
import { CONFIG_VARIABLES } from "../src/config.js";

// The SDL and the OpenAPI document are committed so clients can read them without running the
// server; they must match the code. `npm run generate` rewrites both.
describe("committed artifacts", () => {
  it("schema/schema.graphql matches the schema built from the modules", () => {
    expect(readFileSync(new URL("../schema/schema.graphql", import.meta.url), "utf8"), "schema/schema.graphql is stale: run npm run generate").toBe(renderSdl());
  });

  it("rest/openapi.json matches the route table", () => {
    expect(readFileSync(new URL("../rest/openapi.json", import.meta.url), "utf8"), "rest/openapi.json is stale: run npm run generate").toBe(renderOpenApi());
  });

  it("rest/openapi.json gives every operation its own operationId (OpenAPI requires them unique)", () => {
    const document = JSON.parse(renderOpenApi()) as { paths: Record<string, Record<string, { operationId: string }>> };
    const ids = Object.values(document.paths).flatMap((operations) => Object.values(operations).map((o) => o.operationId));
    expect(ids.length).toBeGreaterThan(100);
    expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
  });

  it("README documents every configuration variable", () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    expect(CONFIG_VARIABLES.map((v) => v.name).filter((name) => !readme.includes(`\`${name}\``))).toEqual([]);
  });
});
