import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { subscribe } from "../../../test/helpers/ws-client.js";
import { awaitJob, clientWithPermissions } from "../../../test/helpers/entities.js";
import { ANALYSIS_TYPE_IDS, SYSTEM_LIBRARY_IDS } from "../catalogue/ids.js";
import { addYears, analysisPeriodGaps } from "./analysis-period.rules.js";

let server: TestServer;
let engagementId: string;
beforeAll(async () => {
  server = await startTestServer();
  const organizationId = (await server.api.post("/organizations", { name: "Analysed" })).body.id;
  engagementId = (await server.api.post("/engagements", { organizationId, name: "FY2025", accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" } })).body.id;
});
afterAll(async () => server?.close());

const GL = ANALYSIS_TYPE_IDS.GENERAL_LEDGER;
const AP = ANALYSIS_TYPE_IDS.ACCOUNTS_PAYABLE_V2;
const YEAR = { startDate: "2025-01-01", endDate: "2025-12-31" };
const body = (extra: Record<string, unknown> = {}) => ({ engagementId, analysisTypeId: GL, name: "GL FY2025", analysisPeriods: [YEAR], ...extra });

async function create(extra: Record<string, unknown> = {}) {
  const response = await server.api.post("/analyses", body(extra));
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

describe("analysis period rules (unit)", () => {
  it("computes gaps between consecutive periods and shifts dates by years", () => {
    const gaps = analysisPeriodGaps([
      { id: "b", startDate: "2025-04-01", endDate: "2025-06-30" },
      { id: "a", startDate: "2025-01-01", endDate: "2025-03-31" },
      { id: "c", startDate: "2025-07-11", endDate: "2025-09-30" },
    ]);
    expect(gaps).toEqual([{ analysisPeriodId: "c", previousAnalysisPeriodId: "b", days: 10 }]);
    expect(addYears("2024-02-29", 1)).toBe("2025-02-28");
    expect(addYears("2023-02-28", 1)).toBe("2024-02-29");
    expect(addYears("2025-06-15", 1)).toBe("2026-06-15");
  });
});

describe("analyses REST", () => {
  it("creates with defaults and periods, and reads back the wire read model", async () => {
    const created = await create({ referenceId: "REF-1" });
    expect(created).toMatchObject({
      engagementId,
      analysisTypeId: GL,
      name: "GL FY2025",
      interim: false,
      periodic: false,
      archived: false,
      converted: false,
      currencyCode: "USD",
      referenceId: "REF-1",
      analysisPeriodGaps: [],
      importantColumns: [],
      version: 0,
    });
    expect(created.analysisPeriods).toEqual([{ id: expect.stringMatching(/^[0-9a-f]{24}$/), ...YEAR }]);
    expect(created.latestAnalysisResultId).toBeUndefined();
    expect((await server.api.get(`/analyses/${created.id}`)).body).toEqual(created);
  });

  it("creates a periodic analysis and reports the gaps between its periods", async () => {
    const created = await create({
      periodic: true,
      currencyCode: "EUR",
      analysisPeriods: [
        { startDate: "2025-07-01", endDate: "2025-09-30" },
        { startDate: "2025-01-01", endDate: "2025-03-31" },
        { startDate: "2025-04-01", endDate: "2025-06-20" },
      ],
    });
    expect(created.currencyCode).toBe("EUR");
    expect(created.analysisPeriods.map((p: { startDate: string }) => p.startDate)).toEqual(["2025-01-01", "2025-04-01", "2025-07-01"]);
    expect(created.analysisPeriodGaps).toEqual([{ analysisPeriodId: created.analysisPeriods[2].id, previousAnalysisPeriodId: created.analysisPeriods[1].id, days: 10 }]);
    const read = await server.gql(`query($id: ID!) { analysis(id: $id) { analysisPeriodGaps { days analysisPeriod { id startDate } previousAnalysisPeriod { id endDate } } } }`, { id: created.id });
    expect(read.body.errors, JSON.stringify(read.body.errors)).toBeUndefined();
    expect(read.body.data.analysis.analysisPeriodGaps).toEqual([
      { days: 10, analysisPeriod: { id: created.analysisPeriods[2].id, startDate: "2025-07-01" }, previousAnalysisPeriod: { id: created.analysisPeriods[1].id, endDate: "2025-06-20" } },
    ]);
  });

  it("creates an interim analysis with an as-at date on its latest period", async () => {
    const created = await create({ interim: true, analysisPeriods: [{ ...YEAR, interimAsAtDate: "2025-09-30" }] });
    expect(created).toMatchObject({ interim: true, analysisPeriods: [{ ...YEAR, interimAsAtDate: "2025-09-30" }] });
  });

  it("validates periods, naming the field at fault", async () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ analysisPeriods: [{ startDate: "2025-12-31", endDate: "2025-01-01" }] }, "analysisPeriods[0].endDate", "GREATER_VALUE_REQUIRED"],
      [{ analysisPeriods: [{ startDate: "2025-01-01", endDate: "2025-01-01" }] }, "analysisPeriods[0].endDate", "GREATER_VALUE_REQUIRED"],
      [{ periodic: true, analysisPeriods: [YEAR, { startDate: "2025-06-01", endDate: "2026-05-31" }] }, "analysisPeriods[1].startDate", "ILLEGAL_ARGUMENT"],
      [{ analysisPeriods: [YEAR, { startDate: "2026-01-01", endDate: "2026-12-31" }] }, "analysisPeriods", "LESS_VALUE_REQUIRED"],
      [{ analysisTypeId: AP, periodic: true }, "periodic", "ILLEGAL_ARGUMENT"],
      [{ interim: true }, "analysisPeriods[0].interimAsAtDate", "ILLEGAL_ARGUMENT"],
      [{ interim: true, analysisPeriods: [{ ...YEAR, interimAsAtDate: "2025-12-31" }] }, "analysisPeriods[0].interimAsAtDate", "LESS_VALUE_REQUIRED"],
      [{ interim: true, analysisPeriods: [{ ...YEAR, interimAsAtDate: "2024-12-31" }] }, "analysisPeriods[0].interimAsAtDate", "GREATER_VALUE_REQUIRED"],
      [{ analysisPeriods: [{ ...YEAR, interimAsAtDate: "2025-06-30" }] }, "analysisPeriods[0].interimAsAtDate", "ILLEGAL_ARGUMENT"],
      [
        { interim: true, periodic: true, analysisPeriods: [{ startDate: "2025-01-01", endDate: "2025-06-30", interimAsAtDate: "2025-03-31" }, { startDate: "2025-07-01", endDate: "2025-12-31", interimAsAtDate: "2025-09-30" }] },
        "analysisPeriods[0].interimAsAtDate",
        "ILLEGAL_ARGUMENT",
      ],
      [
        { periodic: true, analysisPeriods: Array.from({ length: 14 }, (_, i) => ({ startDate: `${2001 + i}-01-01`, endDate: `${2001 + i}-12-31` })) },
        "analysisPeriods",
        "LESS_VALUE_REQUIRED",
      ],
      [{ analysisPeriods: [] }, "analysisPeriods", "ILLEGAL_ARGUMENT"],
      [{ analysisPeriods: [{ startDate: "2025-01-01" }] }, "analysisPeriods[0].endDate", "ILLEGAL_ARGUMENT"],
      [{ analysisPeriods: [{ startDate: "2025-13-01", endDate: "2025-12-31" }] }, "analysisPeriods[0].startDate", "INCORRECT_DATA_TYPE"],
      [{ currencyCode: "usd" }, "currencyCode", "ILLEGAL_ARGUMENT"],
    ];
    for (const [extra, identifier, problemType] of cases) {
      const response = await server.api.post("/analyses", body(extra));
      expect(response.status, identifier).toBe(400);
      expect(response.body.problems[0], `${identifier}: ${JSON.stringify(response.body.problems)}`).toMatchObject({ identifier, problemType });
    }
  });

  it("validates references: engagement, analysis type, and the type being in the engagement's library", async () => {
    const noEngagement = await server.api.post("/analyses", body({ engagementId: "5cc9076887f13cb8a7a1aaaa" }));
    expect(noEngagement.body.problems[0]).toMatchObject({ identifier: "engagementId", values: ["5cc9076887f13cb8a7a1aaaa"] });
    const noType = await server.api.post("/analyses", body({ analysisTypeId: "4b8360d000000000000000ff" }));
    expect(noType.body.problems[0].identifier).toBe("analysisTypeId");
    const notInLibrary = await server.api.post("/analyses", body({ analysisTypeId: ANALYSIS_TYPE_IDS.NOT_FOR_PROFIT_GENERAL_LEDGER }));
    expect(notInLibrary.status).toBe(400);
    expect(notInLibrary.body.problems[0]).toMatchObject({ identifier: "analysisTypeId", values: [ANALYSIS_TYPE_IDS.NOT_FOR_PROFIT_GENERAL_LEDGER] });
    const unknownKey = await server.api.post("/analyses", body({ colour: "red" }));
    expect(unknownKey.body.problems[0].identifier).toBe("colour");
  });

  it("updates name, currency and periods (by id, new, removed) with the latest version", async () => {
    const created = await create({ periodic: true, analysisPeriods: [{ startDate: "2025-01-01", endDate: "2025-06-30" }, { startDate: "2025-07-01", endDate: "2025-12-31" }] });
    const [first, second] = created.analysisPeriods;
    const updated = await server.api.put(`/analyses/${created.id}`, {
      ...created,
      name: "Renamed",
      currencyCode: "CAD",
      analysisPeriods: [{ ...first, endDate: "2025-06-15" }, { startDate: "2026-01-01", endDate: "2026-06-30" }],
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body).toMatchObject({ name: "Renamed", currencyCode: "CAD", version: 1 });
    expect(updated.body.analysisPeriods).toHaveLength(2);
    expect(updated.body.analysisPeriods[0]).toEqual({ id: first.id, startDate: "2025-01-01", endDate: "2025-06-15" });
    expect(updated.body.analysisPeriods.map((p: { id: string }) => p.id)).not.toContain(second.id);
    expect(updated.body.analysisPeriodGaps).toEqual([{ analysisPeriodId: updated.body.analysisPeriods[1].id, previousAnalysisPeriodId: first.id, days: 199 }]);

    const stale = await server.api.put(`/analyses/${created.id}`, { name: "Lost", version: 0 });
    expect(stale.status).toBe(409);
    const unknownPeriod = await server.api.put(`/analyses/${created.id}`, { analysisPeriods: [{ id: "5cc9076887f13cb8a7a1aaaa", ...YEAR }], version: 1 });
    expect(unknownPeriod.status).toBe(400);
    expect(unknownPeriod.body.problems[0].identifier).toBe("analysisPeriods[0].id");
    const overlapping = await server.api.put(`/analyses/${created.id}`, { analysisPeriods: [{ startDate: "2025-01-01", endDate: "2025-12-31" }, { startDate: "2025-12-31", endDate: "2026-03-31" }], version: 1 });
    expect(overlapping.body.problems[0].identifier).toBe("analysisPeriods[1].startDate");
    expect((await server.api.get(`/analyses/${created.id}`)).body).toEqual(updated.body);
  });

  it("archives and unarchives through update; an archived analysis only accepts being unarchived", async () => {
    const created = await create();
    const archived = await server.api.put(`/analyses/${created.id}`, { archived: true, version: 0 });
    expect(archived.body).toMatchObject({ archived: true, version: 1 });
    const refused = await server.api.put(`/analyses/${created.id}`, { name: "While archived", version: 1 });
    expect(refused.status).toBe(409);
    expect(refused.body.problems[0].identifier).toBe("archived");
    const unarchived = await server.api.put(`/analyses/${created.id}`, { archived: false, name: "Back", version: 1 });
    expect(unarchived.body).toMatchObject({ archived: false, name: "Back", version: 2 });
  });

  it("deletes with 204, then 404", async () => {
    const created = await create();
    expect((await server.api.delete(`/analyses/${created.id}`)).status).toBe(204);
    expect((await server.api.get(`/analyses/${created.id}`)).status).toBe(404);
    expect((await server.api.delete(`/analyses/${created.id}`)).status).toBe(404);
  });

  it("queries by engagement, type and archived flag", async () => {
    const organizationId = (await server.api.post("/organizations", { name: "Query org" })).body.id;
    const other = (await server.api.post("/engagements", { organizationId, name: "Other", accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" } })).body.id;
    const a = await create({ engagementId: other, name: "A" });
    const b = await create({ engagementId: other, name: "B", analysisTypeId: AP });
    await server.api.put(`/analyses/${b.id}`, { archived: true, version: 0 });
    const ids = (filter: unknown) => server.api.post("/analyses/query", filter).then((r) => r.body.content.map((x: { id: string }) => x.id));
    expect(await ids({ engagementId: other })).toEqual([a.id, b.id]);
    expect(await ids({ engagementId: other, archived: false })).toEqual([a.id]);
    expect(await ids({ engagementId: other, analysisTypeId: AP })).toEqual([b.id]);
    expect((await server.api.post("/analyses/query?sort=name,desc", { engagementId: other })).body.content.map((x: { name: string }) => x.name)).toEqual(["B", "A"]);
  });

  it("removes an engagement's analyses with the engagement", async () => {
    const organizationId = (await server.api.post("/organizations", { name: "Short lived" })).body.id;
    const engagement = (await server.api.post("/engagements", { organizationId, name: "Gone", accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" } })).body.id;
    const analysis = await create({ engagementId: engagement });
    expect((await server.api.delete(`/engagements/${engagement}`)).status).toBe(204);
    expect((await server.api.get(`/analyses/${analysis.id}`)).status).toBe(404);
  });
});

describe("analysis status and run", () => {
  it("is not ready without sources, with the required files missing", async () => {
    const analysis = await create();
    const status = await server.api.get(`/analyses/${analysis.id}/status`);
    expect(status.status).toBe(200);
    expect(status.body).toEqual({
      analysisId: analysis.id,
      analysisTypeId: GL,
      ready: false,
      reRunReady: false,
      status: "NOT_STARTED",
      preflightErrors: ["REQUIRED_FILES_MISSING"],
      availableFeatures: {
        FORMAT_DETECTION: true,
        DATA_VALIDATION: true,
        COLUMN_MAPPING: true,
        EFFECTIVE_DATE_METRICS: true,
        TRANSACTION_ID_SELECTION: true,
        PARSE: true,
        CONFIRM_SETTINGS: true,
        REVIEW_FUNDS: false,
      },
      sourceStatuses: [],
      mappedAccountMappingCount: 0,
      inferredAccountMappingCount: 0,
      unmappedAccountMappingCount: 0,
    });
    expect((await server.api.get("/analyses/5cc9076887f13cb8a7a1aaaa/status")).status).toBe(404);
  });

  it("adds ARCHIVED for an archived analysis; payables have no transaction id selection", async () => {
    const analysis = await create({ analysisTypeId: AP });
    await server.api.put(`/analyses/${analysis.id}`, { archived: true, version: 0 });
    const status = (await server.api.get(`/analyses/${analysis.id}/status`)).body;
    expect(status.preflightErrors.sort()).toEqual(["ARCHIVED", "REQUIRED_FILES_MISSING"]);
    expect(status.availableFeatures).toMatchObject({ TRANSACTION_ID_SELECTION: false, EFFECTIVE_DATE_METRICS: true });
  });

  it("refuses to run while not ready, naming the preflight errors", async () => {
    const analysis = await create();
    const run = await server.api.post(`/analyses/${analysis.id}/run`, {});
    expect(run.status).toBe(409);
    expect(run.body.problems[0]).toMatchObject({ problemType: "INVALID_STATE", identifier: "preflightErrors", values: ["REQUIRED_FILES_MISSING"] });
    expect((await server.api.post("/analyses/5cc9076887f13cb8a7a1aaaa/run", {})).status).toBe(404);
  });

  it("needs api.analyses.run to run and api.analyses.read for the status", async () => {
    const analysis = await create();
    const writer = await clientWithPermissions(server.api, ["api.analyses.write"], "no run");
    const refused = await writer.post(`/analyses/${analysis.id}/run`, {});
    expect(refused.status).toBe(403);
    expect(refused.body.problems[0].values).toEqual(["api.analyses.run"]);
    expect((await writer.get(`/analyses/${analysis.id}/status`)).status).toBe(403);
    const runner = await clientWithPermissions(server.api, ["api.analyses.run"], "runner");
    expect((await runner.post(`/analyses/${analysis.id}/run`, {})).status).toBe(409);
  });
});

describe("engagement roll-forward", () => {
  async function engagementIn(libraryId: string, name: string) {
    const organizationId = (await server.api.post("/organizations", { name: `${name} org` })).body.id;
    const response = await server.api.post("/engagements", { organizationId, name, libraryId, accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" } });
    expect(response.status).toBe(200);
    return response.body.id as string;
  }

  it("creates the analysis in the target engagement at once, a year later, and copies its settings in an ANALYSIS_ROLL_FORWARD job", async () => {
    const source = await create({ name: "Rolled", referenceId: "R-7", currencyCode: "GBP", periodic: true, analysisPeriods: [{ startDate: "2025-01-01", endDate: "2025-06-30" }, { startDate: "2025-07-01", endDate: "2025-12-31" }] });
    const [sourceConfig] = (await server.api.post("/analysis-type-configuration/query", { analysisId: source.id })).body.content;
    const group = sourceConfig.configuration.riskGroups[1];
    const edited = await server.api.put(`/analysis-type-configuration/${sourceConfig.id}`, { configuration: { riskGroups: [{ id: group.id, disabled: true, controlPointWeights: { journal_entry_manual_entry: 88 } }] }, version: sourceConfig.version });
    expect(edited.status).toBe(200);
    const target = await engagementIn(SYSTEM_LIBRARY_IDS.PLATFORM_FOR_PROFIT, "FY2026");

    const started = await server.api.post("/analyses/engagement-roll-forward", { analysisId: source.id, targetEngagementId: target });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(started.body).toMatchObject({ type: "ANALYSIS_ROLL_FORWARD", entityType: "ANALYSIS", entityId: expect.stringMatching(/^[0-9a-f]{24}$/) });
    expect(["IN_PROGRESS", "COMPLETE"]).toContain(started.body.status);
    const rolled = await server.api.get(`/analyses/${started.body.entityId}`);
    expect(rolled.status).toBe(200);
    expect(rolled.body).toMatchObject({ engagementId: target, analysisTypeId: GL, name: "Rolled", referenceId: "R-7", currencyCode: "GBP", periodic: true, interim: false, archived: false });
    expect(rolled.body.analysisPeriods.map(({ startDate, endDate }: { startDate: string; endDate: string }) => ({ startDate, endDate }))).toEqual([
      { startDate: "2026-01-01", endDate: "2026-06-30" },
      { startDate: "2026-07-01", endDate: "2026-12-31" },
    ]);

    const done = await awaitJob(server.api, started.body.id);
    expect(done).toMatchObject({ status: "COMPLETE", entityId: rolled.body.id });
    const [rolledConfig] = (await server.api.post("/analysis-type-configuration/query", { analysisId: rolled.body.id })).body.content;
    expect(rolledConfig.configuration.riskGroups[1]).toMatchObject({ disabled: true, controlPointWeights: { journal_entry_manual_entry: 88 } });
    expect(rolledConfig.system).toBe(false);
    // Risk ranges belong to engagements: the new analysis selects its target engagement's.
    const [targetRange] = (await server.api.post("/risk-ranges/query", { engagementId: target, analysisTypeId: GL })).body.content;
    expect(rolledConfig.configuration.riskGroups[1].selectedRiskRange).toBe(targetRange.id);
    // The source is untouched.
    expect((await server.api.get(`/analyses/${source.id}`)).body).toEqual(source);
  });

  it("rolls forward into an interim analysis with an as-at date on its latest period", async () => {
    const source = await create({ name: "To interim" });
    const target = await engagementIn(SYSTEM_LIBRARY_IDS.PLATFORM_FOR_PROFIT, "Interim target");
    const started = await server.api.post("/analyses/engagement-roll-forward", { analysisId: source.id, targetEngagementId: target, interim: true });
    expect(started.status).toBe(200);
    const rolled = (await server.api.get(`/analyses/${started.body.entityId}`)).body;
    expect(rolled).toMatchObject({ interim: true, analysisPeriods: [{ startDate: "2026-01-01", endDate: "2026-12-31", interimAsAtDate: "2026-12-30" }] });
    expect((await awaitJob(server.api, started.body.id)).status).toBe("COMPLETE");
  });

  it("validates the source, the target and the target's library", async () => {
    const source = await create({ name: "Stays" });
    const npo = await engagementIn(SYSTEM_LIBRARY_IDS.PLATFORM_NOT_FOR_PROFIT, "No GL here");
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ analysisId: "5cc9076887f13cb8a7a1aaaa", targetEngagementId: npo }, "analysisId"],
      [{ analysisId: source.id, targetEngagementId: "5cc9076887f13cb8a7a1aaaa" }, "targetEngagementId"],
      [{ analysisId: source.id, targetEngagementId: engagementId }, "targetEngagementId"],
      [{ analysisId: source.id, targetEngagementId: npo }, "targetEngagementId"],
      [{ analysisId: source.id }, "targetEngagementId"],
      [{ analysisId: source.id, targetEngagementId: npo, colour: "red" }, "colour"],
    ];
    for (const [request, identifier] of cases) {
      const response = await server.api.post("/analyses/engagement-roll-forward", request);
      expect(response.status, identifier).toBe(400);
      expect(response.body.problems[0].identifier, JSON.stringify(response.body)).toBe(identifier);
    }
    expect((await server.api.post("/analyses/query", { engagementId: npo })).body.totalElements).toBe(0);
  });

  it("rolls forward over GraphQL", async () => {
    const source = await create({ name: "Graph roll" });
    const target = await engagementIn(SYSTEM_LIBRARY_IDS.PLATFORM_REVIEW, "Review target");
    const started = await server.gql(`mutation($input: RollForwardAnalysisInput!) { rollForwardAnalysis(input: $input) { id type entityType entityId } }`, { input: { analysisId: source.id, targetEngagementId: target } });
    expect(started.body.errors).toBeUndefined();
    expect(started.body.data.rollForwardAnalysis).toMatchObject({ type: "ANALYSIS_ROLL_FORWARD", entityType: "ANALYSIS" });
    expect((await awaitJob(server.api, started.body.data.rollForwardAnalysis.id)).status).toBe("COMPLETE");
  });
});

describe("analysis results", () => {
  it("reads and queries the results runs left, 404 for unknown ids", async () => {
    const analysis = await create();
    const pg = await import("pg");
    const client = new pg.default.Client({ connectionString: server.databaseUrl });
    await client.connect();
    const resultId = "5cc9076887f13cb8a7a1bbbb";
    try {
      // Runs write results (the engine comes later); stand in for one run.
      await client.query(
        `INSERT INTO analysis_result (id, engagement_id, analysis_id, analysis_type_id, analysis_periods, interim, created_user_name, last_modified_user_name)
         VALUES ($1, $2, $3, $4, $5, false, 'engine', 'engine')`,
        [resultId, engagementId, analysis.id, GL, JSON.stringify(analysis.analysisPeriods)],
      );
    } finally {
      await client.end();
    }
    const result = await server.api.get(`/analysis-results/${resultId}`);
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ id: resultId, engagementId, analysisId: analysis.id, analysisTypeId: GL, interim: false, analysisPeriods: analysis.analysisPeriods, version: 0 });
    const page = await server.api.post("/analysis-results/query", { analysisId: analysis.id });
    expect(page.body.content.map((r: { id: string }) => r.id)).toEqual([resultId]);
    expect((await server.api.get("/analysis-results/5cc9076887f13cb8a7a1aaaa")).status).toBe(404);
    expect((await server.api.post("/analysis-results/query", { analysisId: { $iprefix: "5cc" } })).status).toBe(400);
  });
});

describe("analysis events", () => {
  it("emits analysis.created/.updated/.archived/.unarchived/.deleted with analysisId and engagementId", async () => {
    const subscription = subscribe<{ entityChanged: any }>(server.url, server.token, `subscription { entityChanged(entityType: "ANALYSIS") { type entityId payload } }`);
    await subscription.ready;
    await new Promise((r) => setTimeout(r, 100));
    const analysis = await create();
    await server.api.put(`/analyses/${analysis.id}`, { name: "Changed", version: 0 });
    await server.api.put(`/analyses/${analysis.id}`, { archived: true, version: 1 });
    await server.api.put(`/analyses/${analysis.id}`, { archived: false, version: 2 });
    await server.api.delete(`/analyses/${analysis.id}`);
    await subscription.next((e) => e.entityChanged.type === "analysis.deleted" && e.entityChanged.entityId === analysis.id);
    const mine = subscription.events.filter((e) => e.entityChanged.entityId === analysis.id).map((e) => e.entityChanged);
    expect(mine.map((e) => e.type)).toEqual(["analysis.created", "analysis.updated", "analysis.archived", "analysis.unarchived", "analysis.deleted"]);
    expect(mine.every((e) => JSON.stringify(e.payload) === JSON.stringify({ analysisId: analysis.id, engagementId }))).toBe(true);
    await subscription.close();
  });
});

describe("analyses over GraphQL", () => {
  it("creates, reads status, and lists through the same services", async () => {
    const created = await server.gql(`mutation($input: CreateAnalysisInput!) { createAnalysis(input: $input) { id analysisPeriods { startDate endDate } reportingPeriodConfigurationId } }`, {
      input: body({ name: "Graph analysis" }),
    });
    expect(created.body.errors).toBeUndefined();
    const id = created.body.data.createAnalysis.id;
    expect(created.body.data.createAnalysis.analysisPeriods).toEqual([YEAR]);
    const read = await server.gql(`query($id: ID!, $filter: JSON) {
      analysisStatus(id: $id) { ready preflightErrors availableFeatures { REVIEW_FUNDS PARSE } }
      analyses(filter: $filter) { totalElements content { id name } }
    }`, { id, filter: { name: "graph analysis" } });
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data.analysisStatus).toEqual({ ready: false, preflightErrors: ["REQUIRED_FILES_MISSING"], availableFeatures: { REVIEW_FUNDS: false, PARSE: true } });
    expect(read.body.data.analyses).toEqual({ totalElements: 1, content: [{ id, name: "Graph analysis" }] });
    const fundEngagement = await server.api.post("/engagements", {
      organizationId: (await server.api.post("/organizations", { name: "Fund org" })).body.id,
      name: "Funds",
      libraryId: SYSTEM_LIBRARY_IDS.PLATFORM_NOT_FOR_PROFIT_WITH_FUNDS,
      accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 7, frequency: "ANNUAL" },
    });
    const fund = await server.gql(`mutation($input: CreateAnalysisInput!) { createAnalysis(input: $input) { id } }`, {
      input: body({ engagementId: fundEngagement.body.id, analysisTypeId: ANALYSIS_TYPE_IDS.NOT_FOR_PROFIT_GENERAL_LEDGER_FUND }),
    });
    const fundStatus = await server.gql(`query($id: ID!) { analysisStatus(id: $id) { availableFeatures { REVIEW_FUNDS } } }`, { id: fund.body.data.createAnalysis.id });
    expect(fundStatus.body.data.analysisStatus.availableFeatures.REVIEW_FUNDS).toBe(true);
  });
});

describe("analyses over GraphQL: run refusal, results, archive and delete", () => {
  const createAnalysis = `mutation($input: CreateAnalysisInput!) { createAnalysis(input: $input) { id version archived } }`;
  const updateAnalysis = `mutation($id: ID!, $input: UpdateAnalysisInput!) { updateAnalysis(id: $id, input: $input) { id name archived version } }`;

  async function createOverGraphql(name: string) {
    const created = await server.gql(createAnalysis, { input: body({ name }) });
    expect(created.body.errors).toBeUndefined();
    return created.body.data.createAnalysis as { id: string; version: number; archived: boolean };
  }

  it("refuses runAnalysis while not ready: 409 INVALID_STATE naming the preflight errors in the extensions", async () => {
    const analysis = await createOverGraphql("Graph not ready");
    const run = await server.gql(`mutation($id: ID!) { runAnalysis(id: $id) { id type status } }`, { id: analysis.id });
    expect(run.body.data).toBeNull();
    expect(run.body.errors).toHaveLength(1);
    expect(run.body.errors[0].extensions).toMatchObject({
      code: "CONFLICT",
      status: 409,
      entityId: analysis.id,
      problems: [{ problemType: "INVALID_STATE", identifier: "preflightErrors", values: ["REQUIRED_FILES_MISSING"] }],
    });
    const unknown = await server.gql(`mutation { runAnalysis(id: "5cc9076887f13cb8a7a1aaaa") { id } }`);
    expect(unknown.body.errors[0].extensions).toMatchObject({ code: "NOT_FOUND", status: 404 });
    // No async result was started for the refused run.
    const started = await server.gql(`query($f: JSON) { asyncResults(filter: $f) { totalElements } }`, { f: { entityId: analysis.id, type: "ANALYSIS_RUN" } });
    expect(started.body.errors).toBeUndefined();
    expect(started.body.data.asyncResults.totalElements).toBe(0);
    // The permission is checked before readiness.
    const writer = await server.api.post("/api-tokens", { name: "graph no run", permissions: ["api.analyses.write", "api.analyses.read"] });
    const refused = await server.gql(`mutation($id: ID!) { runAnalysis(id: $id) { id } }`, { id: analysis.id }, writer.body.token);
    expect(refused.body.errors[0].extensions).toMatchObject({ code: "FORBIDDEN", status: 403, problems: [{ values: ["api.analyses.run"] }] });
  });

  it("reads analysisResult and queries analysisResults", async () => {
    const analysis = (await server.gql(`mutation($input: CreateAnalysisInput!) { createAnalysis(input: $input) { id analysisPeriods { id startDate endDate interimAsAtDate } } }`, { input: body({ name: "Graph results" }) })).body.data.createAnalysis;
    const pg = await import("pg");
    const client = new pg.default.Client({ connectionString: server.databaseUrl });
    await client.connect();
    const ids = ["5cc9076887f13cb8a7a1cccc", "5cc9076887f13cb8a7a1dddd"];
    try {
      // Runs write results (the engine comes later); stand in for two runs, both kept (spec 2.12).
      for (const id of ids) {
        await client.query(
          `INSERT INTO analysis_result (id, engagement_id, analysis_id, analysis_type_id, analysis_periods, interim, created_user_name, last_modified_user_name)
           VALUES ($1, $2, $3, $4, $5, false, 'engine', 'engine')`,
          [id, engagementId, analysis.id, GL, JSON.stringify(analysis.analysisPeriods)],
        );
      }
    } finally {
      await client.end();
    }
    const read = await server.gql(`query($id: ID!) { analysisResult(id: $id) { id engagementId analysisId analysisTypeId interim version analysisPeriods { id startDate endDate } } }`, { id: ids[0] });
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data.analysisResult).toEqual({
      id: ids[0],
      engagementId,
      analysisId: analysis.id,
      analysisTypeId: GL,
      interim: false,
      version: 0,
      analysisPeriods: analysis.analysisPeriods.map(({ id, startDate, endDate }: { id: string; startDate: string; endDate: string }) => ({ id, startDate, endDate })),
    });
    const page = await server.gql(`query($f: JSON) { analysisResults(filter: $f, sort: "id,desc") { totalElements content { id } } }`, { f: { analysisId: analysis.id } });
    expect(page.body.errors).toBeUndefined();
    expect(page.body.data.analysisResults).toEqual({ totalElements: 2, content: [{ id: ids[1] }, { id: ids[0] }] });
    const missing = await server.gql(`{ analysisResult(id: "5cc9076887f13cb8a7a1aaaa") { id } }`);
    expect(missing.body.errors[0].extensions).toMatchObject({ code: "NOT_FOUND", status: 404 });
    const badFilter = await server.gql(`query($f: JSON) { analysisResults(filter: $f) { totalElements } }`, { f: { analysisId: { $iprefix: "5cc" } } });
    expect(badFilter.body.errors[0].extensions).toMatchObject({ code: "VALIDATION", status: 400 });
  });

  it("archives and unarchives through updateAnalysis; an archived analysis only accepts being unarchived", async () => {
    const analysis = await createOverGraphql("Graph archive");
    const archived = await server.gql(updateAnalysis, { id: analysis.id, input: { archived: true, version: 0 } });
    expect(archived.body.errors).toBeUndefined();
    expect(archived.body.data.updateAnalysis).toMatchObject({ archived: true, version: 1 });
    const status = await server.gql(`query($id: ID!) { analysisStatus(id: $id) { preflightErrors } }`, { id: analysis.id });
    expect(status.body.data.analysisStatus.preflightErrors).toContain("ARCHIVED");
    const refused = await server.gql(updateAnalysis, { id: analysis.id, input: { name: "While archived", version: 1 } });
    expect(refused.body.errors[0].extensions).toMatchObject({ code: "CONFLICT", status: 409, problems: [{ identifier: "archived" }] });
    const unarchived = await server.gql(updateAnalysis, { id: analysis.id, input: { archived: false, name: "Back", version: 1 } });
    expect(unarchived.body.errors).toBeUndefined();
    expect(unarchived.body.data.updateAnalysis).toEqual({ id: analysis.id, name: "Back", archived: false, version: 2 });
    const listed = await server.gql(`query($f: JSON) { analyses(filter: $f) { content { id } } }`, { f: { id: analysis.id, archived: false } });
    expect(listed.body.data.analyses.content).toEqual([{ id: analysis.id }]);
  });

  it("deletes through deleteAnalysis, then answers NOT_FOUND", async () => {
    const analysis = await createOverGraphql("Graph delete");
    const deleted = await server.gql(`mutation($id: ID!) { deleteAnalysis(id: $id) { id } }`, { id: analysis.id });
    expect(deleted.body.errors).toBeUndefined();
    expect(deleted.body.data.deleteAnalysis).toEqual({ id: analysis.id });
    const read = await server.gql(`query($id: ID!) { analysis(id: $id) { id } }`, { id: analysis.id });
    expect(read.body.errors[0].extensions).toMatchObject({ code: "NOT_FOUND", status: 404 });
    const again = await server.gql(`mutation($id: ID!) { deleteAnalysis(id: $id) { id } }`, { id: analysis.id });
    expect(again.body.errors[0].extensions).toMatchObject({ code: "NOT_FOUND", status: 404 });
  });
});
