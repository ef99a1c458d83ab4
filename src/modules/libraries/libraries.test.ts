import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { ANALYSIS_TYPE_IDS, SYSTEM_ACCOUNT_GROUPING_ID, SYSTEM_LIBRARY_IDS } from "../catalogue/ids.js";

let server: TestServer;
let organizationId: string;
beforeAll(async () => {
  server = await startTestServer();
  organizationId = (await server.api.post("/organizations", { name: "Library users" })).body.id;
});
afterAll(async () => server?.close());

const FOR_PROFIT = SYSTEM_LIBRARY_IDS.PLATFORM_FOR_PROFIT;
const GL = ANALYSIS_TYPE_IDS.GENERAL_LEDGER;
let counter = 0;
const uniqueName = (prefix: string) => `${prefix} ${++counter}`;

async function createLibrary(body: Record<string, unknown> = {}) {
  const response = await server.api.post("/libraries", { name: uniqueName("Library"), basedOnLibraryId: FOR_PROFIT, ...body });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

async function configurationsOf(scope: Record<string, string>) {
  return (await server.api.post("/analysis-type-configuration/query?size=50", scope)).body.content;
}

async function riskRangesOf(scope: Record<string, string>) {
  return (await server.api.post("/risk-ranges/query?size=50", scope)).body.content;
}

async function createEngagement(libraryId: string) {
  const response = await server.api.post("/engagements", {
    organizationId,
    name: uniqueName("Engagement"),
    libraryId,
    accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" },
  });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

describe("libraries REST", () => {
  it("creates from a base library, copying its settings, permissions, risk ranges and configurations", async () => {
    const base = (await server.api.get(`/libraries/${FOR_PROFIT}`)).body;
    const library = await createLibrary({ name: "Audit firm standard" });
    expect(library).toMatchObject({
      name: "Audit firm standard",
      basedOnLibraryId: FOR_PROFIT,
      originalSystemLibraryId: FOR_PROFIT,
      accountGroupingId: SYSTEM_ACCOUNT_GROUPING_ID,
      analysisTypeIds: base.analysisTypeIds,
      archived: false,
      system: false,
      riskScoreDisplay: base.riskScoreDisplay,
      defaultDelimiter: base.defaultDelimiter,
      controlPointWeightPermission: true,
      riskRangeEditPermission: true,
      conversionWarnings: [],
      version: 0,
    });
    expect((await server.api.get(`/libraries/${library.id}`)).body).toEqual(library);

    const ranges = await riskRangesOf({ libraryId: library.id });
    const baseRanges = await riskRangesOf({ libraryId: FOR_PROFIT });
    expect(ranges).toHaveLength(baseRanges.length);
    expect(ranges.every((r: { system: boolean }) => !r.system)).toBe(true);
    const configurations = await configurationsOf({ libraryId: library.id });
    const baseConfigurations = await configurationsOf({ libraryId: FOR_PROFIT });
    expect(configurations.map((c: { analysisTypeId: string }) => c.analysisTypeId).sort()).toEqual(baseConfigurations.map((c: { analysisTypeId: string }) => c.analysisTypeId).sort());
    for (const configuration of configurations) {
      expect(configuration).toMatchObject({ template: true, system: true, libraryId: library.id });
      const original = baseConfigurations.find((c: { analysisTypeId: string }) => c.analysisTypeId === configuration.analysisTypeId);
      expect(configuration.configuration.riskGroups.map((g: { controlPointWeights: unknown }) => g.controlPointWeights)).toEqual(
        original.configuration.riskGroups.map((g: { controlPointWeights: unknown }) => g.controlPointWeights),
      );
      // The copy selects the new library's own risk range of its type, not the base's.
      const selected = configuration.configuration.riskGroups[0].selectedRiskRange;
      expect(ranges.find((r: { id: string }) => r.id === selected)).toMatchObject({ analysisTypeId: configuration.analysisTypeId, libraryId: library.id });
    }
  });

  it("takes settings given at creation over the base's, and records the system library it descends from", async () => {
    const parent = await createLibrary({ riskScoreDisplay: "PERCENTAGE", controlPointWeightPermission: false, defaultDelimiter: "." });
    expect(parent).toMatchObject({ riskScoreDisplay: "PERCENTAGE", controlPointWeightPermission: false, defaultDelimiter: "." });
    const child = await createLibrary({ basedOnLibraryId: parent.id });
    expect(child).toMatchObject({ basedOnLibraryId: parent.id, originalSystemLibraryId: FOR_PROFIT, riskScoreDisplay: "PERCENTAGE", controlPointWeightPermission: false, defaultDelimiter: "." });
  });

  it("copies configurations as of that moment: later edits of the base do not reach the copy", async () => {
    const base = await createLibrary();
    const [baseConfig] = await configurationsOf({ libraryId: base.id, analysisTypeId: GL });
    const group = baseConfig.configuration.riskGroups[0];
    const edited = await server.api.put(`/analysis-type-configuration/${baseConfig.id}`, { ...baseConfig, configuration: { riskGroups: [{ id: group.id, controlPointWeights: { journal_entry_last_3_digits: 90 } }] } });
    expect(edited.status).toBe(200);
    const copy = await createLibrary({ basedOnLibraryId: base.id });
    const [copyConfig] = await configurationsOf({ libraryId: copy.id, analysisTypeId: GL });
    expect(copyConfig.configuration.riskGroups[0].controlPointWeights.journal_entry_last_3_digits).toBe(90);
    expect(copyConfig.system).toBe(false);
    const again = await server.api.put(`/analysis-type-configuration/${baseConfig.id}`, { configuration: { riskGroups: [{ id: group.id, controlPointWeights: { journal_entry_last_3_digits: 10 } }] }, version: edited.body.version });
    expect(again.status).toBe(200);
    const [unchanged] = await configurationsOf({ libraryId: copy.id, analysisTypeId: GL });
    expect(unchanged.configuration.riskGroups[0].controlPointWeights.journal_entry_last_3_digits).toBe(90);
  });

  it("gives an analysis type the base lacks the system default configuration and risk range", async () => {
    const npo = ANALYSIS_TYPE_IDS.NOT_FOR_PROFIT_GENERAL_LEDGER;
    const library = await createLibrary({ analysisTypeIds: [GL, npo] });
    expect(library.analysisTypeIds).toEqual([GL, npo]);
    const [configuration] = await configurationsOf({ libraryId: library.id, analysisTypeId: npo });
    expect(configuration).toMatchObject({ system: true, template: true });
    const [range] = await riskRangesOf({ libraryId: library.id, analysisTypeId: npo });
    expect(range).toMatchObject({ low: { lowThreshold: 0, highThreshold: 3000 }, medium: { lowThreshold: 3000, highThreshold: 5000 }, high: { lowThreshold: 5000, highThreshold: 10000 } });
    expect(configuration.configuration.riskGroups.every((g: { selectedRiskRange: string }) => g.selectedRiskRange === range.id)).toBe(true);
    expect(await configurationsOf({ libraryId: library.id, analysisTypeId: ANALYSIS_TYPE_IDS.ACCOUNTS_PAYABLE_V2 })).toEqual([]);
  });

  it("converts settings when the account grouping changes, and only when asked to", async () => {
    const otherGrouping = "5cc9076887f13cb8a7a1aaaa";
    const refused = await server.api.post("/libraries", { name: uniqueName("Other grouping"), basedOnLibraryId: FOR_PROFIT, accountGroupingId: otherGrouping });
    expect(refused.status).toBe(400);
    expect(refused.body.problems[0].identifier).toBe("convertSettings");
    const converted = await createLibrary({ accountGroupingId: otherGrouping, convertSettings: true });
    expect(converted.accountGroupingId).toBe(otherGrouping);
    // Problem objects, as in the error body's problems (wire reference 8).
    expect(converted.conversionWarnings).toEqual([
      {
        problemType: "FILTER_CONVERSION_FAILED",
        severity: "WARNING",
        identifier: "accountGroupingId",
        reason: expect.stringContaining("risk group account filters were reset"),
        values: [expect.stringMatching(/^[0-9a-f]{24}$/)],
        entityType: "ACCOUNT_GROUPING",
        entityId: otherGrouping,
      },
    ]);
    const [configuration] = await configurationsOf({ libraryId: converted.id, analysisTypeId: GL });
    expect(configuration.configuration.riskGroups.every((g: { filter: { values: string[] } }) => g.filter.values.length === 0)).toBe(true);
  });

  it("validates the create body", async () => {
    const noBase = await server.api.post("/libraries", { name: uniqueName("x") });
    expect(noBase.status).toBe(400);
    expect(noBase.body.problems[0].identifier).toBe("basedOnLibraryId");
    const unknownBase = await server.api.post("/libraries", { name: uniqueName("x"), basedOnLibraryId: "5cc9076887f13cb8a7a1aaaa" });
    expect(unknownBase.status).toBe(400);
    expect(unknownBase.body.problems[0]).toMatchObject({ identifier: "basedOnLibraryId", values: ["5cc9076887f13cb8a7a1aaaa"] });
    const badType = await server.api.post("/libraries", { name: uniqueName("x"), basedOnLibraryId: FOR_PROFIT, analysisTypeIds: [GL, "4b8360d000000000000000ff"] });
    expect(badType.status).toBe(400);
    expect(badType.body.problems[0].identifier).toBe("analysisTypeIds[1]");
    const empty = await server.api.post("/libraries", { name: uniqueName("x"), basedOnLibraryId: FOR_PROFIT, analysisTypeIds: [] });
    expect(empty.status).toBe(400);
    expect(empty.body.problems[0].identifier).toBe("analysisTypeIds");
    const unknownKey = await server.api.post("/libraries", { name: uniqueName("x"), basedOnLibraryId: FOR_PROFIT, industryTags: ["retail"] });
    expect(unknownKey.status).toBe(400);
    expect(unknownKey.body.problems[0].identifier).toBe("industryTags");
    const badEnum = await server.api.post("/libraries", { name: uniqueName("x"), basedOnLibraryId: FOR_PROFIT, riskScoreDisplay: "STARS" });
    expect(badEnum.status).toBe(400);
    expect(badEnum.body.problems[0].identifier).toBe("riskScoreDisplay");
  });

  it("refuses a duplicate name (any case) with 409", async () => {
    await createLibrary({ name: "Unique Library Name" });
    const clash = await server.api.post("/libraries", { name: "unique library name", basedOnLibraryId: FOR_PROFIT });
    expect(clash.status).toBe(409);
    expect(clash.body.problems[0]).toMatchObject({ problemType: "NON_UNIQUE_VALUE", identifier: "name" });
  });

  it("accepts a read body sent back as a create body (read-only keys ignored)", async () => {
    const library = await createLibrary();
    const copy = await server.api.post("/libraries", { ...library, name: uniqueName("Round trip"), basedOnLibraryId: library.id });
    expect(copy.status).toBe(200);
    expect(copy.body).toMatchObject({ basedOnLibraryId: library.id, system: false, originalSystemLibraryId: FOR_PROFIT });
  });

  it("adds and removes analysis types on a library in use: engagements keep their copies and gain the added types", async () => {
    const library = await createLibrary();
    const engagement = await createEngagement(library.id);
    const engagementConfigs = await configurationsOf({ engagementId: engagement.id });
    expect(engagementConfigs).toHaveLength(3);

    const ap = ANALYSIS_TYPE_IDS.ACCOUNTS_PAYABLE_V2;
    const npo = ANALYSIS_TYPE_IDS.NOT_FOR_PROFIT_GENERAL_LEDGER;
    const types = [GL, ANALYSIS_TYPE_IDS.ACCOUNTS_RECEIVABLE_V2, npo];
    const updated = await server.api.put(`/libraries/${library.id}`, { ...library, analysisTypeIds: types });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ analysisTypeIds: types, version: 1 });
    expect((await configurationsOf({ libraryId: library.id })).map((c: { analysisTypeId: string }) => c.analysisTypeId).sort()).toEqual([...types].sort());
    expect(await riskRangesOf({ libraryId: library.id, analysisTypeId: ap })).toEqual([]);
    expect(await riskRangesOf({ libraryId: library.id, analysisTypeId: npo })).toHaveLength(1);

    // The engagement keeps its copies (AP included) and gets one of the added type, with its risk range.
    const after = await configurationsOf({ engagementId: engagement.id });
    expect(after.filter((c: { analysisTypeId: string }) => c.analysisTypeId !== npo)).toEqual(engagementConfigs);
    const added = after.filter((c: { analysisTypeId: string }) => c.analysisTypeId === npo);
    expect(added).toHaveLength(1);
    const [range] = await riskRangesOf({ engagementId: engagement.id, analysisTypeId: npo });
    expect(range).toBeDefined();
    expect(JSON.stringify(added[0].configuration)).toContain(range.id);
    // ...so its analyses can be of that type.
    const period = { startDate: "2025-01-01", endDate: "2025-12-31" };
    const analysis = await server.api.post("/analyses", { engagementId: engagement.id, analysisTypeId: npo, name: "NPO FY2025", analysisPeriods: [period] });
    expect(analysis.status, JSON.stringify(analysis.body)).toBe(200);

    // Removed and added again: the engagement's copy is the one it had, not a second one.
    const removed = await server.api.put(`/libraries/${library.id}`, { ...updated.body, analysisTypeIds: [GL] });
    expect(removed.status).toBe(200);
    expect((await server.api.put(`/libraries/${library.id}`, { ...removed.body, analysisTypeIds: [GL, npo] })).status).toBe(200);
    expect(await configurationsOf({ engagementId: engagement.id })).toEqual(after);
  });

  it("updates settings with the latest version and refuses a stale one", async () => {
    const library = await createLibrary();
    const updated = await server.api.put(`/libraries/${library.id}`, { ...library, name: uniqueName("Renamed"), riskRangeEditPermission: false, archived: true });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ riskRangeEditPermission: false, archived: true, version: 1 });
    const stale = await server.api.put(`/libraries/${library.id}`, { ...library, name: uniqueName("Lost") });
    expect(stale.status).toBe(409);
    expect(stale.body.problems[0].identifier).toBe("version");
    const noVersion = await server.api.put(`/libraries/${library.id}`, { name: "x" });
    expect(noVersion.status).toBe(400);
  });

  it("keeps system libraries read-only", async () => {
    const system = (await server.api.get(`/libraries/${FOR_PROFIT}`)).body;
    const update = await server.api.put(`/libraries/${FOR_PROFIT}`, { ...system, name: "Mine now" });
    expect(update.status).toBe(409);
    expect(update.body.problems[0].problemType).toBe("INVALID_STATE");
    expect((await server.api.delete(`/libraries/${FOR_PROFIT}`)).status).toBe(409);
    expect((await server.api.get(`/libraries/${FOR_PROFIT}`)).body).toEqual(system);
  });

  it("deletes an unused library with its configurations, refuses one in use", async () => {
    const used = await createLibrary();
    await createEngagement(used.id);
    const refused = await server.api.delete(`/libraries/${used.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.problems[0].problemType).toBe("CANNOT_DELETE");

    const unused = await createLibrary();
    expect((await server.api.delete(`/libraries/${unused.id}`)).status).toBe(204);
    expect((await server.api.get(`/libraries/${unused.id}`)).status).toBe(404);
    expect(await configurationsOf({ libraryId: unused.id })).toEqual([]);
    expect(await riskRangesOf({ libraryId: unused.id })).toEqual([]);
    expect((await server.api.delete(`/libraries/${unused.id}`)).status).toBe(404);
  });

  it("needs the libraries permissions", async () => {
    const reader = await server.api.post("/api-tokens", { name: "library reader", permissions: ["api.libraries.read"] });
    const client = server.api.withToken(reader.body.token);
    expect((await client.get(`/libraries/${FOR_PROFIT}`)).status).toBe(200);
    const refused = await client.post("/libraries", { name: uniqueName("Not allowed"), basedOnLibraryId: FOR_PROFIT });
    expect(refused.status).toBe(403);
    expect(refused.body.problems[0]).toMatchObject({ problemType: "INSUFFICIENT_PERMISSION", values: ["api.libraries.write"] });
    expect((await client.delete(`/libraries/${FOR_PROFIT}`)).body.problems[0].values).toEqual(["api.libraries.delete"]);
  });

  it("queries by system flag, base library and analysis type", async () => {
    const systems = (await server.api.post("/libraries/query", { system: true })).body;
    expect(systems.content.map((l: { id: string }) => l.id).sort()).toEqual(Object.values(SYSTEM_LIBRARY_IDS).sort());
    const parent = await createLibrary();
    const child = await createLibrary({ basedOnLibraryId: parent.id });
    const children = (await server.api.post("/libraries/query", { basedOnLibraryId: parent.id })).body;
    expect(children.content.map((l: { id: string }) => l.id)).toEqual([child.id]);
    const fund = (await server.api.post("/libraries/query", { analysisTypeIds: { $contains: ANALYSIS_TYPE_IDS.NOT_FOR_PROFIT_GENERAL_LEDGER_FUND } })).body;
    expect(fund.content.map((l: { id: string }) => l.id)).toEqual([SYSTEM_LIBRARY_IDS.PLATFORM_NOT_FOR_PROFIT_WITH_FUNDS]);
  });
});

describe("engagements and libraries", () => {
  it("refuses an unknown or archived libraryId, naming it", async () => {
    const base = { organizationId, name: "Bad library", accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" } };
    const unknown = await server.api.post("/engagements", { ...base, libraryId: "5cc9076887f13cb8a7a1aaaa" });
    expect(unknown.status).toBe(400);
    expect(unknown.body.problems[0]).toMatchObject({ identifier: "libraryId", values: ["5cc9076887f13cb8a7a1aaaa"] });
    const library = await createLibrary();
    await server.api.put(`/libraries/${library.id}`, { archived: true, version: library.version });
    const archived = await server.api.post("/engagements", { ...base, libraryId: library.id });
    expect(archived.status).toBe(400);
    expect(archived.body.problems[0].identifier).toBe("libraryId");
  });

  it("uses the PLATFORM_FOR_PROFIT library by default and copies its configurations", async () => {
    const engagement = await server.api.post("/engagements", { organizationId, name: "Default library", accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" } });
    expect(engagement.body.libraryId).toBe(FOR_PROFIT);
    const configurations = await configurationsOf({ engagementId: engagement.body.id });
    expect(configurations.map((c: { analysisTypeId: string }) => c.analysisTypeId).sort()).toEqual((await server.api.get(`/libraries/${FOR_PROFIT}`)).body.analysisTypeIds.sort());
  });
});

describe("libraries over GraphQL", () => {
  it("creates, reads and lists libraries", async () => {
    const created = await server.gql(`mutation($input: CreateLibraryInput!) { createLibrary(input: $input) { id name basedOnLibraryId system analysisTypeIds } }`, {
      input: { name: "Graph library", basedOnLibraryId: SYSTEM_LIBRARY_IDS.PLATFORM_REVIEW },
    });
    expect(created.body.errors).toBeUndefined();
    expect(created.body.data.createLibrary).toMatchObject({ name: "Graph library", basedOnLibraryId: SYSTEM_LIBRARY_IDS.PLATFORM_REVIEW, system: false, analysisTypeIds: [GL] });
    const listed = await server.gql(`query($filter: JSON) { libraries(filter: $filter) { totalElements content { id riskScoreDisplay } } }`, { filter: { name: "graph library" } });
    expect(listed.body.data.libraries).toEqual({ totalElements: 1, content: [{ id: created.body.data.createLibrary.id, riskScoreDisplay: "PERCENTAGE" }] });
    const denied = await server.gql(`mutation { deleteLibrary(id: "${SYSTEM_LIBRARY_IDS.PLATFORM_REVIEW}") { id } }`);
    expect(denied.body.errors?.[0].extensions).toMatchObject({ code: "CONFLICT", status: 409 });
  });
});
