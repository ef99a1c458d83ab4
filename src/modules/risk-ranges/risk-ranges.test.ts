import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { ANALYSIS_TYPE_IDS, SYSTEM_LIBRARY_IDS } from "../catalogue/ids.js";
import { riskRangeProblems } from "./risk-range.rules.js";

let server: TestServer;
let libraryId: string;
let engagementId: string;
beforeAll(async () => {
  server = await startTestServer();
  libraryId = (await server.api.post("/libraries", { name: "Ranges", basedOnLibraryId: SYSTEM_LIBRARY_IDS.PLATFORM_FOR_PROFIT })).body.id;
  const organizationId = (await server.api.post("/organizations", { name: "Ranged" })).body.id;
  engagementId = (await server.api.post("/engagements", { organizationId, name: "Ranged", libraryId, accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" } })).body.id;
});
afterAll(async () => server?.close());

const GL = ANALYSIS_TYPE_IDS.GENERAL_LEDGER;
const BOUNDS = {
  low: { lowThreshold: 0, highThreshold: 2500 },
  medium: { lowThreshold: 2500, highThreshold: 5000 },
  high: { lowThreshold: 5000, highThreshold: 10000 },
};
const body = (extra: Record<string, unknown> = {}) => ({ name: "Tight", description: "For risky clients", analysisTypeId: GL, libraryId, ...BOUNDS, ...extra });

describe("risk range bounds (unit)", () => {
  it("accepts ordered, touching bounds and names each violated bound", () => {
    expect(riskRangeProblems(BOUNDS)).toEqual([]);
    expect(riskRangeProblems({ ...BOUNDS, high: { lowThreshold: 5000, highThreshold: 10001 } }).map((p) => [p.identifier, p.problemType])).toEqual([["high.highThreshold", "LESS_VALUE_REQUIRED"]]);
    expect(riskRangeProblems({ ...BOUNDS, low: { lowThreshold: -1, highThreshold: 2500 } }).map((p) => [p.identifier, p.problemType])).toEqual([["low.lowThreshold", "GREATER_VALUE_REQUIRED"]]);
    expect(riskRangeProblems({ ...BOUNDS, medium: { lowThreshold: 2500, highThreshold: 2500 } }).map((p) => p.identifier)).toEqual(["medium.highThreshold"]);
    expect(riskRangeProblems({ ...BOUNDS, medium: { lowThreshold: 2000, highThreshold: 5000 } }).map((p) => [p.identifier, p.problemType])).toEqual([["medium.lowThreshold", "GREATER_VALUE_REQUIRED"]]);
  });
});

describe("risk ranges REST", () => {
  it("creates in a library, reads back, updates and deletes", async () => {
    const created = await server.api.post("/risk-ranges", body());
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ ...BOUNDS, name: "Tight", description: "For risky clients", analysisTypeId: GL, libraryId, system: false, version: 0 });
    expect(created.body.engagementId).toBeUndefined();
    expect((await server.api.get(`/risk-ranges/${created.body.id}`)).body).toEqual(created.body);

    const updated = await server.api.put(`/risk-ranges/${created.body.id}`, { ...created.body, name: "Tighter", high: { lowThreshold: 6000, highThreshold: 10000 } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: "Tighter", high: { lowThreshold: 6000, highThreshold: 10000 }, low: BOUNDS.low, version: 1 });
    const stale = await server.api.put(`/risk-ranges/${created.body.id}`, { ...created.body });
    expect(stale.status).toBe(409);

    expect((await server.api.delete(`/risk-ranges/${created.body.id}`)).status).toBe(204);
    expect((await server.api.get(`/risk-ranges/${created.body.id}`)).status).toBe(404);
    expect((await server.api.delete(`/risk-ranges/${created.body.id}`)).status).toBe(404);
  });

  it("creates in an engagement scope", async () => {
    const created = await server.api.post("/risk-ranges", body({ libraryId: undefined, engagementId }));
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ engagementId, system: false });
    expect(created.body.libraryId).toBeUndefined();
  });

  it("refuses thresholds outside 0..10000, unordered or overlapping bounds, naming the bound", async () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ high: { lowThreshold: 5000, highThreshold: 10001 } }, "high.highThreshold", "LESS_VALUE_REQUIRED"],
      [{ low: { lowThreshold: -5, highThreshold: 2500 } }, "low.lowThreshold", "GREATER_VALUE_REQUIRED"],
      [{ low: { lowThreshold: 2500, highThreshold: 1000 } }, "low.highThreshold", "GREATER_VALUE_REQUIRED"],
      [{ medium: { lowThreshold: 2000, highThreshold: 5000 } }, "medium.lowThreshold", "GREATER_VALUE_REQUIRED"],
      [{ high: { lowThreshold: 4000, highThreshold: 10000 } }, "high.lowThreshold", "GREATER_VALUE_REQUIRED"],
    ];
    for (const [override, identifier, problemType] of cases) {
      const response = await server.api.post("/risk-ranges", body(override));
      expect(response.status, identifier).toBe(400);
      expect(response.body.problems[0], identifier).toMatchObject({ identifier, problemType });
    }
    const fraction = await server.api.post("/risk-ranges", body({ low: { lowThreshold: 0.5, highThreshold: 2500 } }));
    expect(fraction.status).toBe(400);
    expect(fraction.body.problems[0]).toMatchObject({ identifier: "low.lowThreshold", problemType: "INCORRECT_DATA_TYPE" });
    const missing = await server.api.post("/risk-ranges", body({ medium: undefined }));
    expect(missing.body.problems[0].identifier).toBe("medium");
  });

  it("checks the scope: exactly one of library and engagement, known, not a system library, type offered", async () => {
    const both = await server.api.post("/risk-ranges", body({ engagementId }));
    expect(both.status).toBe(400);
    const neither = await server.api.post("/risk-ranges", body({ libraryId: undefined }));
    expect(neither.status).toBe(400);
    expect(neither.body.problems[0].identifier).toBe("libraryId");
    const unknown = await server.api.post("/risk-ranges", body({ libraryId: "5cc9076887f13cb8a7a1aaaa" }));
    expect(unknown.body.problems[0]).toMatchObject({ identifier: "libraryId", values: ["5cc9076887f13cb8a7a1aaaa"] });
    const system = await server.api.post("/risk-ranges", body({ libraryId: SYSTEM_LIBRARY_IDS.PLATFORM_FOR_PROFIT }));
    expect(system.status).toBe(409);
    const otherType = await server.api.post("/risk-ranges", body({ analysisTypeId: ANALYSIS_TYPE_IDS.NOT_FOR_PROFIT_GENERAL_LEDGER_FUND }));
    expect(otherType.status).toBe(400);
    expect(otherType.body.problems[0].identifier).toBe("analysisTypeId");
  });

  it("keeps system risk ranges read-only", async () => {
    const [system] = (await server.api.post("/risk-ranges/query", { system: true, libraryId: SYSTEM_LIBRARY_IDS.PLATFORM_FOR_PROFIT, analysisTypeId: GL })).body.content;
    expect(system).toMatchObject({ system: true, name: "Default" });
    expect((await server.api.put(`/risk-ranges/${system.id}`, { ...system, name: "Mine" })).status).toBe(409);
    expect((await server.api.delete(`/risk-ranges/${system.id}`)).status).toBe(409);
  });

  it("refuses engagement-level changes when the library does not allow risk range edits", async () => {
    const locked = (await server.api.post("/libraries", { name: "No range edits", basedOnLibraryId: libraryId, riskRangeEditPermission: false })).body;
    const organizationId = (await server.api.post("/organizations", { name: "Locked" })).body.id;
    const engagement = (await server.api.post("/engagements", { organizationId, name: "Locked", libraryId: locked.id, accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" } })).body;
    const refused = await server.api.post("/risk-ranges", body({ libraryId: undefined, engagementId: engagement.id }));
    expect(refused.status).toBe(403);
    expect(refused.body.problems[0].problemType).toBe("INSUFFICIENT_PERMISSION");
  });

  it("needs the risk-ranges permissions", async () => {
    const token = await server.api.post("/api-tokens", { name: "range reader", permissions: ["api.risk-ranges.read"] });
    const reader = server.api.withToken(token.body.token);
    expect((await reader.post("/risk-ranges/query", {})).status).toBe(200);
    expect((await reader.post("/risk-ranges", body())).body.problems[0].values).toEqual(["api.risk-ranges.write"]);
  });

  it("queries by scope and analysis type", async () => {
    const page = (await server.api.post("/risk-ranges/query", { $and: [{ libraryId }, { analysisTypeId: GL }] })).body;
    expect(page.content.every((r: { libraryId: string; analysisTypeId: string }) => r.libraryId === libraryId && r.analysisTypeId === GL)).toBe(true);
    expect(page.totalElements).toBeGreaterThanOrEqual(1);
    const byName = (await server.api.post("/risk-ranges/query", { name: { $iprefix: "DEFAULT" }, engagementId })).body;
    expect(byName.totalElements).toBe(3);
  });
});

describe("risk ranges over GraphQL", () => {
  it("creates and reads", async () => {
    const created = await server.gql(`mutation($input: CreateRiskRangeInput!) { createRiskRange(input: $input) { id low { lowThreshold highThreshold } system } }`, { input: body({ name: "Graph range" }) });
    expect(created.body.errors).toBeUndefined();
    expect(created.body.data.createRiskRange).toMatchObject({ low: BOUNDS.low, system: false });
    const bad = await server.gql(`mutation($input: CreateRiskRangeInput!) { createRiskRange(input: $input) { id } }`, { input: body({ high: { lowThreshold: 5000, highThreshold: 20000 } }) });
    expect(bad.body.errors?.[0].extensions).toMatchObject({ code: "VALIDATION", problems: [{ identifier: "high.highThreshold", problemType: "LESS_VALUE_REQUIRED" }] });
  });
});
