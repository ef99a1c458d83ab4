import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";

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

  it("requires exactly one of accountingPeriod and reportingPeriodConfigurationId", async () => {
    const neither = await server.api.post("/engagements", { organizationId, name: "x", auditPeriodEndDate: "2025-12-31" });
    expect(neither.status).toBe(400);
    expect(neither.body.problems[0].identifier).toBe("accountingPeriod");
    const both = await server.api.post("/engagements", { ...base(), reportingPeriodConfigurationId: "5cc9076887f13cb8a7a1aaaa" });
    expect(both.status).toBe(400);
    expect(both.body.problems[0].reason).toMatch(/not both/);
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
