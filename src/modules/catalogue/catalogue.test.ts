import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { ANALYSIS_SOURCE_TYPES } from "./analysis-source-types.data.js";
import { ANALYSIS_TYPES } from "./analysis-types.data.js";
import { ANALYSIS_SOURCE_TYPE_IDS, ANALYSIS_TYPE_IDS, SEED_AUDIT, SYSTEM_ACCOUNT_GROUPING_ID, SYSTEM_LIBRARY_IDS } from "./ids.js";
import { SYSTEM_CONFIGURATIONS, SYSTEM_LIBRARIES, SYSTEM_RISK_RANGES } from "./system-libraries.data.js";
import { controlPointFamilyOf } from "./control-points.data.js";
import { effectiveSettings } from "../../engine/index.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());

const SEEDED = {
  version: 0,
  creationDate: SEED_AUDIT.creationDate,
  lastModifiedDate: SEED_AUDIT.creationDate,
  createdUserInfo: { userName: SEED_AUDIT.userName },
  lastModifiedUserInfo: { userName: SEED_AUDIT.userName },
};

/** The wire omits null-valued keys. */
function withoutNulls<T extends object>(value: T): Record<string, unknown> {
  return JSON.parse(JSON.stringify(value, (_k, v) => (v === null ? undefined : v)));
}

async function queryAll(path: string, filter: unknown = {}) {
  const response = await server.api.post(`${path}?size=100`, filter);
  expect(response.status).toBe(200);
  return response.body;
}

describe("seeded catalogue equals the data modules it was generated from", () => {
  it("analysis types", async () => {
    expect(ANALYSIS_TYPES.map((t) => t.id).sort()).toEqual(Object.values(ANALYSIS_TYPE_IDS).sort());
    for (const { key: _key, ...type } of ANALYSIS_TYPES) {
      const response = await server.api.get(`/analysis-types/${type.id}`);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ ...SEEDED, ...withoutNulls(type) });
    }
    expect((await queryAll("/analysis-types/query")).totalElements).toBe(ANALYSIS_TYPES.length);
  });

  it("analysis source types, every wire-reference id present", async () => {
    expect(ANALYSIS_SOURCE_TYPES.map((t) => t.id).sort()).toEqual(Object.values(ANALYSIS_SOURCE_TYPE_IDS).sort());
    const page = await queryAll("/analysis-source-types/query");
    expect(page.totalElements).toBe(ANALYSIS_SOURCE_TYPES.length);
    for (const { key: _key, ...type } of ANALYSIS_SOURCE_TYPES) {
      const stored = page.content.find((t: { id: string }) => t.id === type.id);
      expect(stored).toEqual({ ...SEEDED, ...withoutNulls(type) });
    }
  });

  it("system libraries, their risk ranges and configurations", async () => {
    for (const { key: _key, analysisTypeKeys, ...library } of SYSTEM_LIBRARIES) {
      const response = await server.api.get(`/libraries/${library.id}`);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        ...SEEDED,
        ...library,
        analysisTypeIds: analysisTypeKeys.map((k) => ANALYSIS_TYPE_IDS[k]),
        accountGroupingId: SYSTEM_ACCOUNT_GROUPING_ID,
        archived: false,
        system: true,
        conversionWarnings: [],
        warningsDismissed: false,
      });
    }
    for (const range of SYSTEM_RISK_RANGES) {
      expect((await server.api.get(`/risk-ranges/${range.id}`)).body).toEqual({ ...SEEDED, ...range, system: true });
    }
    for (const configuration of SYSTEM_CONFIGURATIONS) {
      // A configuration reads with every control point setting, the defaults filled in.
      const settings = effectiveSettings(controlPointFamilyOf(configuration.analysisTypeId)!, configuration.configuration.controlPointSettings);
      const expected = withoutNulls({ ...configuration, configuration: { ...configuration.configuration, controlPointSettings: settings } });
      expect((await server.api.get(`/analysis-type-configuration/${configuration.id}`)).body).toEqual({ ...SEEDED, ...expected, system: true, template: true });
    }
    const seededConfigs = await queryAll("/analysis-type-configuration/query", { libraryId: { $in: Object.values(SYSTEM_LIBRARY_IDS) } });
    expect(seededConfigs.totalElements).toBe(SYSTEM_CONFIGURATIONS.length);
  });
});

describe("catalogue rules", () => {
  it("gives general ledger journals the canonical platform fields, debit/credit and amount as alternatives", async () => {
    const journal = (await server.api.get(`/analysis-source-types/${ANALYSIS_SOURCE_TYPE_IDS.GENERAL_LEDGER_JOURNAL}`)).body;
    const fields = Object.fromEntries(journal.columnDefinitions.map((c: { platformFieldName: string }) => [c.platformFieldName, c]));
    expect(Object.keys(fields)).toEqual(["txid", "effective_date", "entry_date", "account", "account_description", "debit", "credit", "amount", "memo", "source", "entered_by", "approved_by", "currency", "line_number"]);
    expect(fields.effective_date).toMatchObject({ type: "DATE", required: true });
    expect(fields.account).toMatchObject({ type: "TEXT", required: true });
    expect(fields.debit).toMatchObject({ type: "FLOAT64", alternativeMappings: ["amount"] });
    expect(fields.amount).toMatchObject({ type: "FLOAT64", required: true, alternativeMappings: ["debit", "credit"] });
    expect(fields.line_number.type).toBe("NUMBER");
    expect(journal.features).toEqual(["FORMAT_DETECTION", "DATA_VALIDATION", "COLUMN_MAPPING", "EFFECTIVE_DATE_METRICS", "TRANSACTION_ID_SELECTION", "PARSE", "CONFIRM_SETTINGS"]);
    const fund = (await server.api.get(`/analysis-source-types/${ANALYSIS_SOURCE_TYPE_IDS.GENERAL_LEDGER_JOURNAL_FUND}`)).body;
    expect(fund.features).toContain("REVIEW_FUNDS");
    expect(fund.columnDefinitions.map((c: { platformFieldName: string }) => c.platformFieldName)).toContain("fund_id");
  });

  it("queries by id with $in, by feature and by flags", async () => {
    const ids = [ANALYSIS_TYPE_IDS.GENERAL_LEDGER, ANALYSIS_TYPE_IDS.ACCOUNTS_PAYABLE_V2];
    const byId = await queryAll("/analysis-types/query", { id: { $in: ids } });
    expect(byId.content.map((t: { id: string }) => t.id).sort()).toEqual([...ids].sort());
    const funds = await queryAll("/analysis-source-types/query", { features: { $contains: "REVIEW_FUNDS" } });
    expect(funds.content.map((t: { id: string }) => t.id).sort()).toEqual(
      [ANALYSIS_SOURCE_TYPE_IDS.GENERAL_LEDGER_JOURNAL_FUND, ANALYSIS_SOURCE_TYPE_IDS.FUND_ADJUSTING_ENTRIES, ANALYSIS_SOURCE_TYPE_IDS.FUND_ELIMINATION_ENTRIES, ANALYSIS_SOURCE_TYPE_IDS.FUND_RECLASSIFICATION_ENTRIES].sort(),
    );
    const sourceIds = [ANALYSIS_SOURCE_TYPE_IDS.VENDOR_LIST, ANALYSIS_SOURCE_TYPE_IDS.FUND_CLOSING_BALANCE];
    const sources = await queryAll("/analysis-source-types/query", { id: { $in: sourceIds } });
    expect(sources.content.map((t: { id: string }) => t.id).sort()).toEqual([...sourceIds].sort());
    const fundTypes = await queryAll("/analysis-types/query", { fundSupported: true });
    expect(fundTypes.content.map((t: { id: string }) => t.id)).toEqual([ANALYSIS_TYPE_IDS.NOT_FOR_PROFIT_GENERAL_LEDGER_FUND]);
    const bad = await server.api.post("/analysis-types/query", { maxPeriod: 13 });
    expect(bad.status).toBe(400);
    expect(bad.body.problems[0].identifier).toBe("maxPeriod");
  });

  it("is read-only: unknown ids 404, no write routes", async () => {
    const missing = await server.api.get("/analysis-types/4b8360d000000000000000ff");
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ entityType: "ANALYSIS_TYPE", entityId: "4b8360d000000000000000ff" });
    expect((await server.api.get("/analysis-source-types/4b8361d000000000000000ff")).status).toBe(404);
    expect((await server.api.put(`/analysis-types/${ANALYSIS_TYPE_IDS.GENERAL_LEDGER}`, { name: "x" })).status).toBe(405);
    expect((await server.api.delete(`/analysis-source-types/${ANALYSIS_SOURCE_TYPE_IDS.VENDOR_LIST}`)).status).toBe(405);
  });

  it("needs the analysis-types and analysis-source-types read permissions", async () => {
    const token = await server.api.post("/api-tokens", { name: "types only", expiry: new Date(Date.now() + 86_400_000).toISOString(), permissions: ["api.analysis-types.read"] });
    const limited = server.api.withToken(token.body.token);
    expect((await limited.get(`/analysis-types/${ANALYSIS_TYPE_IDS.GENERAL_LEDGER}`)).status).toBe(200);
    const refused = await limited.post("/analysis-source-types/query", {});
    expect(refused.status).toBe(403);
    expect(refused.body.problems[0]).toMatchObject({ problemType: "INSUFFICIENT_PERMISSION", values: ["api.analysis-source-types.read"] });
  });
});

describe("catalogue over GraphQL", () => {
  it("reads analysis types with source configurations and source types with column definitions", async () => {
    const response = await server.gql(
      `query($filter: JSON, $id: ID!) {
        analysisTypes(filter: $filter) { totalElements content { id name accountMappingRequired sourceConfigurations { sourceTypeId sourceScope required } } }
        analysisSourceType(id: $id) { name features columnDefinitions { platformFieldName type required allowBlanks defaultValue } }
      }`,
      { filter: { accountMappingRequired: false }, id: ANALYSIS_SOURCE_TYPE_IDS.ACCOUNTS_PAYABLE_DETAIL },
    );
    expect(response.body.errors).toBeUndefined();
    const { analysisTypes, analysisSourceType } = response.body.data;
    expect(analysisTypes.totalElements).toBe(2);
    const payables = analysisTypes.content.find((t: { id: string }) => t.id === ANALYSIS_TYPE_IDS.ACCOUNTS_PAYABLE_V2);
    expect(payables.sourceConfigurations[0]).toEqual({ sourceTypeId: ANALYSIS_SOURCE_TYPE_IDS.ACCOUNTS_PAYABLE_DETAIL, sourceScope: "CURRENT_PERIOD", required: true });
    expect(analysisSourceType.features).toContain("EFFECTIVE_DATE_METRICS");
    expect(analysisSourceType.columnDefinitions.find((c: { platformFieldName: string }) => c.platformFieldName === "vendor_id")).toMatchObject({ type: "TEXT", required: true, allowBlanks: false });
  });

  it("reports an unknown id as NOT_FOUND in extensions", async () => {
    const response = await server.gql(`{ analysisType(id: "4b8360d000000000000000ff") { id } }`);
    expect(response.body.errors?.[0].extensions).toMatchObject({ code: "NOT_FOUND", status: 404 });
  });
});
