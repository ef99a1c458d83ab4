import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { ANALYSIS_TYPE_IDS } from "../catalogue/ids.js";
import { reportingPeriodProblems, type MonthlyEntry, type WeeklyEntry } from "./reporting-period.rules.js";

let server: TestServer;
let organizationId: string;
beforeAll(async () => {
  server = await startTestServer();
  organizationId = (await server.api.post("/organizations", { name: "Retailer" })).body.id;
});
afterAll(async () => server?.close());

const addDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/** A 4-4-5 quarter of a retail calendar starting on a Sunday: 13 weeks, 3 periods. */
function retailQuarter(start = "2025-01-05", year = 2025) {
  const weeks: WeeklyEntry[] = Array.from({ length: 13 }, (_, i) => ({ week: i + 1, year, startDate: addDays(start, 7 * i), endDate: addDays(start, 7 * i + 6) }));
  const months: MonthlyEntry[] = [];
  let first = 0;
  [4, 4, 5].forEach((length, i) => {
    months.push({ period: i + 1, quarter: 1, year, startDate: weeks[first].startDate, endDate: weeks[first + length - 1].endDate });
    first += length;
  });
  return { monthlyEntries: months, weeklyEntries: weeks };
}

let counter = 0;
const create = (body: Record<string, unknown>) => server.api.post("/reporting-period-config", { name: `Calendar ${++counter}`, ...retailQuarter(), ...body });

describe("reporting period rules (unit)", () => {
  it("accepts a consistent calendar and a monthly-only one", () => {
    const { monthlyEntries, weeklyEntries } = retailQuarter();
    expect(reportingPeriodProblems(monthlyEntries, weeklyEntries)).toEqual([]);
    expect(reportingPeriodProblems(monthlyEntries, [])).toEqual([]);
  });
});

describe("reporting period configurations REST", () => {
  it("creates, derives the type and originalName, and reads back", async () => {
    const created = await create({ name: "FY2025 retail" });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ name: "FY2025 retail", originalName: "FY2025 retail", type: "MONTHLY_AND_WEEKLY", version: 0 });
    expect(created.body.monthlyEntries[2]).toEqual({ period: 3, quarter: 1, year: 2025, startDate: "2025-03-02", endDate: "2025-04-05" });
    expect(created.body.weeklyEntries).toHaveLength(13);
    expect((await server.api.get(`/reporting-period-config/${created.body.id}`)).body).toEqual(created.body);
    // Spec 4.4 writes the read as "GET /reporting-period-config (by id)": the id in the query string works too.
    const byQuery = await server.api.get(`/reporting-period-config?id=${created.body.id}`);
    expect(byQuery.status).toBe(200);
    expect(byQuery.body).toEqual(created.body);
    const withoutId = await server.api.get("/reporting-period-config");
    expect(withoutId.status).toBe(400);
    expect(withoutId.body.problems[0].identifier).toBe("id");
    expect((await server.api.get("/reporting-period-config?id=5cc9076887f13cb8a7a1aaaa")).status).toBe(404);

    const monthly = await create({ weeklyEntries: undefined, originalName: "calendar.xlsx" });
    expect(monthly.status).toBe(200);
    expect(monthly.body).toMatchObject({ type: "MONTHLY", originalName: "calendar.xlsx", weeklyEntries: [] });
  });

  it("stores entries in date order whatever order they were sent in", async () => {
    const { monthlyEntries, weeklyEntries } = retailQuarter();
    const created = await create({ monthlyEntries: [...monthlyEntries].reverse(), weeklyEntries: [...weeklyEntries].reverse() });
    expect(created.status).toBe(200);
    expect(created.body.monthlyEntries.map((m: MonthlyEntry) => m.period)).toEqual([1, 2, 3]);
    expect(created.body.weeklyEntries[0].week).toBe(1);
  });

  it("refuses monthly and weekly entries that describe different ranges, naming the mismatch", async () => {
    const quarter = retailQuarter();
    // Period 1 ends mid-week: week 4 straddles periods 1 and 2.
    const midWeek = quarter.monthlyEntries.map((m, i) => (i === 0 ? { ...m, endDate: "2025-01-31" } : i === 1 ? { ...m, startDate: "2025-02-01" } : m));
    const straddle = await create({ monthlyEntries: midWeek });
    expect(straddle.status).toBe(400);
    expect(straddle.body.problems[0]).toMatchObject({ identifier: "monthlyEntries[0].endDate", problemType: "ILLEGAL_ARGUMENT", values: ["2025-01-31"] });
    expect(straddle.body.problems[0].reason).toMatch(/week 4 of 2025 runs 2025-01-26..2025-02-01/);

    const lateWeeks = await create({ weeklyEntries: quarter.weeklyEntries.slice(1) });
    expect(lateWeeks.status).toBe(400);
    expect(lateWeeks.body.problems[0].identifier).toBe("weeklyEntries[0].startDate");

    const shortWeeks = await create({ weeklyEntries: quarter.weeklyEntries.slice(0, 12) });
    expect(shortWeeks.body.problems[0].identifier).toBe("weeklyEntries[11].endDate");

    const wrongYear = await create({ weeklyEntries: quarter.weeklyEntries.map((w, i) => (i === 5 ? { ...w, year: 2024 } : w)) });
    expect(wrongYear.status).toBe(400);
    expect(wrongYear.body.problems[0]).toMatchObject({ identifier: "weeklyEntries[5].year", values: ["2024"] });
  });

  it("refuses gaps, overlaps, reversed dates, out-of-range and duplicate numbers", async () => {
    const { monthlyEntries } = retailQuarter();
    const cases: Array<[MonthlyEntry[], string, string]> = [
      [monthlyEntries.map((m, i) => (i === 1 ? { ...m, startDate: addDays(m.startDate, 1) } : m)), "monthlyEntries[1].startDate", "ILLEGAL_ARGUMENT"],
      [monthlyEntries.map((m, i) => (i === 2 ? { ...m, startDate: addDays(m.startDate, -3) } : m)), "monthlyEntries[2].startDate", "ILLEGAL_ARGUMENT"],
      [monthlyEntries.map((m, i) => (i === 0 ? { ...m, endDate: "2025-01-01" } : m)), "monthlyEntries[0].endDate", "GREATER_VALUE_REQUIRED"],
      [monthlyEntries.map((m, i) => (i === 0 ? { ...m, quarter: 5 } : m)), "monthlyEntries[0].quarter", "LESS_VALUE_REQUIRED"],
      [monthlyEntries.map((m, i) => (i === 0 ? { ...m, period: 0 } : m)), "monthlyEntries[0].period", "GREATER_VALUE_REQUIRED"],
      [monthlyEntries.map((m, i) => (i === 1 ? { ...m, period: 1 } : m)), "monthlyEntries[1].period", "NON_UNIQUE_VALUE"],
    ];
    for (const [entries, identifier, problemType] of cases) {
      const response = await create({ monthlyEntries: entries, weeklyEntries: undefined });
      expect(response.status, identifier).toBe(400);
      expect(response.body.problems[0], identifier).toMatchObject({ identifier, problemType });
    }
    const empty = await create({ monthlyEntries: [] });
    expect(empty.body.problems[0].identifier).toBe("monthlyEntries");
    const badDate = await create({ monthlyEntries: [{ ...monthlyEntries[0], startDate: "2025-02-30" }] });
    expect(badDate.status).toBe(400);
    expect(badDate.body.problems[0].identifier).toBe("monthlyEntries[0].startDate");
    const contradiction = await create({ type: "MONTHLY" });
    expect(contradiction.body.problems[0].identifier).toBe("type");
  });

  it("queries on id, type, name and originalName", async () => {
    const a = (await create({ name: "Query calendar A", originalName: "a.csv" })).body;
    const b = (await create({ name: "Query calendar B", weeklyEntries: undefined })).body;
    const ids = (filter: unknown) => server.api.post("/reporting-period-config/query", filter).then((r) => r.body.content.map((c: { id: string }) => c.id));
    expect(await ids({ name: { $iprefix: "query calendar" } })).toEqual([a.id, b.id]);
    expect(await ids({ $and: [{ name: { $iprefix: "query calendar" } }, { type: "MONTHLY" }] })).toEqual([b.id]);
    expect(await ids({ originalName: "A.CSV" })).toEqual([a.id]);
    expect(await ids({ id: { $in: [b.id] } })).toEqual([b.id]);
    expect((await server.api.post("/reporting-period-config/query", { monthlyEntries: [] })).status).toBe(400);
  });

  it("has no update; deletes when unused and refuses while an engagement or analysis uses it", async () => {
    const config = (await create({})).body;
    expect((await server.api.put(`/reporting-period-config/${config.id}`, { ...config })).status).toBe(405);

    const engagement = await server.api.post("/engagements", { organizationId, name: "Retail FY2025", reportingPeriodConfigurationId: config.id });
    expect(engagement.status).toBe(200);
    expect(engagement.body.reportingPeriodConfigurationId).toBe(config.id);
    const refused = await server.api.delete(`/reporting-period-config/${config.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.problems[0].problemType).toBe("CANNOT_DELETE");
    expect((await server.api.delete(`/engagements/${engagement.body.id}`)).status).toBe(204);
    expect((await server.api.delete(`/reporting-period-config/${config.id}`)).status).toBe(204);
    expect((await server.api.get(`/reporting-period-config/${config.id}`)).status).toBe(404);
    expect((await server.api.delete(`/reporting-period-config/${config.id}`)).status).toBe(404);
  });
});

describe("reporting period permissions", () => {
  it("needs api.reporting-period-configurations.write to create and .read to query", async () => {
    const token = await server.api.post("/api-tokens", { name: "calendar reader", permissions: ["api.reporting-period-configurations.read"] });
    const reader = server.api.withToken(token.body.token);
    expect((await reader.post("/reporting-period-config/query", {})).status).toBe(200);
    const refused = await reader.post("/reporting-period-config", { name: "x", ...retailQuarter() });
    expect(refused.status).toBe(403);
    expect(refused.body.problems[0].values).toEqual(["api.reporting-period-configurations.write"]);
  });
});

describe("engagements and analyses referencing reporting period configurations", () => {
  it("refuses an unknown configuration, naming the field", async () => {
    const engagement = await server.api.post("/engagements", { organizationId, name: "x", reportingPeriodConfigurationId: "5cc9076887f13cb8a7a1aaaa" });
    expect(engagement.status).toBe(400);
    expect(engagement.body.problems[0]).toMatchObject({ identifier: "reportingPeriodConfigurationId", values: ["5cc9076887f13cb8a7a1aaaa"] });
  });

  it("lets an analysis without its own configuration inherit its engagement's", async () => {
    const first = (await create({})).body;
    const second = (await create({})).body;
    const engagement = (await server.api.post("/engagements", { organizationId, name: "Inherits", reportingPeriodConfigurationId: first.id })).body;
    const analysisBody = { engagementId: engagement.id, analysisTypeId: ANALYSIS_TYPE_IDS.GENERAL_LEDGER, name: "Inheriting", analysisPeriods: [{ startDate: "2025-01-05", endDate: "2025-04-05" }] };
    const inheriting = await server.api.post("/analyses", analysisBody);
    expect(inheriting.status).toBe(200);
    expect(inheriting.body.reportingPeriodConfigurationId).toBe(first.id);
    const own = await server.api.post("/analyses", { ...analysisBody, name: "Own", reportingPeriodConfigurationId: second.id });
    expect(own.body.reportingPeriodConfigurationId).toBe(second.id);
    const unknown = await server.api.post("/analyses", { ...analysisBody, reportingPeriodConfigurationId: "5cc9076887f13cb8a7a1aaaa" });
    expect(unknown.status).toBe(400);
    expect(unknown.body.problems[0].identifier).toBe("reportingPeriodConfigurationId");

    // The engagement switches configuration: the inheriting analysis follows, the other keeps its own.
    const updated = await server.api.put(`/engagements/${engagement.id}`, { ...engagement, reportingPeriodConfigurationId: second.id });
    expect(updated.status).toBe(200);
    expect((await server.api.get(`/analyses/${inheriting.body.id}`)).body.reportingPeriodConfigurationId).toBe(second.id);
    const inUse = await server.api.delete(`/reporting-period-config/${second.id}`);
    expect(inUse.status).toBe(409);
    expect((await server.api.delete(`/reporting-period-config/${first.id}`)).status).toBe(204);
  });
});

describe("reporting period configurations over GraphQL", () => {
  it("creates and lists", async () => {
    const created = await server.gql(`mutation($input: CreateReportingPeriodConfigurationInput!) { createReportingPeriodConfiguration(input: $input) { id type monthlyEntries { period startDate } } }`, {
      input: { name: "Graph calendar", ...retailQuarter() },
    });
    expect(created.body.errors).toBeUndefined();
    expect(created.body.data.createReportingPeriodConfiguration).toMatchObject({ type: "MONTHLY_AND_WEEKLY", monthlyEntries: [{ period: 1, startDate: "2025-01-05" }, { period: 2 }, { period: 3 }] });
    const listed = await server.gql(`{ reportingPeriodConfigurations(filter: { name: "graph calendar" }) { totalElements content { weeklyEntries { week } } } }`);
    expect(listed.body.data.reportingPeriodConfigurations.totalElements).toBe(1);
    expect(listed.body.data.reportingPeriodConfigurations.content[0].weeklyEntries).toHaveLength(13);
    const deleted = await server.gql(`mutation($id: ID!) { deleteReportingPeriodConfiguration(id: $id) { id } }`, { id: created.body.data.createReportingPeriodConfiguration.id });
    expect(deleted.body.data.deleteReportingPeriodConfiguration.id).toBe(created.body.data.createReportingPeriodConfiguration.id);
  });

  it("refuses monthly and weekly entries that describe different ranges, naming the mismatch in the error extensions", async () => {
    const quarter = retailQuarter();
    const midWeek = quarter.monthlyEntries.map((m, i) => (i === 0 ? { ...m, endDate: "2025-01-31" } : i === 1 ? { ...m, startDate: "2025-02-01" } : m));
    const refused = await server.gql(`mutation($input: CreateReportingPeriodConfigurationInput!) { createReportingPeriodConfiguration(input: $input) { id } }`, {
      input: { name: "Graph mismatch", monthlyEntries: midWeek, weeklyEntries: quarter.weeklyEntries },
    });
    expect(refused.body.data).toBeNull();
    expect(refused.body.errors).toHaveLength(1);
    const { extensions, message } = refused.body.errors[0];
    expect(extensions).toMatchObject({ code: "VALIDATION", status: 400 });
    expect(extensions.problems[0]).toMatchObject({ identifier: "monthlyEntries[0].endDate", problemType: "ILLEGAL_ARGUMENT", values: ["2025-01-31"] });
    expect(extensions.problems[0].reason).toMatch(/week 4 of 2025 runs 2025-01-26..2025-02-01/);
    expect(message).toMatch(/week 4 of 2025/);
    const listed = await server.gql(`{ reportingPeriodConfigurations(filter: { name: "graph mismatch" }) { totalElements } }`);
    expect(listed.body.data.reportingPeriodConfigurations.totalElements).toBe(0);
  });

  it("reports the engagement's configuration on an analysis without its own, and the analysis's own otherwise", async () => {
    const create = `mutation($input: CreateReportingPeriodConfigurationInput!) { createReportingPeriodConfiguration(input: $input) { id } }`;
    const first = (await server.gql(create, { input: { name: "Graph inherited", ...retailQuarter() } })).body.data.createReportingPeriodConfiguration.id;
    const second = (await server.gql(create, { input: { name: "Graph own", ...retailQuarter() } })).body.data.createReportingPeriodConfiguration.id;
    const third = (await server.gql(create, { input: { name: "Graph switched", ...retailQuarter() } })).body.data.createReportingPeriodConfiguration.id;
    const engagement = await server.gql(`mutation($input: CreateEngagementInput!) { createEngagement(input: $input) { id version reportingPeriodConfigurationId accountingPeriod { frequency } } }`, {
      input: { organizationId, name: "Graph inherits", reportingPeriodConfigurationId: first },
    });
    expect(engagement.body.errors).toBeUndefined();
    expect(engagement.body.data.createEngagement).toMatchObject({ reportingPeriodConfigurationId: first, accountingPeriod: null });
    const engagementId = engagement.body.data.createEngagement.id;
    const createAnalysis = `mutation($input: CreateAnalysisInput!) { createAnalysis(input: $input) { id reportingPeriodConfigurationId } }`;
    const input = { engagementId, analysisTypeId: ANALYSIS_TYPE_IDS.GENERAL_LEDGER, name: "Graph inheriting", analysisPeriods: [{ startDate: "2025-01-05", endDate: "2025-04-05" }] };
    const inheriting = (await server.gql(createAnalysis, { input })).body.data.createAnalysis;
    expect(inheriting.reportingPeriodConfigurationId).toBe(first);
    const own = (await server.gql(createAnalysis, { input: { ...input, name: "Graph own", reportingPeriodConfigurationId: second } })).body.data.createAnalysis;
    expect(own.reportingPeriodConfigurationId).toBe(second);

    // The engagement switches to a third configuration: the inheriting analysis follows, the other keeps its own.
    const switched = await server.gql(`mutation($id: ID!, $input: UpdateEngagementInput!) { updateEngagement(id: $id, input: $input) { reportingPeriodConfigurationId } }`, {
      id: engagementId,
      input: { reportingPeriodConfigurationId: third, emailSubscriptions: [], version: engagement.body.data.createEngagement.version },
    });
    expect(switched.body.errors).toBeUndefined();
    const read = await server.gql(`query($f: JSON) { analyses(filter: $f, sort: "name") { content { name reportingPeriodConfigurationId } } }`, { f: { engagementId } });
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data.analyses.content).toEqual([
      { name: "Graph inheriting", reportingPeriodConfigurationId: third },
      { name: "Graph own", reportingPeriodConfigurationId: second },
    ]);
    // Nothing refers to the first configuration any more (the inheriting analysis never stored it).
    const deleted = await server.gql(`mutation($id: ID!) { deleteReportingPeriodConfiguration(id: $id) { id } }`, { id: first });
    expect(deleted.body.errors).toBeUndefined();
  });
});
