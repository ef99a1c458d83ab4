import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { ANALYSIS_TYPE_IDS, SYSTEM_LIBRARY_IDS } from "../catalogue/ids.js";

let server: TestServer;
let organizationId: string;
beforeAll(async () => {
  server = await startTestServer();
  organizationId = (await server.api.post("/organizations", { name: "Configured" })).body.id;
});
afterAll(async () => server?.close());

const GL = ANALYSIS_TYPE_IDS.GENERAL_LEDGER;
let counter = 0;

async function newLibrary(body: Record<string, unknown> = {}) {
  const response = await server.api.post("/libraries", { name: `Configured library ${++counter}`, basedOnLibraryId: SYSTEM_LIBRARY_IDS.PLATFORM_FOR_PROFIT, ...body });
  expect(response.status).toBe(200);
  return response.body;
}

async function newEngagement(libraryId: string) {
  const response = await server.api.post("/engagements", { organizationId, name: `Engagement ${++counter}`, libraryId, accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" } });
  expect(response.status).toBe(200);
  return response.body;
}

async function newAnalysis(engagementId: string) {
  const response = await server.api.post("/analyses", { engagementId, analysisTypeId: GL, name: `Analysis ${++counter}`, analysisPeriods: [{ startDate: "2025-01-01", endDate: "2025-12-31" }] });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

async function glConfiguration(scope: Record<string, string>) {
  const page = (await server.api.post("/analysis-type-configuration/query", { ...scope, analysisTypeId: GL })).body;
  expect(page.totalElements).toBe(1);
  return page.content[0];
}

async function setWeight(configuration: { id: string; version: number; configuration: { riskGroups: Array<{ id: string }> } }, point: string, weight: number) {
  const response = await server.api.put(`/analysis-type-configuration/${configuration.id}`, {
    configuration: { riskGroups: [{ id: configuration.configuration.riskGroups[0].id, controlPointWeights: { [point]: weight } }] },
    version: configuration.version,
  });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

const weightOf = (configuration: { configuration: { riskGroups: Array<{ controlPointWeights: Record<string, number> }> } }, point: string) =>
  configuration.configuration.riskGroups[0].controlPointWeights[point];

describe("configuration copies", () => {
  it("copies library -> engagement at engagement creation, engagement -> analysis at analysis creation", async () => {
    const library = await newLibrary();
    const libraryConfig = await glConfiguration({ libraryId: library.id });
    const engagement = await newEngagement(library.id);
    const engagementConfig = await glConfiguration({ engagementId: engagement.id });
    expect(engagementConfig).toMatchObject({ engagementId: engagement.id, template: false, system: true, version: 0 });
    expect(engagementConfig.libraryId).toBeUndefined();
    expect(engagementConfig.id).not.toBe(libraryConfig.id);
    expect(engagementConfig.configuration.riskGroups.map((g: { id: string }) => g.id)).toEqual(libraryConfig.configuration.riskGroups.map((g: { id: string }) => g.id));
    // The engagement selects its own copy of the library's risk range.
    const engagementRanges = (await server.api.post("/risk-ranges/query", { engagementId: engagement.id, analysisTypeId: GL })).body.content;
    expect(engagementRanges).toHaveLength(1);
    expect(engagementConfig.configuration.riskGroups[0].selectedRiskRange).toBe(engagementRanges[0].id);

    const analysis = await newAnalysis(engagement.id);
    const analysisConfig = await glConfiguration({ analysisId: analysis.id });
    expect(analysisConfig).toMatchObject({ analysisId: analysis.id, template: false, analysisTypeId: GL });
    expect(analysisConfig.configuration).toEqual(engagementConfig.configuration);
  });

  it("never propagates later edits library <-> engagement, in either direction", async () => {
    const library = await newLibrary();
    const engagement = await newEngagement(library.id);
    const libraryConfig = await glConfiguration({ libraryId: library.id });
    const engagementConfig = await glConfiguration({ engagementId: engagement.id });

    await setWeight(libraryConfig, "journal_entry_last_3_digits", 77);
    expect(weightOf(await glConfiguration({ engagementId: engagement.id }), "journal_entry_last_3_digits")).toBe(weightOf(engagementConfig, "journal_entry_last_3_digits"));

    await setWeight(engagementConfig, "journal_entry_suspicious_keyword", 5);
    const libraryAfter = await glConfiguration({ libraryId: library.id });
    expect(weightOf(libraryAfter, "journal_entry_suspicious_keyword")).toBe(weightOf(libraryConfig, "journal_entry_suspicious_keyword"));
    expect(weightOf(libraryAfter, "journal_entry_last_3_digits")).toBe(77);
  });

  it("never propagates later edits engagement <-> analysis, in either direction", async () => {
    const library = await newLibrary();
    const engagement = await newEngagement(library.id);
    const analysis = await newAnalysis(engagement.id);
    const engagementConfig = await glConfiguration({ engagementId: engagement.id });
    const analysisConfig = await glConfiguration({ analysisId: analysis.id });

    await setWeight(engagementConfig, "journal_entry_weekend_post", 99);
    expect(weightOf(await glConfiguration({ analysisId: analysis.id }), "journal_entry_weekend_post")).toBe(weightOf(analysisConfig, "journal_entry_weekend_post"));

    await setWeight(analysisConfig, "journal_entry_two_digit_benford_v2", 0);
    const engagementAfter = await glConfiguration({ engagementId: engagement.id });
    expect(weightOf(engagementAfter, "journal_entry_two_digit_benford_v2")).toBe(weightOf(engagementConfig, "journal_entry_two_digit_benford_v2"));
    expect(weightOf(engagementAfter, "journal_entry_weekend_post")).toBe(99);

    // A later analysis copies the engagement as it is now.
    const later = await newAnalysis(engagement.id);
    expect(weightOf(await glConfiguration({ analysisId: later.id }), "journal_entry_weekend_post")).toBe(99);
  });

  it("removes an analysis's configuration with the analysis", async () => {
    const engagement = await newEngagement(SYSTEM_LIBRARY_IDS.PLATFORM_FOR_PROFIT);
    const analysis = await newAnalysis(engagement.id);
    const configuration = await glConfiguration({ analysisId: analysis.id });
    expect((await server.api.delete(`/analyses/${analysis.id}`)).status).toBe(204);
    expect((await server.api.get(`/analysis-type-configuration/${configuration.id}`)).status).toBe(404);
  });
});

describe("configuration updates", () => {
  let library: { id: string };
  let configuration: any;
  beforeAll(async () => {
    library = await newLibrary();
    configuration = await glConfiguration({ libraryId: library.id });
  });
  const put = (body: Record<string, unknown>) => server.api.put(`/analysis-type-configuration/${configuration.id}`, { version: configuration.version, ...body });
  const groups = (...updates: Array<Record<string, unknown>>) => ({ configuration: { riskGroups: updates } });

  it("changes weights, enablement, filters and risk range choice, and tracks whether it still equals the system default", async () => {
    const [overall, assets] = configuration.configuration.riskGroups;
    const updated = await put(groups({ id: overall.id, disabled: true, controlPointWeights: { journal_entry_flat_gifi_bucket_rarity: 10 } }, { id: assets.id, filter: { values: ["1100"] } }));
    expect(updated.status).toBe(200);
    expect(updated.body.system).toBe(false);
    expect(updated.body.version).toBe(configuration.version + 1);
    const [overallAfter, assetsAfter] = updated.body.configuration.riskGroups;
    expect(overallAfter).toMatchObject({ disabled: true, controlPointWeights: { ...overall.controlPointWeights, journal_entry_flat_gifi_bucket_rarity: 10 } });
    expect(assetsAfter.filter).toEqual({ values: ["1100"] });
    configuration = updated.body;

    const reset = await put({ system: true });
    expect(reset.status).toBe(200);
    expect(reset.body.system).toBe(true);
    expect(reset.body.configuration.riskGroups[0]).toMatchObject({ disabled: false, controlPointWeights: overall.controlPointWeights });
    expect(reset.body.configuration.riskGroups[1].filter).toEqual(assets.filter);
    configuration = reset.body;
  });

  it("names the field at fault for bad weights, groups and risk ranges", async () => {
    const group = configuration.configuration.riskGroups[0].id;
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [groups({ id: "5cc9076887f13cb8a7a1aaaa" }), "configuration.riskGroups[0].id", "ILLEGAL_ARGUMENT"],
      [groups({ id: group, controlPointWeights: { TEA_BREAKS: 5 } }), "configuration.riskGroups[0].controlPointWeights.TEA_BREAKS", "ILLEGAL_ARGUMENT"],
      [groups({ id: group, controlPointWeights: { journal_entry_flat_gifi_bucket_rarity: 101 } }), "configuration.riskGroups[0].controlPointWeights.journal_entry_flat_gifi_bucket_rarity", "LESS_VALUE_REQUIRED"],
      [groups({ id: group, controlPointWeights: { journal_entry_flat_gifi_bucket_rarity: -1 } }), "configuration.riskGroups[0].controlPointWeights.journal_entry_flat_gifi_bucket_rarity", "GREATER_VALUE_REQUIRED"],
      [groups({ id: group, controlPointWeights: { journal_entry_flat_gifi_bucket_rarity: 2.5 } }), "configuration.riskGroups[0].controlPointWeights.journal_entry_flat_gifi_bucket_rarity", "INCORRECT_DATA_TYPE"],
      [groups({ id: group, controlPointWeights: [1] }), "configuration.riskGroups[0].controlPointWeights", "INCORRECT_DATA_TYPE"],
      [groups({ id: group, selectedRiskRange: "5cc9076887f13cb8a7a1aaaa" }), "configuration.riskGroups[0].selectedRiskRange", "ILLEGAL_ARGUMENT"],
      [groups({ id: group, applicableRiskRanges: ["4b8364d00000000000000000"] }), "configuration.riskGroups[0].applicableRiskRanges[0]", "ILLEGAL_ARGUMENT"],
      [groups({ id: group, unknownKey: true }), "configuration.riskGroups[0].unknownKey", "ILLEGAL_ARGUMENT"],
    ];
    for (const [body, identifier, problemType] of cases) {
      const response = await put(body);
      expect(response.status, identifier).toBe(400);
      expect(response.body.problems[0], identifier).toMatchObject({ identifier, problemType });
    }
    expect((await server.api.get(`/analysis-type-configuration/${configuration.id}`)).body).toEqual(configuration);
  });

  it("selects another risk range of the same scope and analysis type", async () => {
    const range = await server.api.post("/risk-ranges", {
      name: "Strict",
      analysisTypeId: GL,
      libraryId: library.id,
      low: { lowThreshold: 0, highThreshold: 1000 },
      medium: { lowThreshold: 1000, highThreshold: 2000 },
      high: { lowThreshold: 2000, highThreshold: 10000 },
    });
    expect(range.status).toBe(200);
    const group = configuration.configuration.riskGroups[0];
    const updated = await put(groups({ id: group.id, applicableRiskRanges: [...group.applicableRiskRanges, range.body.id], selectedRiskRange: range.body.id }));
    expect(updated.status).toBe(200);
    expect(updated.body.configuration.riskGroups[0]).toMatchObject({ selectedRiskRange: range.body.id, applicableRiskRanges: [...group.applicableRiskRanges, range.body.id] });
    configuration = updated.body;
    const inUse = await server.api.delete(`/risk-ranges/${range.body.id}`);
    expect(inUse.status).toBe(409);
    expect(inUse.body.problems[0].problemType).toBe("CANNOT_DELETE");
  });

  it("refuses a stale version and unknown ids", async () => {
    const stale = await server.api.put(`/analysis-type-configuration/${configuration.id}`, { version: configuration.version - 1 });
    expect(stale.status).toBe(409);
    expect(stale.body.problems[0].identifier).toBe("version");
    expect((await server.api.get("/analysis-type-configuration/5cc9076887f13cb8a7a1aaaa")).status).toBe(404);
    expect((await server.api.put("/analysis-type-configuration/5cc9076887f13cb8a7a1aaaa", { version: 0 })).status).toBe(404);
  });

  it("needs api.analysis-type-configuration.write to update", async () => {
    const token = await server.api.post("/api-tokens", { name: "configuration reader", permissions: ["api.analysis-type-configuration.read"] });
    const reader = server.api.withToken(token.body.token);
    expect((await reader.get(`/analysis-type-configuration/${configuration.id}`)).status).toBe(200);
    const refused = await reader.put(`/analysis-type-configuration/${configuration.id}`, { version: configuration.version });
    expect(refused.status).toBe(403);
    expect(refused.body.problems[0].values).toEqual(["api.analysis-type-configuration.write"]);
  });

  it("keeps system library configurations read-only", async () => {
    const system = await glConfiguration({ libraryId: SYSTEM_LIBRARY_IDS.PLATFORM_FOR_PROFIT });
    const response = await server.api.put(`/analysis-type-configuration/${system.id}`, { ...system, system: true });
    expect(response.status).toBe(409);
    expect((await server.api.get(`/analysis-type-configuration/${system.id}`)).body).toEqual(system);
  });

  it("enforces the library's permissions on engagement-level edits", async () => {
    const locked = await newLibrary({ controlPointWeightPermission: false, controlPointSettingsPermission: true });
    const engagement = await newEngagement(locked.id);
    const engagementConfig = await glConfiguration({ engagementId: engagement.id });
    const group = engagementConfig.configuration.riskGroups[0].id;
    const refused = await server.api.put(`/analysis-type-configuration/${engagementConfig.id}`, { ...engagementConfig, configuration: { riskGroups: [{ id: group, controlPointWeights: { journal_entry_flat_gifi_bucket_rarity: 1 } }] } });
    expect(refused.status).toBe(403);
    expect(refused.body.problems[0]).toMatchObject({ problemType: "INSUFFICIENT_PERMISSION", identifier: "configuration.riskGroups[0].controlPointWeights" });
    const allowed = await server.api.put(`/analysis-type-configuration/${engagementConfig.id}`, { ...engagementConfig, configuration: { riskGroups: [{ id: group, filter: { values: ["2000"] } }] } });
    expect(allowed.status).toBe(200);
    // The library itself stays editable by its owners.
    await setWeight(await glConfiguration({ libraryId: locked.id }), "journal_entry_flat_gifi_bucket_rarity", 1);
  });
});

describe("configurations over GraphQL", () => {
  it("queries by scope and updates through the same service", async () => {
    const engagement = await newEngagement(SYSTEM_LIBRARY_IDS.PLATFORM_NOT_FOR_PROFIT);
    const listed = await server.gql(`query($filter: JSON) { analysisTypeConfigurations(filter: $filter) { totalElements content { id version analysisTypeId configuration { riskGroups { id riskAssertionCategory name } } } } }`, {
      filter: { engagementId: engagement.id },
    });
    expect(listed.body.errors).toBeUndefined();
    expect(listed.body.data.analysisTypeConfigurations.totalElements).toBe(3);
    const npo = listed.body.data.analysisTypeConfigurations.content.find((c: { analysisTypeId: string }) => c.analysisTypeId === ANALYSIS_TYPE_IDS.NOT_FOR_PROFIT_GENERAL_LEDGER);
    expect(npo.configuration.riskGroups.map((g: { riskAssertionCategory: string }) => g.riskAssertionCategory)).toEqual(["GENERAL", "ASSETS", "LIABILITIES_EQUITY", "PROFIT_LOSS"]);
    expect(npo.configuration.riskGroups[0].name).toEqual({ en: "Overall" });
    const updated = await server.gql(`mutation($id: ID!, $input: UpdateAnalysisTypeConfigurationInput!) { updateAnalysisTypeConfiguration(id: $id, input: $input) { version system configuration { riskGroups { disabled } } } }`, {
      id: npo.id,
      input: { version: npo.version, configuration: { riskGroups: [{ id: npo.configuration.riskGroups[3].id, disabled: true }] } },
    });
    expect(updated.body.errors).toBeUndefined();
    expect(updated.body.data.updateAnalysisTypeConfiguration).toMatchObject({ version: 1, system: false });
    expect(updated.body.data.updateAnalysisTypeConfiguration.configuration.riskGroups.map((g: { disabled: boolean }) => g.disabled)).toEqual([false, false, false, true]);
  });
});
