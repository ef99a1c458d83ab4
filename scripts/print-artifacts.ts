// Writes the committed artifacts derived from code: the GraphQL SDL and the OpenAPI document.
// test/artifacts.test.ts fails when either is stale; run `npm run generate` to refresh them.
import { writeFileSync } from "node:fs";
import { printSchema } from "graphql";
import { schema } from "../schema/index.js";
import { routeTable } from "../rest/routes.js";
import { compileRoutes } from "../rest/compile.js";
import { buildOpenApi } from "../rest/openapi.js";

export function renderSdl(): string {
  return printSchema(schema) + "\n";
}

export function renderOpenApi(): string {
  return JSON.stringify(buildOpenApi(schema, compileRoutes(schema, routeTable)), null, 2) + "\n";
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(new URL("../schema/schema.graphql", import.meta.url), renderSdl());
  writeFileSync(new URL("../rest/openapi.json", import.meta.url), renderOpenApi());
  process.stdout.write("wrote schema/schema.graphql and rest/openapi.json\n");
}
