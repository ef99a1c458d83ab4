import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { allRows, ledgerAnalysis, resultTable, runAnalysis } from "../../../test/helpers/analysis-run.js";
import { clientWithPermissions } from "../../../test/helpers/entities.js";
import { ledgerCsv, type Tx } from "../../../test/helpers/planted-ledger.js";

/**
 * Saved filters over one small scored result: every condition type of spec 2.9 compiled by the one
 * compiler must select exactly the rows of the equivalent hand-written query-language filter on the
 * data endpoint, every invalid form is a 400 naming its path, and validate reports what does not
 * fit a table. Populations and risk segmentation configs share the same scored result here (one
 * analysis run per file keeps the suite lean).
 */
let server: TestServer;
let engagementId: string;
let analysisId: string;
let lines: { id: string; columns: Array<Record<string, unknown>> };
let txTable: { id: string; columns: Array<Record<string, unknown>> };
let controlPoint: string;

const tx = (txid: string, date: string, debit: string, credit: string, amount: number, extra: Partial<Tx> = {}): Tx => ({
  txid,
  date,
  type: "AP",
  user: "ap_clerk",
  memo: `Bill ${txid}`,
  lines: [{ account: debit, amount }, { account: credit, amount: -amount }],
  ...extra,
});

const LEDGER: Tx[] = [
  tx("T1", "2023-05-10", "5400", "2000", 10_001),
  tx("T2", "2023-05-13", "5400", "2000", 10_003),
  { ...tx("T3", "2023-05-11", "5400", "2000", 10_007), lines: [{ account: "5400", amount: 10_007 }, { account: "5000", amount: 0 }, { account: "2000", amount: -10_007 }] },
  tx("T4", "2023-05-12", "5400", "2000", 500_000),
  tx("T5", "2023-05-15", "1000", "4000", 20_011, { user: "ar_clerk" }),
];

const group = (...conditions: unknown[]) => ({ type: "GROUP", operator: "AND", conditions });

function filterBody(condition: unknown, extra: Record<string, unknown> = {}) {
  return { name: { en: "Filter" }, filterType: "ENGAGEMENT", dataType: "ENTRIES", engagementId, condition, ...extra };
}

async function create(condition: unknown, extra: Record<string, unknown> = {}) {
  return server.api.post("/saved-filters", filterBody(condition, extra));
}

const ids = (rows: Array<Record<string, any>>) => rows.map((r) => `${r.txid}/${r.account ?? ""}/${r.rowid ?? ""}`).sort();

/** The filter's rows through the data endpoint equal the hand-written query's rows. */
async function expectSameRows(condition: unknown, hand: unknown, table = lines, minRows = 1) {
  const created = await create(group(condition), { dataType: table === lines ? "ENTRIES" : "TRANSACTIONS" });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const validation = await server.api.post("/saved-filters/validate", { filterId: created.body.id, dataTableId: table.id });
  expect(validation.status).toBe(200);
  expect(validation.body, JSON.stringify(validation.body)).toMatchObject({ valid: true, errors: [] });
  const viaFilter = await server.api.post(`/data-tables/${table.id}/data`, { savedFilterId: created.body.id, pageSize: 2000 });
  expect(viaFilter.status, JSON.stringify(viaFilter.body)).toBe(200);
  const expected = await allRows(server, table.id, hand);
  expect(ids(viaFilter.body.content)).toEqual(ids(expected));
  expect(viaFilter.body.content.length).toBeGreaterThanOrEqual(minRows);
  return created.body;
}

async function expect400(condition: unknown, identifier: string, extra: Record<string, unknown> = {}) {
  const response = await create(condition, extra);
  expect(response.status, JSON.stringify(response.body)).toBe(400);
  expect(response.body.problems.map((p: { identifier: string }) => p.identifier)).toContain(identifier);
  return response.body;
}

beforeAll(async () => {
  server = await startTestServer();
  const fixture = await ledgerAnalysis(server, "Filters", ledgerCsv(LEDGER));
  engagementId = fixture.engagementId;
  analysisId = fixture.analysisId;
  const run = await runAnalysis(server, fixture.analysisId);
  lines = await resultTable(server, run.result.id, "gl_journal_lines");
  txTable = await resultTable(server, run.result.id, "gl_journal_tx");
  controlPoint = String(lines.columns.map((c) => c.field as string).find((f) => f.startsWith("cp_failed_"))).slice("cp_failed_".length);
}, 180_000);
afterAll(async () => server?.close());

describe("saved filter entity", () => {
  it("creates, reads with plain-English descriptions, queries, updates with the version and deletes", async () => {
    const created = await create(group({ type: "MONEY", field: "debit", monetaryValueType: "MORE_THAN", value: 100_000 }, { type: "DATE", field: "effective_date", dateType: "BEFORE", value: "2023-05-14", negated: true }), {
      displayCurrencyCode: "USD",
      category: { en: "Payables" },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toMatchObject({ filterType: "ENGAGEMENT", dataType: "ENTRIES", legacyFilterFormat: false, version: 0 });
    const read = await server.api.get(`/saved-filters/${created.body.id}`);
    expect(read.body.condition.conditions[0].fullConditionDescription).toBe("Debit is more than USD 1,000.00");
    expect(read.body.condition.conditions[1].fullConditionDescription).toBe("Effective date is not before 2023-05-14");
    expect(read.body.condition.fullConditionDescription).toBe("Debit is more than USD 1,000.00 and Effective date is not before 2023-05-14");
    const page = await server.api.post("/saved-filters/query", { engagementId, filterType: "ENGAGEMENT" });
    expect(page.body.content.map((f: { id: string }) => f.id)).toContain(created.body.id);
    // A read body is a valid update body (descriptions and read-only keys are dropped).
    const updated = await server.api.put(`/saved-filters/${created.body.id}`, { ...read.body, name: { en: "Renamed" } });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body).toMatchObject({ name: { en: "Renamed" }, version: 1 });
    const stale = await server.api.put(`/saved-filters/${created.body.id}`, { name: { en: "Again" }, version: 0 });
    expect(stale.status).toBe(409);
    expect((await server.api.delete(`/saved-filters/${created.body.id}`)).status).toBe(204);
    expect((await server.api.get(`/saved-filters/${created.body.id}`)).status).toBe(404);
  });

  it("needs the scope id of its level, and refuses a top-level condition that is not a GROUP", async () => {
    await expect400(group({ type: "DATE", field: "effective_date", dateType: "AFTER", value: "2023-01-01" }), "libraryId", { filterType: "LIBRARY", engagementId: undefined });
    await expect400({ type: "DATE", field: "effective_date", dateType: "AFTER", value: "2023-01-01" }, "condition.type");
    await expect400(group(), "condition.conditions");
    await expect400({ ...group({ type: "DATE", field: "effective_date", dateType: "AFTER", value: "2023-01-01" }), operator: "XOR" }, "condition.operator");
    await expect400(group({ type: "DATE", field: "effective_date", dateType: "AFTER", value: "2023-01-01", colour: "red" }), "condition.conditions[0].colour");
    await expect400(group({ type: "NOPE", field: "x" }), "condition.conditions[0].type");
    await expect400(group({ type: "MONEY", monetaryValueType: "MORE_THAN", value: 1 }), "condition.conditions[0].field");
    const blankName = await server.api.post("/saved-filters", { ...filterBody(group({ type: "DATE", field: "effective_date", dateType: "AFTER", value: "2023-01-01" })), name: { en: " " } });
    expect(blankName.status).toBe(400);
    expect(blankName.body.problems[0].identifier).toBe("name.en");
  });

  it("keeps PRIVATE filters to their creator", async () => {
    const created = await create(group({ type: "DATE", field: "effective_date", dateType: "AFTER", value: "2023-01-01" }), { filterType: "PRIVATE", engagementId: undefined });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const other = await clientWithPermissions(server.api, ["api.filters.read"], "other reader");
    expect((await other.get(`/saved-filters/${created.body.id}`)).status).toBe(404);
    const theirs = await other.post("/saved-filters/query?size=100", { filterType: "PRIVATE" });
    expect(theirs.body.content).toEqual([]);
    const mine = await server.api.post("/saved-filters/query?size=100", { filterType: "PRIVATE" });
    expect(mine.body.content.map((f: { id: string }) => f.id)).toContain(created.body.id);
    const noPermission = await clientWithPermissions(server.api, ["api.analyses.read"], "no filters");
    expect((await noPermission.post("/saved-filters/query", {})).status).toBe(403);
  });

  it("reads a legacy-format filter with a null condition, reports it on validate, and converts it on update", async () => {
    const created = await create(group({ type: "DATE", field: "effective_date", dateType: "AFTER", value: "2023-01-01" }));
    const client = new pg.Client({ connectionString: server.databaseUrl });
    await client.connect();
    await client.query("UPDATE saved_filter SET legacy_filter_format = true, condition = NULL WHERE id = $1", [created.body.id]);
    await client.end();
    const read = await server.api.get(`/saved-filters/${created.body.id}`);
    expect(read.body.legacyFilterFormat).toBe(true);
    expect(read.body.condition).toBeUndefined();
    const validation = await server.api.post("/saved-filters/validate", { filterId: created.body.id, dataTableId: lines.id });
    expect(validation.body).toMatchObject({ valid: false, errors: [{ identifier: "condition", severity: "ERROR" }] });
    const data = await server.api.post(`/data-tables/${lines.id}/data`, { savedFilterId: created.body.id });
    expect(data.status).toBe(400);
    const converted = await server.api.put(`/saved-filters/${created.body.id}`, { condition: group({ type: "DATE", field: "effective_date", dateType: "AFTER", value: "2023-05-12" }), version: read.body.version });
    expect(converted.status, JSON.stringify(converted.body)).toBe(200);
    expect(converted.body.legacyFilterFormat).toBe(false);
    expect(converted.body.condition.conditions[0].fullConditionDescription).toBe("Effective date is after 2023-05-12");
  });
});

describe("condition types", () => {
  it("GROUP: AND and OR, nested, negated", async () => {
    const a = { type: "MONEY", field: "amount", monetaryValueType: "MORE_THAN", value: 0 };
    const b = { type: "DATE", field: "effective_date", dateType: "AFTER", value: "2023-05-12" };
    await expectSameRows({ type: "GROUP", operator: "OR", conditions: [a, b] }, { $or: [{ amount: { $gt: 0 } }, { effective_date: { $gt: "2023-05-12" } }] });
    await expectSameRows({ type: "GROUP", operator: "AND", negated: true, conditions: [a, b] }, { $or: [{ amount: { $lte: 0 } }, { effective_date: { $lte: "2023-05-12" } }] });
  });

  it("STRING: riskGroup and accountScoping values", async () => {
    await expectSameRows({ type: "STRING", field: "riskGroup", values: ["PROFIT_LOSS"] }, { riskGroup: { $in: ["PROFIT_LOSS"] } });
    await expectSameRows({ type: "STRING", field: "riskGroup", values: ["PROFIT_LOSS"], negated: true }, { riskGroup: { $nin: ["PROFIT_LOSS"] } });
    await expectSameRows({ type: "STRING", field: "accountScoping", values: ["SIGNIFICANT", "INSIGNIFICANT", "UNSCOPED"] }, {}, lines, 11);
    await expect400(group({ type: "STRING", field: "account", values: ["5400"] }), "condition.conditions[0].field");
    await expect400(group({ type: "STRING", field: "accountScoping", values: ["MAYBE"] }), "condition.conditions[0].values[0]");
    await expect400(group({ type: "STRING", field: "riskGroup", values: ["GENERAL"] }), "condition.conditions[0].values[0]");
    await expect400(group({ type: "STRING", field: "riskGroup", values: [] }), "condition.conditions[0].values");
  });

  it("STRING_ARRAY: prefixes of a prefix-searchable column", async () => {
    await expectSameRows({ type: "STRING_ARRAY", field: "account", values: ["54", "10"] }, { $or: [{ account: { $iprefix: "54" } }, { account: { $iprefix: "10" } }] });
    await expect400(group({ type: "STRING_ARRAY", field: "account", values: [3] }), "condition.conditions[0].values[0]");
    const memo = await create(group({ type: "STRING_ARRAY", field: "memo", values: ["Bill"] }));
    const validation = await server.api.post("/saved-filters/validate", { filterId: memo.body.id, dataTableId: lines.id });
    expect(validation.body).toMatchObject({ valid: false, errors: [{ identifier: "condition.conditions[0].field" }] });
  });

  it("CONTROL_POINT: high, medium and low risk per control point; rules-based points refuse MEDIUM_RISK", async () => {
    await expectSameRows({ type: "CONTROL_POINT", field: "cp_failed", riskLevel: "HIGH_RISK", controlPoints: [{ id: controlPoint }] }, { cp_failed: { $flags: { [controlPoint]: true } } }, lines, 0);
    await expectSameRows({ type: "CONTROL_POINT", field: "cp_failed", riskLevel: "LOW_RISK", controlPoints: [{ id: controlPoint }] }, { cp_failed: { $flags: { [controlPoint]: false } } });
    await expectSameRows(
      { type: "CONTROL_POINT", field: "cp_failed", riskLevel: "MEDIUM_RISK", controlPoints: [{ id: controlPoint }] },
      { $and: [{ cp_failed: { $flags: { [controlPoint]: false } } }, { [`cp_score_${controlPoint}`]: { $gt: 0 } }] },
      lines,
      0,
    );
    await expect400(group({ type: "CONTROL_POINT", field: "cp_failed", riskLevel: "MEDIUM_RISK", controlPoints: [{ id: controlPoint, rulesBased: true }] }), "condition.conditions[0].controlPoints[0].rulesBased");
    await expect400(group({ type: "CONTROL_POINT", field: "cp_failed", riskLevel: "VERY_HIGH", controlPoints: [{ id: controlPoint }] }), "condition.conditions[0].riskLevel");
    await expect400(group({ type: "CONTROL_POINT", field: "cp_failed", riskLevel: "HIGH_RISK", controlPoints: [{ id: "custom_1" }] }), "condition.conditions[0].controlPoints[0].symbolicName");
    await expect400(group({ type: "CONTROL_POINT", field: "risk", riskLevel: "HIGH_RISK", controlPoints: [{ id: controlPoint }] }), "condition.conditions[0].field");
    const unknown = await create(group({ type: "CONTROL_POINT", field: "cp_failed", riskLevel: "HIGH_RISK", controlPoints: [{ id: "no_such_point" }] }));
    const validation = await server.api.post("/saved-filters/validate", { filterId: unknown.body.id, dataTableId: lines.id });
    expect(validation.body).toMatchObject({ valid: false, errors: [{ identifier: "condition.conditions[0].controlPoints[0].id" }] });
  });

  it("ACCOUNT_NODE_ARRAY: accounts by id or group code, increasing by debits or credits", async () => {
    const codes = (await allRows(server, lines.id, { account: "5400" }))[0].account_hierarchy_codes as string[];
    expect(codes.length).toBeGreaterThan(0);
    await expectSameRows({ type: "ACCOUNT_NODE_ARRAY", field: "account_hierarchy_codes", accountSelections: [{ code: codes[codes.length - 1] }] }, { account_hierarchy_codes: { $contains: codes[codes.length - 1] } });
    await expectSameRows({ type: "ACCOUNT_NODE_ARRAY", field: "account_hierarchy_codes", accountSelections: [{ code: "5400", useAccountId: true }, { code: "1000", useAccountId: true }] }, { account: { $in: ["5400", "1000"] } });
    await expectSameRows({ type: "ACCOUNT_NODE_ARRAY", field: "increasingCredits", accountSelections: [{ code: "2000", useAccountId: true }] }, { account: "2000", credit: { $gt: 0 } });
    await expect400(group({ type: "ACCOUNT_NODE_ARRAY", field: "account", accountSelections: [{ code: "5400" }] }), "condition.conditions[0].field");
    await expect400(group({ type: "ACCOUNT_NODE_ARRAY", field: "increasingDebits", accountSelections: [{ code: "" }] }), "condition.conditions[0].accountSelections[0].code");
    await expect400(group({ type: "ACCOUNT_NODE_ARRAY", field: "increasingDebits", accountSelections: [{ code: "1", useAccountId: "yes" }] }), "condition.conditions[0].accountSelections[0].useAccountId");
  });

  it("TYPEAHEAD_ENTRY: lookup ids on a column, fund restriction values checked", async () => {
    await expectSameRows({ type: "TYPEAHEAD_ENTRY", field: "user_id", values: [{ lookupId: "ar_clerk", displayName: "AR clerk" }] }, { user_id: { $in: ["ar_clerk"] } });
    await expect400(group({ type: "TYPEAHEAD_ENTRY", field: "entriesFundRestriction", values: [{ lookupId: "sometimes" }] }), "condition.conditions[0].values[0].lookupId");
    await expect400(group({ type: "TYPEAHEAD_ENTRY", field: "user_id", values: [{ displayName: "x" }] }), "condition.conditions[0].values[0].lookupId");
  });

  it("POPULATIONS: population ids, only below library and organization level", async () => {
    const ok = await create(group({ type: "POPULATIONS", field: "population", populationIds: ["5cc9076887f13cb8a7a1926b"] }));
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.condition.conditions[0].fullConditionDescription).toBe('Entry is in population "5cc9076887f13cb8a7a1926b"');
    await expect400(group({ type: "POPULATIONS", field: "population", populationIds: ["5cc9076887f13cb8a7a1926b"] }), "condition.conditions[0].type", { filterType: "ORGANIZATION", engagementId: undefined, organizationId: (await server.api.get(`/engagements/${engagementId}`)).body.organizationId });
    await expect400(group({ type: "POPULATIONS", field: "population", populationIds: ["nope"] }), "condition.conditions[0].populationIds[0]");
  });

  it("RISK_SCORE: HML levels, percentages, custom ranges, risk range bounds and unscored", async () => {
    await expectSameRows({ type: "RISK_SCORE", field: "riskScoresHml", riskScoreType: "HML", values: ["HIGH", "MEDIUM"] }, { risk_level: { $in: ["HIGH", "MEDIUM"] } }, lines, 0);
    await expectSameRows({ type: "RISK_SCORE", field: "riskScoresPercentage", riskScoreType: "PERCENT", riskScorePercentType: "LESS_THAN", value: 5000 }, { risk: { $lt: 5000 } });
    await expectSameRows({ type: "RISK_SCORE", field: "riskScoresPercentage", riskScoreType: "PERCENT", riskScorePercentType: "CUSTOM_RANGE", rangeStart: 0, rangeEnd: 10000 }, { risk: { $gte: 0, $lte: 10000 } });
    await expectSameRows({ type: "RISK_SCORE", field: "riskScoresPercentage", riskScoreType: "PERCENT", riskScorePercentType: "UNSCORED" }, { risk_level: "UNSCORED" }, lines, 0);
    const ranges = await server.api.post("/risk-ranges/query", { system: true });
    const high = ranges.body.content[0].high;
    await expectSameRows(
      { type: "RISK_SCORE", field: "riskScoresPercentage", riskScoreType: "PERCENT", riskScorePercentType: "BETWEEN", rangeStart: high.lowThreshold, rangeEnd: high.highThreshold },
      { risk: { $gte: high.lowThreshold, $lte: high.highThreshold } },
      lines,
      0,
    );
    const between = await expect400(group({ type: "RISK_SCORE", field: "riskScoresPercentage", riskScoreType: "PERCENT", riskScorePercentType: "BETWEEN", rangeStart: 1, rangeEnd: 2 }), "condition.conditions[0].rangeStart");
    expect(between.problems[0].problemType).toBe("RISK_SCORE_FILTER_CONVERSION_FAILED");
    await expect400(group({ type: "RISK_SCORE", field: "riskScoresPercentage", riskScoreType: "PERCENT", riskScorePercentType: "MORE_THAN", value: 10001 }), "condition.conditions[0].value");
    await expect400(group({ type: "RISK_SCORE", field: "riskScoresHml", riskScoreType: "HML", values: ["EXTREME"] }), "condition.conditions[0].values[0]");
    await expect400(group({ type: "RISK_SCORE", field: "riskScoresHml", riskScoreType: "PERCENT", riskScorePercentType: "UNSCORED" }), "condition.conditions[0].riskScoreType");
  });

  it("MONETARY_FLOW: simple, complex and specific flows on the transactions table", async () => {
    await expectSameRows({ type: "MONETARY_FLOW", field: "monetarySpecificFlow", monetaryFlowType: "SIMPLE_FLOW" }, { flow_type: "SIMPLE" }, txTable);
    await expectSameRows({ type: "MONETARY_FLOW", field: "monetarySpecificFlow", monetaryFlowType: "COMPLEX_FLOW" }, { flow_type: "COMPLEX" }, txTable, 0);
    await expectSameRows(
      { type: "MONETARY_FLOW", field: "monetarySpecificFlow", monetaryFlowType: "SPECIFIC_FLOW", debitAccount: { code: "5400", useAccountId: true }, creditAccount: { code: "2000", useAccountId: true }, specificMonetaryFlowType: "MORE_THAN", value: 10_005 },
      { $and: [{ accounts: { $contains: "5400" } }, { accounts: { $contains: "2000" } }, { monetary_value: { $gt: 10_005 } }] },
      txTable,
    );
    await expect400(group({ type: "MONETARY_FLOW", field: "monetarySpecificFlow", monetaryFlowType: "SPECIFIC_FLOW", creditAccount: { code: "2000" }, specificMonetaryFlowType: "MORE_THAN", value: 1 }), "condition.conditions[0].debitAccount");
    await expect400(group({ type: "MONETARY_FLOW", field: "monetarySpecificFlow", monetaryFlowType: "SPECIFIC_FLOW", debitAccount: { code: "1" }, creditAccount: { code: "2000" }, specificMonetaryFlowType: "BETWEEN", rangeStart: 5 }), "condition.conditions[0].rangeEnd");
    await expect400(group({ type: "MONETARY_FLOW", field: "monetarySpecificFlow", monetaryFlowType: "ROUND_TRIP" }), "condition.conditions[0].monetaryFlowType");
    // On the entries table there are no flows: validate says so.
    const onLines = await create(group({ type: "MONETARY_FLOW", field: "monetarySpecificFlow", monetaryFlowType: "SIMPLE_FLOW" }));
    const validation = await server.api.post("/saved-filters/validate", { filterId: onLines.body.id, dataTableId: lines.id });
    expect(validation.body.valid).toBe(false);
    expect(validation.body.errors[0].identifier).toBe("condition.conditions[0].field");
  });

  it("MONEY: more than, less than, specific value and between on MONEY_100 columns", async () => {
    await expectSameRows({ type: "MONEY", field: "debit", monetaryValueType: "MORE_THAN", value: 10_003 }, { debit: { $gt: 10_003 } });
    await expectSameRows({ type: "MONEY", field: "amount", monetaryValueType: "LESS_THAN", value: 0 }, { amount: { $lt: 0 } });
    await expectSameRows({ type: "MONEY", field: "debit", monetaryValueType: "SPECIFIC_VALUE", value: 500_000 }, { debit: 500_000 });
    await expectSameRows({ type: "MONEY", field: "credit", monetaryValueType: "BETWEEN", rangeStart: 10_000, rangeEnd: 10_010 }, { credit: { $gte: 10_000, $lte: 10_010 } });
    await expect400(group({ type: "MONEY", field: "debit", monetaryValueType: "MORE_THAN", value: 1.5 }), "condition.conditions[0].value");
    await expect400(group({ type: "MONEY", field: "debit", monetaryValueType: "BETWEEN", rangeStart: 9, rangeEnd: 1 }), "condition.conditions[0].rangeEnd");
    await expect400(group({ type: "MONEY", field: "debit", monetaryValueType: "AROUND", value: 1 }), "condition.conditions[0].monetaryValueType");
    const onDate = await create(group({ type: "MONEY", field: "effective_date", monetaryValueType: "MORE_THAN", value: 1 }));
    const validation = await server.api.post("/saved-filters/validate", { filterId: onDate.body.id, dataTableId: lines.id });
    expect(validation.body).toMatchObject({ valid: false, errors: [{ identifier: "condition.conditions[0].field", problemType: "FILTER_CONVERSION_FAILED" }] });
  });

  it("MATERIALITY: above, below and a percentage of materiality", async () => {
    await expectSameRows({ type: "MATERIALITY", field: "materiality", materialityOption: "ABOVE" }, { materiality: { $gte: 100 } }, lines, 0);
    await expectSameRows({ type: "MATERIALITY", field: "materiality", materialityOption: "BELOW" }, { materiality: { $lt: 100 } });
    await expectSameRows({ type: "MATERIALITY", field: "materiality", materialityOption: "PERCENTAGE", value: 0.001 }, { materiality: { $gte: 0.001 } });
    await expect400(group({ type: "MATERIALITY", field: "materiality", materialityOption: "ABOVE", value: 3 }), "condition.conditions[0].value");
    await expect400(group({ type: "MATERIALITY", field: "materiality", materialityOption: "PERCENTAGE", value: -1 }), "condition.conditions[0].value");
    await expect400(group({ type: "MATERIALITY", field: "amount", materialityOption: "ABOVE" }), "condition.conditions[0].field");
  });

  it("NUMERICAL: number columns", async () => {
    await expectSameRows({ type: "NUMERICAL", field: "entries_count", numericalValueType: "MORE_THAN", value: 2 }, { entries_count: { $gt: 2 } }, txTable);
    await expectSameRows({ type: "NUMERICAL", field: "materiality", numericalValueType: "BETWEEN", rangeStart: 0, rangeEnd: 1e9 }, { materiality: { $gte: 0, $lte: 1e9 } });
    await expect400(group({ type: "NUMERICAL", field: "entries_count", numericalValueType: "MORE_THAN", value: "2" }), "condition.conditions[0].value");
    const onText = await create(group({ type: "NUMERICAL", field: "memo", numericalValueType: "MORE_THAN", value: 2 }));
    expect((await server.api.post("/saved-filters/validate", { filterId: onText.body.id, dataTableId: lines.id })).body.valid).toBe(false);
  });

  it("DATE: after, before, specific value and between, ISO dates only", async () => {
    await expectSameRows({ type: "DATE", field: "effective_date", dateType: "AFTER", value: "2023-05-12" }, { effective_date: { $gt: "2023-05-12" } });
    await expectSameRows({ type: "DATE", field: "effective_date", dateType: "SPECIFIC_VALUE", value: "2023-05-11" }, { effective_date: "2023-05-11" });
    await expectSameRows({ type: "DATE", field: "effective_date", dateType: "BETWEEN", rangeStart: "2023-05-11", rangeEnd: "2023-05-13" }, { effective_date: { $gte: "2023-05-11", $lte: "2023-05-13" } });
    await expect400(group({ type: "DATE", field: "effective_date", dateType: "AFTER", value: "2023-02-30" }), "condition.conditions[0].value");
    await expect400(group({ type: "DATE", field: "effective_date", dateType: "AFTER", value: "2023-05-11T00:00:00Z" }), "condition.conditions[0].value");
    await expect400(group({ type: "DATE", field: "effective_date", dateType: "BETWEEN", rangeStart: "2023-05-11" }), "condition.conditions[0].rangeEnd");
  });
});

describe("invalid forms of every condition type", () => {
  // A required key missing or of the wrong shape, per condition type: each a 400 naming that key.
  const cases: Array<[string, unknown, string]> = [
    ["GROUP without conditions", { type: "GROUP", operator: "AND", conditions: {} }, "condition.conditions"],
    ["GROUP operator", { type: "GROUP", operator: "XOR", conditions: [] }, "condition.operator"],
    ["GROUP negated", { type: "GROUP", operator: "AND", negated: "yes", conditions: [] }, "condition.negated"],
    ["unknown type", group({ type: "WHATEVER", field: "debit" }), "condition.conditions[0].type"],
    ["null condition", group(null), "condition.conditions[0]"],
    ["STRING values", group({ type: "STRING", field: "riskGroup", values: "ASSETS" }), "condition.conditions[0].values"],
    ["STRING_ARRAY empty", group({ type: "STRING_ARRAY", field: "account", values: [] }), "condition.conditions[0].values"],
    ["CONTROL_POINT no points", group({ type: "CONTROL_POINT", field: "cp_failed", riskLevel: "HIGH_RISK", controlPoints: [] }), "condition.conditions[0].controlPoints"],
    ["CONTROL_POINT no level", group({ type: "CONTROL_POINT", field: "cp_failed", controlPoints: [{ id: "journal_entry_zero" }] }), "condition.conditions[0].riskLevel"],
    ["ACCOUNT_NODE_ARRAY empty", group({ type: "ACCOUNT_NODE_ARRAY", field: "account_hierarchy_codes", accountSelections: [] }), "condition.conditions[0].accountSelections"],
    ["TYPEAHEAD_ENTRY empty", group({ type: "TYPEAHEAD_ENTRY", field: "user_id", values: [] }), "condition.conditions[0].values"],
    ["TYPEAHEAD_ENTRY field", group({ type: "TYPEAHEAD_ENTRY", field: 5, values: [{ lookupId: "a" }] }), "condition.conditions[0].field"],
    ["POPULATIONS empty", group({ type: "POPULATIONS", field: "population", populationIds: [] }), "condition.conditions[0].populationIds"],
    ["RISK_SCORE no type", group({ type: "RISK_SCORE", field: "riskScoresHml", values: ["HIGH"] }), "condition.conditions[0].riskScoreType"],
    ["RISK_SCORE percent no value", group({ type: "RISK_SCORE", field: "riskScoresPercentage", riskScoreType: "PERCENT", riskScorePercentType: "MORE_THAN" }), "condition.conditions[0].value"],
    ["RISK_SCORE range reversed", group({ type: "RISK_SCORE", field: "riskScoresPercentage", riskScoreType: "PERCENT", riskScorePercentType: "CUSTOM_RANGE", rangeStart: 9000, rangeEnd: 100 }), "condition.conditions[0].rangeEnd"],
    ["MONETARY_FLOW no type", group({ type: "MONETARY_FLOW", field: "monetarySpecificFlow" }), "condition.conditions[0].monetaryFlowType"],
    ["MONETARY_FLOW specific no kind", group({ type: "MONETARY_FLOW", field: "monetarySpecificFlow", monetaryFlowType: "SPECIFIC_FLOW", debitAccount: { code: "1" }, creditAccount: { code: "2" } }), "condition.conditions[0].specificMonetaryFlowType"],
    ["MONETARY_FLOW value not whole", group({ type: "MONETARY_FLOW", field: "monetarySpecificFlow", monetaryFlowType: "SPECIFIC_FLOW", debitAccount: { code: "1" }, creditAccount: { code: "2" }, specificMonetaryFlowType: "SPECIFIC_VALUE", value: 1.5 }), "condition.conditions[0].value"],
    ["MONEY no value", group({ type: "MONEY", field: "debit", monetaryValueType: "MORE_THAN" }), "condition.conditions[0].value"],
    ["MONEY value a string", group({ type: "MONEY", field: "debit", monetaryValueType: "MORE_THAN", value: "5" }), "condition.conditions[0].value"],
    ["MATERIALITY no option", group({ type: "MATERIALITY", field: "materiality" }), "condition.conditions[0].materialityOption"],
    ["MATERIALITY percentage no value", group({ type: "MATERIALITY", field: "materiality", materialityOption: "PERCENTAGE" }), "condition.conditions[0].value"],
    ["NUMERICAL no type", group({ type: "NUMERICAL", field: "entries_count", value: 2 }), "condition.conditions[0].numericalValueType"],
    ["NUMERICAL range reversed", group({ type: "NUMERICAL", field: "entries_count", numericalValueType: "BETWEEN", rangeStart: 5, rangeEnd: 1 }), "condition.conditions[0].rangeEnd"],
    ["DATE type", group({ type: "DATE", field: "effective_date", dateType: "ON", value: "2023-01-01" }), "condition.conditions[0].dateType"],
    ["DATE value a number", group({ type: "DATE", field: "effective_date", dateType: "AFTER", value: 5 }), "condition.conditions[0].value"],
    ["DATE range reversed", group({ type: "DATE", field: "effective_date", dateType: "BETWEEN", rangeStart: "2023-05-01", rangeEnd: "2023-01-01" }), "condition.conditions[0].rangeEnd"],
  ];
  it.each(cases)("%s: 400 naming the key", async (_name, condition, identifier) => {
    const body = await expect400(condition, identifier);
    expect(body.status).toBe(400);
  });

  it("display options: an ISO 4217 currency and a BCP 47 locale, on saved filters and populations (400 naming the key)", async () => {
    await expect400(group(), "displayCurrencyCode", { displayCurrencyCode: "dollars" });
    await expect400(group(), "displayLocale", { displayLocale: "not a locale" });
    const big = { type: "MONEY", field: "debit", monetaryValueType: "MORE_THAN", value: 10_003 };
    for (const [key, value] of [["displayCurrencyCode", "XXXX"], ["displayLocale", "??"]]) {
      const response = await server.api.post("/populations", { name: "Display", analysisId, condition: big, [key]: value });
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      expect(response.body.problems[0].identifier).toBe(key);
    }
    const ok = await server.api.post("/populations", { name: "Display", analysisId, condition: big, displayCurrencyCode: "EUR", displayLocale: "de-DE" });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.condition.fullConditionDescription).toContain("EUR");
    const put = await server.api.put(`/populations/${ok.body.id}`, { displayCurrencyCode: "eur", version: ok.body.version });
    expect(put.status).toBe(400);
    expect(put.body.problems[0].identifier).toBe("displayCurrencyCode");
  });
});

describe("validate and the data endpoint", () => {
  it("validate names unknown filters and tables in a 400, warns on a data type mismatch", async () => {
    const created = await create(group({ type: "DATE", field: "effective_date", dateType: "AFTER", value: "2023-05-12" }));
    const badTable = await server.api.post("/saved-filters/validate", { filterId: created.body.id, dataTableId: "5cc9076887f13cb8a7a19200" });
    expect(badTable.status).toBe(400);
    expect(badTable.body.problems[0].identifier).toBe("dataTableId");
    const badFilter = await server.api.post("/saved-filters/validate", { filterId: "5cc9076887f13cb8a7a19200", dataTableId: lines.id });
    expect(badFilter.status).toBe(400);
    expect(badFilter.body.problems[0].identifier).toBe("filterId");
    const onTx = await server.api.post("/saved-filters/validate", { filterId: created.body.id, dataTableId: txTable.id });
    expect(onTx.body).toMatchObject({ valid: true, warnings: [{ identifier: "dataType", severity: "WARNING" }] });
    expect(onTx.body.query).toEqual({ $and: [{ effective_date: { $gt: "2023-05-12" } }] });
  });

  it("ANDs a saved filter with the request's query, and refuses one that does not fit with a 400", async () => {
    const created = await create(group({ type: "MONEY", field: "debit", monetaryValueType: "MORE_THAN", value: 0 }));
    const both = await server.api.post(`/data-tables/${lines.id}/data`, { savedFilterId: created.body.id, query: { account: "5400" }, pageSize: 100 });
    expect(ids(both.body.content)).toEqual(ids(await allRows(server, lines.id, { account: "5400", debit: { $gt: 0 } })));
    const tablesOnly = await clientWithPermissions(server.api, ["api.data-tables.read"], "tables only");
    const withoutFilters = await tablesOnly.post(`/data-tables/${lines.id}/data`, { savedFilterId: created.body.id });
    expect(withoutFilters.status, JSON.stringify(withoutFilters.body)).toBe(403);
    expect(withoutFilters.body.problems[0]).toMatchObject({ identifier: "savedFilterId", problemType: "INSUFFICIENT_PERMISSION" });
    const unfit = await create(group({ type: "STRING", field: "riskGroup", values: ["ASSETS"] }));
    const onTx = await server.api.post(`/data-tables/${txTable.id}/data`, { savedFilterId: unfit.body.id });
    expect(onTx.status).toBe(400);
    expect(onTx.body.problems[0].identifier).toBe("condition.conditions[0].field");
  });
});

describe("GraphQL", () => {
  it("creates, reads with descriptions and validates saved filters", async () => {
    const created = await server.gql(
      `mutation($input: CreateSavedFilterInput!) { createSavedFilter(input: $input) { id filterType condition legacyFilterFormat } }`,
      { input: filterBody(group({ type: "NUMERICAL", field: "entries_count", numericalValueType: "SPECIFIC_VALUE", value: 3, fieldLabel: "Entries" }), { dataType: "TRANSACTIONS" }) },
    );
    expect(created.body.errors).toBeUndefined();
    const filter = created.body.data.createSavedFilter;
    expect(filter.condition.conditions[0].fullConditionDescription).toBe("Entries is equal to 3");
    const validated = await server.gql(`query($f: ID!, $t: ID!) { validateSavedFilter(filterId: $f, dataTableId: $t) { valid errors { identifier } warnings { identifier } query dataTable { id } } }`, { f: filter.id, t: txTable.id });
    expect(validated.body.data.validateSavedFilter).toEqual({ valid: true, errors: [], warnings: [], query: { $and: [{ entries_count: { $eq: 3 } }] }, dataTable: { id: txTable.id } });
    const bad = await server.gql(`mutation($input: CreateSavedFilterInput!) { createSavedFilter(input: $input) { id } }`, { input: filterBody({ type: "DATE" }) });
    expect(bad.body.errors[0].extensions).toMatchObject({ status: 400 });
  });
});

describe("populations", () => {
  const big = { type: "MONEY", field: "debit", monetaryValueType: "MORE_THAN", value: 10_003 };

  async function population(body: Record<string, unknown>) {
    const response = await server.api.post("/populations", { name: "Population", ...body });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body;
  }

  it("are evaluated by $population / $not_population and POPULATIONS conditions on the result table", async () => {
    const p = await population({ analysisId, condition: big });
    expect(p).toMatchObject({ analysisId, engagementId, derivedFromEngagement: false, disabled: false, condition: { fullConditionDescription: "Debit is more than 100.03" } });
    const members = await allRows(server, lines.id, { $population: p.id });
    expect(ids(members)).toEqual(ids(await allRows(server, lines.id, { debit: { $gt: 10_003 } })));
    expect(members.length).toBeGreaterThan(0);
    const others = await allRows(server, lines.id, { $not_population: p.id });
    expect(members.length + others.length).toBe(11);
    await expectSameRows({ type: "POPULATIONS", field: "population", populationIds: [p.id] }, { debit: { $gt: 10_003 } });
    // A population of another analysis matches nothing here.
    const unknown = await allRows(server, lines.id, { $population: "5cc9076887f13cb8a7a19200" });
    expect(unknown).toEqual([]);
  });

  it("are validated on write against the analysis's data table: POPULATION_CONVERSION_FAILED naming the condition", async () => {
    const unfit = await server.api.post("/populations", { name: "Unfit", analysisId, condition: { type: "MONEY", field: "effective_date", monetaryValueType: "MORE_THAN", value: 1 } });
    expect(unfit.status).toBe(400);
    expect(unfit.body.problems[0]).toMatchObject({ problemType: "POPULATION_CONVERSION_FAILED", identifier: "condition.field" });
    for (const field of ["status", "account_tags_increasing", "account_tags_decreasing"]) {
      const forbidden = await server.api.post("/populations", { name: "Forbidden", analysisId, condition: { type: "TYPEAHEAD_ENTRY", field, values: [{ lookupId: "x" }] } });
      expect(forbidden.status, field).toBe(400);
      expect(forbidden.body.problems[0]).toMatchObject({ problemType: "POPULATION_CONVERSION_FAILED", identifier: "condition.field" });
    }
    const nested = await server.api.post("/populations", { name: "Nested", engagementId, condition: group(big, { type: "POPULATIONS", field: "population", populationIds: ["5cc9076887f13cb8a7a19200"] }) });
    expect(nested.status).toBe(400);
    expect(nested.body.problems[0]).toMatchObject({ problemType: "POPULATION_CONVERSION_FAILED", identifier: "condition.conditions[1].field" });
    const twoScopes = await server.api.post("/populations", { name: "Two", analysisId, engagementId, condition: big });
    expect(twoScopes.status).toBe(400);
    const noCondition = await server.api.post("/populations", { name: "None", analysisId });
    expect(noCondition.status).toBe(400);
    expect(noCondition.body.problems[0].identifier).toBe("condition");
  });

  it("inherit down the levels: library -> engagement -> analysis, disabling per analysis, promotion", async () => {
    const libraryId = (await server.api.get(`/engagements/${engagementId}`)).body.libraryId;
    const lib = await population({ libraryId, condition: big });
    expect(lib).toMatchObject({ libraryId, analysisTypeId: "4b8360d00000000000000000" });
    const eng = await population({ engagementId, basePopulationId: lib.id });
    expect(eng).toMatchObject({ engagementId, derivedFromLibrary: true, basePopulationId: lib.id, clonedFrom: lib.id, condition: { type: "MONEY", field: "debit" } });
    const ana = await population({ analysisId, basePopulationId: eng.id });
    expect(ana).toMatchObject({ analysisId, derivedFromEngagement: true, derivedFromLibrary: false });
    expect((await allRows(server, lines.id, { $population: eng.id })).length).toBeGreaterThan(0);
    const disabled = await server.api.put(`/populations/${ana.id}`, { disabled: true, reasonForChange: "Not relevant", version: ana.version });
    expect(disabled.status, JSON.stringify(disabled.body)).toBe(200);
    expect((await server.api.get(`/populations/${eng.id}`)).body.disabledForAnalysisIds).toEqual([analysisId]);
    expect(await allRows(server, lines.id, { $population: eng.id })).toEqual([]);
    const promoted = await population({ engagementId, basePopulationId: ana.id, name: "Promoted" });
    expect(promoted).toMatchObject({ promotedFromAnalysisId: analysisId, derivedFromLibrary: false });
    const wrongWay = await server.api.post("/populations", { name: "Up", libraryId, basePopulationId: ana.id });
    expect(wrongWay.status).toBe(400);
    expect(wrongWay.body.problems[0].identifier).toBe("basePopulationId");
  });

  it("inherit access from their parent level", async () => {
    const ana = await population({ analysisId, condition: big, name: "Hidden" });
    const eng = await population({ engagementId, condition: big, name: "Visible" });
    const engagementsOnly = await clientWithPermissions(server.api, ["api.filters.read", "api.engagements.read"], "engagement reader");
    expect((await engagementsOnly.get(`/populations/${ana.id}`)).status).toBe(404);
    expect((await engagementsOnly.get(`/populations/${eng.id}`)).status).toBe(200);
    const seen = (await engagementsOnly.post("/populations/query?size=100", { engagementId })).body.content.map((p: { id: string }) => p.id);
    expect(seen).toContain(eng.id);
    expect(seen).not.toContain(ana.id);
  });

  it("GraphQL relations: Analysis.populations, Engagement.populations, Population.basePopulation, Analysis.riskSegmentationConfigs", async () => {
    const eng = await population({ engagementId, condition: big, name: "Relations base" });
    const ana = await population({ analysisId, basePopulationId: eng.id, name: "Relations derived" });
    const config = await server.api.post("/risk-segmentation-configs", { name: "Relations view", analysisId, segments: [{ name: "All", rangeStart: 0, rangeEnd: 10000 }] });
    expect(config.status, JSON.stringify(config.body)).toBe(200);
    const graph = await server.gql(
      `query($a: ID!, $e: ID!, $f: JSON) { analysis(id: $a) { populations(filter: $f) { totalElements content { id basePopulation { id name } } } all: populations(size: 100) { content { id analysisId } } riskSegmentationConfigs { content { id analysisId } } }
        engagement(id: $e) { populations(size: 100) { content { id engagementId } } } }`,
      { a: analysisId, e: engagementId, f: { name: "Relations derived" } },
    );
    expect(graph.body.errors).toBeUndefined();
    const analysis = graph.body.data.analysis;
    expect(analysis.populations).toEqual({ totalElements: 1, content: [{ id: ana.id, basePopulation: { id: eng.id, name: "Relations base" } }] });
    expect(analysis.all.content.every((p: { analysisId: string }) => p.analysisId === analysisId)).toBe(true);
    expect(analysis.all.content.map((p: { id: string }) => p.id)).toContain(ana.id);
    expect(analysis.riskSegmentationConfigs.content).toContainEqual({ id: config.body.id, analysisId });
    const engagementPopulations = graph.body.data.engagement.populations.content;
    expect(engagementPopulations.map((p: { id: string }) => p.id)).toContain(eng.id);
    expect(engagementPopulations.every((p: { engagementId: string }) => p.engagementId === engagementId)).toBe(true);
    expect(engagementPopulations.map((p: { id: string }) => p.id)).not.toContain(ana.id);
    const bad = await server.gql(`query($a: ID!) { analysis(id: $a) { populations(filter: { nope: 1 }) { totalElements } } }`, { a: analysisId });
    expect(bad.body.errors[0].extensions).toMatchObject({ status: 400 });
  });

  it("GraphQL creates and reads populations", async () => {
    const created = await server.gql(`mutation($input: CreatePopulationInput!) { createPopulation(input: $input) { id analysisId condition derivedFromEngagement } }`, {
      input: { name: "GraphQL", analysisId, condition: { type: "DATE", field: "effective_date", dateType: "AFTER", value: "2023-05-12" } },
    });
    expect(created.body.errors).toBeUndefined();
    expect(created.body.data.createPopulation).toMatchObject({ analysisId, derivedFromEngagement: false, condition: { fullConditionDescription: "Effective date is after 2023-05-12" } });
    const bad = await server.gql(`mutation($input: CreatePopulationInput!) { createPopulation(input: $input) { id } }`, { input: { name: "Bad", analysisId, condition: { type: "DATE", field: "status" } } });
    expect(bad.body.errors[0].extensions).toMatchObject({ status: 400 });
  });

  it("GraphQL lists take the typed where like every other entity list", async () => {
    const named = await population({ analysisId, condition: big, name: "Where target" });
    await population({ analysisId, condition: big, name: "Where other" });
    const found = await server.gql(`query($name: String!) { populations(where: { name: { eq: $name } }, size: 50) { totalElements content { id } } }`, { name: "Where target" });
    expect(found.body.errors).toBeUndefined();
    expect(found.body.data.populations).toEqual({ totalElements: 1, content: [{ id: named.id }] });
    // where and filter JSON name the same rows
    const both = await server.gql(
      `query($f: JSON) { a: savedFilters(where: { filterType: { eq: "PRIVATE" } }, size: 1) { totalElements } b: savedFilters(filter: $f, size: 1) { totalElements } c: tasks(where: { analysisId: { eq: "${analysisId}" } }, size: 1) { totalElements } d: tasks(filter: { analysisId: "${analysisId}" }, size: 1) { totalElements } }`,
      { f: { filterType: "PRIVATE" } },
    );
    expect(both.body.errors).toBeUndefined();
    expect(both.body.data.a).toEqual(both.body.data.b);
    expect(both.body.data.c).toEqual(both.body.data.d);
  });
});

describe("risk segmentation configs", () => {
  const segments = [
    { name: "Low", rangeStart: 0, rangeEnd: 3299 },
    { name: "High", rangeStart: 3300, rangeEnd: 10000 },
  ];

  it("are created against the analysis's latest result, read, queried and deleted, never updated", async () => {
    const created = await server.api.post("/risk-segmentation-configs", { name: "View", analysisId, segments, summaryColumns: ["debit", "credit"], dashboardFilters: { account: "5400" } });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const analysis = (await server.api.get(`/analyses/${analysisId}`)).body;
    expect(created.body).toMatchObject({ analysisId, analysisResultId: analysis.latestAnalysisResultId, dataTableLogicalName: "gl_journal_lines", riskScoreId: "risk", segments, summaryColumns: ["debit", "credit"], dashboardFilters: { account: "5400" } });
    expect((await server.api.get(`/risk-segmentation-configs/${created.body.id}`)).status).toBe(200);
    const page = await server.api.post("/risk-segmentation-configs/query", { analysisId });
    expect(page.body.content.map((c: { id: string }) => c.id)).toContain(created.body.id);
    expect((await server.api.put(`/risk-segmentation-configs/${created.body.id}`, { name: "x", version: 0 })).status).toBe(405);
    expect((await server.api.delete(`/risk-segmentation-configs/${created.body.id}`)).status).toBe(204);
    expect((await server.api.get(`/risk-segmentation-configs/${created.body.id}`)).status).toBe(404);
  });

  it("are validated against the result: 400 naming the field", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ segments: [{ name: "A", rangeStart: 0, rangeEnd: 5000 }, { name: "B", rangeStart: 4000, rangeEnd: 10000 }] }, "segments[1].rangeStart"],
      [{ segments: [{ name: "A", rangeStart: 0, rangeEnd: 10001 }] }, "segments[0].rangeEnd"],
      [{ segments: [] }, "segments"],
      [{ riskScoreId: "memo" }, "riskScoreId"],
      [{ summaryColumns: ["memo"] }, "summaryColumns[0]"],
      [{ dashboardFilters: { nope: 1 } }, "dashboardFilters.nope"],
      [{ dataTableLogicalName: "flows" }, "dataTableLogicalName"],
      [{ analysisId: "5cc9076887f13cb8a7a19200" }, "analysisId"],
    ];
    for (const [change, identifier] of cases) {
      const response = await server.api.post("/risk-segmentation-configs", { name: "Bad", analysisId, segments, ...change });
      expect(response.status, identifier).toBe(400);
      expect(response.body.problems.map((p: { identifier: string }) => p.identifier), identifier).toContain(identifier);
    }
  });

  it("GraphQL parity", async () => {
    const created = await server.gql(`mutation($input: CreateRiskSegmentationConfigInput!) { createRiskSegmentationConfig(input: $input) { id segments { name rangeStart rangeEnd } } }`, { input: { name: "G", analysisId, segments } });
    expect(created.body.errors).toBeUndefined();
    expect(created.body.data.createRiskSegmentationConfig.segments).toEqual(segments);
  });
});

describe("deleting an owner", () => {
  const condition = group({ type: "DATE", field: "effective_date", dateType: "AFTER", value: "2023-01-01" });
  const big = { type: "MONEY", field: "debit", monetaryValueType: "MORE_THAN", value: 10_003 };

  async function sql<T extends Record<string, unknown>>(text: string, values: unknown[] = []): Promise<T[]> {
    const client = new pg.Client({ connectionString: server.databaseUrl });
    await client.connect();
    try {
      return (await client.query<T>(text, values)).rows;
    } finally {
      await client.end();
    }
  }

  /** Rows of the three tables whose owner is gone: none may remain after any delete. */
  async function orphans() {
    return sql(`
      SELECT 'saved_filter' AS t, id FROM saved_filter f WHERE
        (library_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM library WHERE id = f.library_id)) OR
        (organization_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM organization WHERE id = f.organization_id)) OR
        (engagement_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM engagement WHERE id = f.engagement_id))
      UNION ALL
      SELECT 'population', id FROM population p WHERE
        (library_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM library WHERE id = p.library_id)) OR
        (engagement_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM engagement WHERE id = p.engagement_id)) OR
        (analysis_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM analysis WHERE id = p.analysis_id)) OR
        (base_population_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM population WHERE id = p.base_population_id)) OR
        (promoted_from_analysis_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM analysis WHERE id = p.promoted_from_analysis_id)) OR
        EXISTS (SELECT 1 FROM unnest(p.disabled_for_analysis_ids) a WHERE NOT EXISTS (SELECT 1 FROM analysis WHERE id = a))
      UNION ALL
      SELECT 'risk_segmentation_config', id FROM risk_segmentation_config r WHERE
        NOT EXISTS (SELECT 1 FROM analysis WHERE id = r.analysis_id) OR NOT EXISTS (SELECT 1 FROM analysis_result WHERE id = r.analysis_result_id)`);
  }

  async function created(path: string, body: Record<string, unknown>) {
    const response = await server.api.post(path, body);
    expect(response.status, `${path} ${JSON.stringify(response.body)}`).toBe(200);
    return response.body.id as string;
  }

  it("a library or an organization takes its saved filters and populations with it", async () => {
    const libraryId = await created("/libraries", { name: "Filters library", basedOnLibraryId: "5cc9076887f13cb8a7a1926b" });
    const libraryFilter = await created("/saved-filters", { name: { en: "Library filter" }, filterType: "LIBRARY", dataType: "ENTRIES", libraryId, condition });
    const libraryPopulation = await created("/populations", { name: "Library population", libraryId, condition: big });
    const organizationId = await created("/organizations", { name: "Filters organization" });
    const organizationFilter = await created("/saved-filters", { name: { en: "Organization filter" }, filterType: "ORGANIZATION", dataType: "ENTRIES", organizationId, condition });

    expect((await server.api.delete(`/libraries/${libraryId}`)).status).toBe(204);
    expect((await server.api.get(`/saved-filters/${libraryFilter}`)).status).toBe(404);
    expect((await server.api.get(`/populations/${libraryPopulation}`)).status).toBe(404);
    expect((await server.api.get(`/saved-filters/${organizationFilter}`)).status).toBe(200);
    expect((await server.api.delete(`/organizations/${organizationId}`)).status).toBe(204);
    expect((await server.api.get(`/saved-filters/${organizationFilter}`)).status).toBe(404);
    expect(await orphans()).toEqual([]);
  });

  it("an analysis takes its populations and risk segmentation configs; an engagement then takes its filters and populations", async () => {
    const engagementFilter = await created("/saved-filters", filterBody(condition));
    const engagementPopulation = await created("/populations", { name: "Engagement population", engagementId, condition: big });
    const analysisPopulation = await created("/populations", { name: "Analysis population", analysisId, basePopulationId: engagementPopulation });
    const promoted = await created("/populations", { name: "Promoted population", engagementId, basePopulationId: analysisPopulation });
    const config = await created("/risk-segmentation-configs", { name: "View", analysisId, segments: [{ name: "All", rangeStart: 0, rangeEnd: 10000 }] });
    const other = await created("/analyses", { ...(await server.api.get(`/analyses/${analysisId}`)).body, id: undefined, name: "Other analysis", version: undefined });
    const otherPopulation = await created("/populations", { name: "Other analysis population", analysisId: other, condition: big });
    // Both analyses disable their copy of the engagement population: it records both.
    for (const id of [analysisPopulation, await created("/populations", { name: "Other derived", analysisId: other, basePopulationId: engagementPopulation })]) {
      const current = (await server.api.get(`/populations/${id}`)).body;
      expect((await server.api.put(`/populations/${id}`, { disabled: true, version: current.version })).status).toBe(200);
    }
    const before = (await server.api.get(`/populations/${engagementPopulation}`)).body;
    expect(before.disabledForAnalysisIds.sort()).toEqual([analysisId, other].sort());

    expect((await server.api.delete(`/analyses/${analysisId}`)).status).toBe(204);
    // The deleted analysis's id leaves every population's disabledForAnalysisIds (a new version); the other's stays.
    const after = (await server.api.get(`/populations/${engagementPopulation}`)).body;
    expect(after.disabledForAnalysisIds).toEqual([other]);
    expect(after.version).toBe(before.version + 1);
    const graph = await server.gql(`query($id: ID!) { population(id: $id) { disabledForAnalysisIds } }`, { id: engagementPopulation });
    expect(graph.body.data.population.disabledForAnalysisIds).toEqual([other]);
    expect((await server.api.get(`/populations/${analysisPopulation}`)).status).toBe(404);
    expect((await server.api.get(`/risk-segmentation-configs/${config}`)).status).toBe(404);
    // The promoted population stays (an engagement-level copy); only its record of the origin goes.
    const kept = await server.api.get(`/populations/${promoted}`);
    expect(kept.status).toBe(200);
    expect(kept.body.promotedFromAnalysisId).toBeUndefined();
    expect(kept.body.condition).toMatchObject({ type: "MONEY", field: "debit" });
    expect((await server.api.get(`/populations/${engagementPopulation}`)).status).toBe(200);
    expect((await server.api.get(`/populations/${otherPopulation}`)).status).toBe(200);
    expect((await server.api.get(`/saved-filters/${engagementFilter}`)).status).toBe(200);
    expect(await orphans()).toEqual([]);

    expect((await server.api.delete(`/engagements/${engagementId}`)).status).toBe(204);
    for (const path of [`/saved-filters/${engagementFilter}`, `/populations/${engagementPopulation}`, `/populations/${promoted}`, `/populations/${otherPopulation}`]) {
      expect((await server.api.get(path)).status, path).toBe(404);
    }
    const left = await sql(
      `SELECT 'saved_filter' AS t, id FROM saved_filter WHERE engagement_id = $1 UNION ALL SELECT 'population', id FROM population WHERE engagement_id = $1 OR analysis_id = $2 UNION ALL SELECT 'risk_segmentation_config', id FROM risk_segmentation_config WHERE analysis_id = $2`,
      [engagementId, analysisId],
    );
    expect(left).toEqual([]);
    expect(await orphans()).toEqual([]);
  });
});
