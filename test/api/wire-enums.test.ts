import { existsSync, readFileSync } from "node:fs";
import { getNamedType, isEnumType, isObjectType } from "graphql";
import { describe, expect, it } from "vitest";
import { schema } from "../../schema/index.js";
import { WIRE_ENUMS } from "../fixtures/wire-enums.js";

// Issue 13 point 8: every enumeration of the wire reference is published, value for value, in the
// GraphQL schema and the OpenAPI document a typed client is generated from (a client must be able
// to read every value the API can name, e.g. the off-path workflow states).

type Schema = { enum?: string[]; items?: Schema; $ref?: string; properties?: Record<string, Schema>; anyOf?: Schema[] };
const document = JSON.parse(readFileSync(new URL("../../rest/openapi.json", import.meta.url), "utf8")) as { components: { schemas: Record<string, Schema> } };
const components = document.components.schemas;
const sorted = (values: readonly string[]) => [...values].sort();

describe("wire reference enumerations", () => {
  for (const entry of WIRE_ENUMS) {
    it(`${entry.wire}: the same values in GraphQL and OpenAPI`, () => {
      if (entry.graphql) {
        const type = schema.getType(entry.graphql);
        if (!type) expect(entry.pending, `GraphQL enum ${entry.graphql} is not published`).toBeDefined();
        else {
          expect(isEnumType(type), `${entry.graphql} is not an enum`).toBe(true);
          if (isEnumType(type)) expect(sorted(type.getValues().map((v) => v.name))).toEqual(sorted(entry.values));
        }
      }
      if (entry.openapi) {
        const component = components[entry.openapi];
        if (!component) expect(entry.pending, `OpenAPI component ${entry.openapi} is not published`).toBeDefined();
        else expect(sorted(component.enum ?? [])).toEqual(sorted(entry.values));
      }
      // An enum of a family not built yet must say so; a built one must be published in both.
      if (!entry.pending) expect(entry.openapi).not.toBeNull();
    });
  }

  // Fields carry those enums (not bare strings), in both descriptions.
  const bindings: Array<[string, string, string]> = [
    ["AnalysisSource", "workflowState", "AnalysisSourceWorkflowState"],
    ["AnalysisSource", "targetWorkflowState", "AnalysisSourceWorkflowState"],
    ["AnalysisSourceStatus", "status", "SourceStatus"],
    ["AnalysisStatus", "status", "AnalysisRunStatus"],
    ["AnalysisStatus", "preflightErrors", "PreflightError"],
    ["TransactionIdPreview", "overallRating", "PreviewRating"],
    ["TransactionIdPreview", "type", "TransactionIdType"],
    ["AsyncResult", "status", "AsyncStatus"],
    ["AsyncResult", "type", "AsyncResultType"],
    ["AsyncResult", "entityType", "AsyncEntityType"],
    ["Problem", "problemType", "ProblemType"],
    ["Problem", "severity", "Severity"],
    ["Library", "riskScoreDisplay", "RiskScoreDisplay"],
    ["AccountMapping", "status", "AccountMappingStatus"],
    ["ColumnMapping", "mappingType", "ColumnMappingType"],
    ["User", "role", "Role"],
  ];
  it.each(bindings)("%s.%s is the %s enum", (typeName, field, enumName) => {
    const type = schema.getType(typeName);
    expect(type && isObjectType(type), typeName).toBe(true);
    if (!type || !isObjectType(type)) return;
    expect(getNamedType(type.getFields()[field].type).name).toBe(enumName);
    const property = components[typeName].properties![field];
    const ref = property.$ref ?? property.items?.$ref;
    expect(ref).toBe(`#/components/schemas/${enumName}`);
  });

  it("token permissions are the Permission enum in OpenAPI (GraphQL enum values cannot hold dots)", () => {
    for (const typeName of ["ApiToken", "CreatedApiToken", "CreateApiTokenInput"]) {
      expect(components[typeName].properties!.permissions.items!.$ref, typeName).toBe("#/components/schemas/Permission");
    }
  });

  it("the transcription in test/fixtures/wire-enums.ts matches the wire reference (when the reference is at hand)", (context) => {
    const candidates = [process.env.WIRE_REFERENCE, "../shared/spec/wire-reference.md", "../../shared/spec/wire-reference.md", "/work/shared/spec/wire-reference.md"].filter(Boolean) as string[];
    const path = candidates.map((p) => new URL(p, new URL("../../", import.meta.url)).pathname).find((p) => existsSync(p));
    if (!path) return context.skip();
    const text = readFileSync(path, "utf8");
    const section = text.slice(text.indexOf("## 7. Enums"), text.indexOf("## 8."));
    let compared = 0;
    for (const line of section.split("\n")) {
      const match = /^\| ([^|:]+)(?::[^|]*)? \| ([A-Z0-9_, ]+) \|$/.exec(line.trim());
      if (!match) continue;
      const entry = WIRE_ENUMS.find((e) => e.wire === match[1].trim());
      expect(entry, `wire reference enum ${match[1]} is not in test/fixtures/wire-enums.ts`).toBeDefined();
      expect(sorted(entry!.values), entry!.wire).toEqual(sorted(match[2].split(",").map((v) => v.trim())));
      compared++;
    }
    expect(compared).toBeGreaterThan(35);
  });
});
