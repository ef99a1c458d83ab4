import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { ANALYSIS_TYPE_IDS } from "../catalogue/ids.js";

let server: TestServer;
let organizationId: string;
let userId: string;
beforeAll(async () => {
  server = await startTestServer();
  organizationId = (await server.api.post("/organizations", { name: "Engagement owner" })).body.id;
  userId = (await server.api.get("/users/current")).body.id;
});
afterAll(async () => server?.close());

const PERIOD = { fiscalStartDay: 1, fiscalStartMonth: 4, frequency: "ANNUAL" };
const base = () => ({ organizationId, name: "FY2025 audit", auditPeriodEndDate: "2026-03-31", accountingPeriod: PERIOD });

/** A monthly reporting period configuration (one period covering the fiscal year). */
async function calendar(): Promise<string> {
  const response = await server.api.post("/reporting-period-config", {
    name: `Calendar ${Date.now()}`,
    monthlyEntries: [{ period: 1, quarter: 1, year: 2025, startDate: "2025-04-01", endDate: "2026-03-31" }],
  });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.id;
}

describe("engagements", () => {
  it("creates with defaults and reads back the wire read model", async () => {
    const created = await server.api.post("/engagements", { ...base(), accountingPackage: "QuickBooks", industry: "Retail", billingCode: "B-1", auditorIds: [userId] });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toMatchObject({
      organizationId,
      name: "FY2025 audit",
      libraryId: "5cc9076887f13cb8a7a1926b",
      accountingPeriod: PERIOD,
      auditPeriodEndDate: "2026-03-31",
      auditorIds: [userId],
      engagementLeadId: userId,
      emailSubscriptions: [],
      version: 0,
    });
    expect(created.body.reportingPeriodConfigurationId).toBeUndefined();
    expect((await server.api.get(`/engagements/${created.body.id}`)).body).toEqual(created.body);
  });

  it("requires one of accountingPeriod and reportingPeriodConfigurationId", async () => {
    const neither = await server.api.post("/engagements", { organizationId, name: "x", auditPeriodEndDate: "2025-12-31" });
    expect(neither.status).toBe(400);
    expect(neither.body.problems[0]).toMatchObject({ identifier: "accountingPeriod", reason: expect.stringMatching(/One of accountingPeriod or reportingPeriodConfigurationId is required/) });
    const unknownConfiguration = await server.api.post("/engagements", { ...base(), reportingPeriodConfigurationId: "5cc9076887f13cb8a7a1aaaa" });
    expect(unknownConfiguration.status).toBe(400);
    expect(unknownConfiguration.body.problems[0].identifier).toBe("reportingPeriodConfigurationId");
  });

  it("creates with both: the configuration replaces the accounting period", async () => {
    const configurationId = await calendar();
    const both = await server.api.post("/engagements", { ...base(), reportingPeriodConfigurationId: configurationId });
    expect(both.status, JSON.stringify(both.body)).toBe(200);
    expect(both.body.reportingPeriodConfigurationId).toBe(configurationId);
    expect(both.body.accountingPeriod).toBeUndefined();
    // A malformed accounting period is still a caller error, even when the configuration replaces it.
    const badPeriod = await server.api.post("/engagements", { ...base(), accountingPeriod: { ...PERIOD, fiscalStartMonth: 13 }, reportingPeriodConfigurationId: configurationId });
    expect(badPeriod.status).toBe(400);
    expect(badPeriod.body.problems[0].identifier).toBe("accountingPeriod.fiscalStartMonth");
  });

  it("switches to a configuration when the read body is sent back with reportingPeriodConfigurationId, and back with an explicit null", async () => {
    const configurationId = await calendar();
    const created = (await server.api.post("/engagements", base())).body;
    const analysis = await server.api.post("/analyses", { engagementId: created.id, analysisTypeId: ANALYSIS_TYPE_IDS.GENERAL_LEDGER, name: "Inherits", analysisPeriods: [{ startDate: "2025-04-01", endDate: "2026-03-31" }] });
    expect(analysis.status).toBe(200);
    expect(analysis.body.reportingPeriodConfigurationId).toBeUndefined();

    // Wire callers omit nulls and send read bodies back: accountingPeriod and the new configuration together.
    const switched = await server.api.put(`/engagements/${created.id}`, { ...created, reportingPeriodConfigurationId: configurationId });
    expect(switched.status, JSON.stringify(switched.body)).toBe(200);
    expect(switched.body).toMatchObject({ reportingPeriodConfigurationId: configurationId, version: 1 });
    expect(switched.body.accountingPeriod).toBeUndefined();
    expect((await server.api.get(`/engagements/${created.id}`)).body).toEqual(switched.body);
    // An analysis without its own configuration follows its engagement's.
    expect((await server.api.get(`/analyses/${analysis.body.id}`)).body.reportingPeriodConfigurationId).toBe(configurationId);

    // Sending the read body again (configuration kept, accountingPeriod absent) changes nothing about the choice.
    const again = await server.api.put(`/engagements/${created.id}`, { ...switched.body, name: "Renamed" });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ name: "Renamed", reportingPeriodConfigurationId: configurationId });
    // An accounting period sent while a configuration stays in effect is replaced by it, as on create.
    const withPeriod = await server.api.put(`/engagements/${created.id}`, { ...again.body, accountingPeriod: PERIOD });
    expect(withPeriod.status).toBe(200);
    expect(withPeriod.body.accountingPeriod).toBeUndefined();

    // Clearing the configuration needs an accounting period to fall back on.
    const neither = await server.api.put(`/engagements/${created.id}`, { ...withPeriod.body, reportingPeriodConfigurationId: null });
    expect(neither.status).toBe(400);
    expect(neither.body.problems[0].identifier).toBe("accountingPeriod");
    const back = await server.api.put(`/engagements/${created.id}`, { ...withPeriod.body, reportingPeriodConfigurationId: null, accountingPeriod: PERIOD });
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    expect(back.body.accountingPeriod).toEqual(PERIOD);
    expect(back.body.reportingPeriodConfigurationId).toBeUndefined();
    expect((await server.api.get(`/analyses/${analysis.body.id}`)).body.reportingPeriodConfigurationId).toBeUndefined();
  });

  it("switches to a configuration over GraphQL with the same rule", async () => {
    const configurationId = await calendar();
    const created = (await server.api.post("/engagements", base())).body;
    const update = `mutation($id: ID!, $input: UpdateEngagementInput!) { updateEngagement(id: $id, input: $input) { reportingPeriodConfigurationId accountingPeriod { frequency } version } }`;
    const switched = await server.gql(update, { id: created.id, input: { accountingPeriod: PERIOD, reportingPeriodConfigurationId: configurationId, emailSubscriptions: [], version: 0 } });
    expect(switched.body.errors).toBeUndefined();
    expect(switched.body.data.updateEngagement).toEqual({ reportingPeriodConfigurationId: configurationId, accountingPeriod: null, version: 1 });
    const neither = await server.gql(update, { id: created.id, input: { reportingPeriodConfigurationId: null, emailSubscriptions: [], version: 1 } });
    expect(neither.body.errors[0].extensions).toMatchObject({ code: "VALIDATION", status: 400, problems: [{ identifier: "accountingPeriod" }] });
  });

  it("validates the accounting period, dates, enums and references", async () => {
    const badDay = await server.api.post("/engagements", { ...base(), accountingPeriod: { ...PERIOD, fiscalStartMonth: 2, fiscalStartDay: 30 } });
    expect(badDay.body.problems[0].identifier).toBe("accountingPeriod.fiscalStartDay");
    const badFrequency = await server.api.post("/engagements", { ...base(), accountingPeriod: { ...PERIOD, frequency: "WEEKLY" } });
    expect(badFrequency.status).toBe(400);
    expect(badFrequency.body.problems[0].identifier).toBe("accountingPeriod.frequency");
    const badDate = await server.api.post("/engagements", { ...base(), auditPeriodEndDate: "31/12/2025" });
    expect(badDate.body.problems[0].identifier).toBe("auditPeriodEndDate");
    const noOrganization = await server.api.post("/engagements", { ...base(), organizationId: "5cc9076887f13cb8a7a1aaaa" });
    expect(noOrganization.status).toBe(400);
    expect(noOrganization.body.problems[0].identifier).toBe("organizationId");
    const unknownAuditor = await server.api.post("/engagements", { ...base(), auditorIds: ["5cc9076887f13cb8a7a1aaaa"] });
    expect(unknownAuditor.body.problems[0]).toMatchObject({ identifier: "auditorIds", values: ["5cc9076887f13cb8a7a1aaaa"] });
  });

  it("updates (organizationId and libraryId are read-only there) and requires emailSubscriptions", async () => {
    const created = (await server.api.post("/engagements", base())).body;
    const missingSubscriptions = await server.api.put(`/engagements/${created.id}`, { name: "Renamed", version: created.version });
    expect(missingSubscriptions.status).toBe(400);
    expect(missingSubscriptions.body.problems[0].identifier).toBe("emailSubscriptions");
    const otherOrganization = (await server.api.post("/organizations", { name: "Other" })).body.id;
    const updated = await server.api.put(`/engagements/${created.id}`, {
      ...created,
      name: "Renamed",
      organizationId: otherOrganization,
      emailSubscriptions: [{ userId, eventTypes: ["analysis.complete"] }],
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body).toMatchObject({ name: "Renamed", organizationId, version: 1, emailSubscriptions: [{ userId, eventTypes: ["analysis.complete"] }] });
    const stale = await server.api.put(`/engagements/${created.id}`, { ...created, emailSubscriptions: [] });
    expect(stale.status).toBe(409);
  });

  it("queries by organizationId, dates and name", async () => {
    const organization = (await server.api.post("/organizations", { name: "Query owner" })).body.id;
    for (const [name, end] of [["A", "2024-12-31"], ["B", "2025-12-31"], ["C", "2026-12-31"]]) {
      await server.api.post("/engagements", { ...base(), organizationId: organization, name, auditPeriodEndDate: end });
    }
    const all = await server.api.post("/engagements/query", { organizationId: organization });
    expect(all.body.totalElements).toBe(3);
    const recent = await server.api.post("/engagements/query?sort=auditPeriodEndDate,desc", { organizationId: organization, auditPeriodEndDate: { $gte: "2025-01-01" } });
    expect(recent.body.content.map((e: { name: string }) => e.name)).toEqual(["C", "B"]);
  });

  it("deletes", async () => {
    const created = (await server.api.post("/engagements", base())).body;
    expect((await server.api.delete(`/engagements/${created.id}`)).status).toBe(204);
    expect((await server.api.get(`/engagements/${created.id}`)).status).toBe(404);
  });
});
