import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./helpers/server.js";
import { parseIntoEntriesTable } from "./helpers/entries-table.js";

// The query language of spec 4.2 through the public REST API: one call per operator and one per
// error kind, on POST /engagements/query (plus organizations, API tokens and account groups for
// the column types engagements lack, and a data table's /data endpoint for keyword search and
// MONEY_100). Bodies are sent as raw text where JSON.stringify could not write them (duplicate
// keys, integers beyond 2^53). The operator-by-operator SQL semantics are also covered per column
// type in src/query-language/query-language.test.ts; no public column has the types
// BOOLEAN_FLAGS or PERCENTAGE_FIXED_POINT yet, so $flags and the percentage range are checked there
// (here $flags is refused as not applying to the column).

let server: TestServer;
let me: string;
let other: string;
let orgA: string;
let orgB: string;
let dataTableId: string;
let source: { engagementId: string; analysisId: string; analysisSourceId: string };

const LEDGER = [
  "Journal ID,Effective Date,Account,Account Description,Debit,Credit,Memo",
  "JE1,01/15/2023,10100,Cash,1250.00,,Invoice 4471 freight",
  "JE1,01/15/2023,40100,Revenue,,1250.00,Invoice 4471 freight",
  "JE2,03/31/2023,10150,Cash Reserve,300.00,,Reclass to reserve",
  "JE2,03/31/2023,10100,Cash,,300.00,Reclass to reserve",
].join("\r\n") + "\r\n";
const MAPPINGS = [
  { columnPosition: 0, platformField: "txid" },
  { columnPosition: 1, platformField: "effective_date" },
  { columnPosition: 2, platformField: "account" },
  { columnPosition: 3, platformField: "account_description" },
  { columnPosition: 4, platformField: "debit" },
  { columnPosition: 5, platformField: "credit" },
  { columnPosition: 6, platformField: "memo" },
];

beforeAll(async () => {
  server = await startTestServer({ publicUrl: "https://ledger.example.com" });
  me = (await server.api.get("/users/current")).body.id;
  const invited = await server.api.post("/users", { email: "auditor@example.com", role: "ROLE_USER" });
  expect(invited.status, JSON.stringify(invited.body)).toBe(200);
  other = invited.body.id;
  orgA = (await server.api.post("/organizations", { name: "Org A", managerUserIds: [me] })).body.id;
  orgB = (await server.api.post("/organizations", { name: "Org B" })).body.id;
  const engagements = [
    { organizationId: orgA, name: "Alpha Audit", industry: "Retail", accountingPackage: "QuickBooks", billingCode: "B-100", auditPeriodEndDate: "2024-12-31", auditorIds: [me], engagementLeadId: me, frequency: "ANNUAL" },
    { organizationId: orgA, name: "beta review", industry: "Mining", accountingPackage: "Sage", billingCode: "B-200", auditPeriodEndDate: "2025-06-30", auditorIds: [me, other], frequency: "QUARTERLY" },
    { organizationId: orgB, name: "Gamma_50% check", auditorIds: [], frequency: "MONTHLY" },
  ];
  for (const { frequency, ...engagement } of engagements) {
    const created = await server.api.post("/engagements", { ...engagement, accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency } });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
  }
  source = await parseIntoEntriesTable(server, LEDGER, { proposedColumnMappings: MAPPINGS });
  dataTableId = (await server.api.post("/data-tables/query", { analysisId: source.analysisId })).body.content[0].id;
}, 180_000);
afterAll(async () => server?.close());

/** POSTs `filter` (an object, or raw JSON text) and returns the response. */
function post(path: string, filter: unknown) {
  return server.api.request("POST", path, typeof filter === "string" ? filter : JSON.stringify(filter));
}

async function names(path: string, filter: unknown): Promise<string[]> {
  // The data table's fixture brings an engagement of its own: keep to this file's three.
  if (path === ENG) {
    const scope = JSON.stringify({ organizationId: { $in: [orgA, orgB] } });
    filter = `{"$and":[${typeof filter === "string" ? filter : JSON.stringify(filter)},${scope}]}`;
  }
  const response = await post(path, filter);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return (response.body.content as Array<{ name: string }>).map((e) => e.name).sort();
}

async function rowids(filter: unknown): Promise<number[]> {
  const body = typeof filter === "string" ? `{"query":${filter}}` : { query: filter };
  const response = await post(`/data-tables/${dataTableId}/data`, body);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return (response.body.content as Array<{ rowid: number }>).map((r) => r.rowid).sort((a, b) => a - b);
}

const ENG = "/engagements/query";
const ALPHA = "Alpha Audit";
const BETA = "beta review";
const GAMMA = "Gamma_50% check";

describe("query language operators over REST", () => {
  const cases: Array<[operator: string, path: string | (() => string), filter: unknown | (() => unknown), expected: string[] | (() => string[])]> = [
    ["$eq (case-insensitive)", ENG, { industry: { $eq: "RETAIL" } }, [ALPHA]],
    ["shorthand equality", ENG, { name: "ALPHA AUDIT" }, [ALPHA]],
    ["$ne (keeps rows without a value)", ENG, { industry: { $ne: "retail" } }, [GAMMA, BETA]],
    ["$gt on a DATE", ENG, { auditPeriodEndDate: { $gt: "2024-12-31" } }, [BETA]],
    ["$gte", ENG, { auditPeriodEndDate: { $gte: "2024-12-31" } }, [ALPHA, BETA]],
    ["$lt on a STRING", ENG, { name: { $lt: "B" } }, [ALPHA]],
    ["$lte", ENG, { auditPeriodEndDate: { $lte: "2025-06-30" } }, [ALPHA, BETA]],
    ["$lt on a DATE_TIME with an offset", ENG, { creationDate: { $lt: "2200-01-01T00:00:00+02:00" } }, [ALPHA, GAMMA, BETA]],
    ["$in", ENG, { frequency: { $in: ["annual", "MONTHLY"] } }, [ALPHA, GAMMA]],
    ["$nin", ENG, { frequency: { $nin: ["ANNUAL"] } }, [GAMMA, BETA]],
    ["enum value in lower case", ENG, { frequency: "quarterly" }, [BETA]],
    ["enum value in mixed case ($ne)", ENG, { frequency: { $ne: "Annual" } }, [GAMMA, BETA]],
    ["$in on an id", ENG, () => ({ organizationId: { $in: [orgB] } }), [GAMMA]],
    ["$contains on an id array", ENG, () => ({ auditorIds: { $contains: other } }), [BETA]],
    ["$ncontains", ENG, () => ({ auditorIds: { $ncontains: me } }), [GAMMA]],
    ["$contains on organizations", "/organizations/query", () => ({ managerUserIds: { $contains: me } }), ["Org A"]],
    ["$contains on api tokens (case-insensitive)", "/api-tokens/query", { permissions: { $contains: "API.USERS.DELETE" } }, ["App Admin"]],
    ["$isubstr (wildcards literal)", ENG, { name: { $isubstr: "_50%" } }, [GAMMA]],
    ["$iprefix", ENG, { billingCode: { $iprefix: "b-1" } }, [ALPHA]],
    ["$niprefix", ENG, { billingCode: { $niprefix: "b-1" } }, [GAMMA, BETA]],
    ["several operators on one column", ENG, { auditPeriodEndDate: { $gt: "2024-01-01", $lt: "2025-01-01" } }, [ALPHA]],
    ["$and", ENG, { $and: [{ industry: "retail" }, { frequency: "ANNUAL" }] }, [ALPHA]],
    ["$or", ENG, { $or: [{ industry: "mining" }, { billingCode: null }] }, [GAMMA, BETA]],
    ["$and inside $or", ENG, { $or: [{ $and: [{ industry: "retail" }, { name: { $iprefix: "x" } }] }, { frequency: "MONTHLY" }] }, [GAMMA]],
    ["INT64 at its maximum, exactly", ENG, '{"version":{"$lte":9223372036854775807,"$gt":-9223372036854775808}}', [ALPHA, GAMMA, BETA]],
    ["{} matches all", ENG, {}, [ALPHA, GAMMA, BETA]],
  ];
  for (const [operator, path, filter, expected] of cases) {
    it(operator, async () => {
      const resolve = <T>(value: T | (() => T)) => (typeof value === "function" ? (value as () => T)() : value);
      expect(await names(resolve(path), resolve(filter))).toEqual(resolve(expected));
    });
  }

  it("$keyword_prefix and $keyword_prefix_not (data table memo column)", async () => {
    expect(await rowids({ $keyword_prefix: "RECL" })).toEqual([3, 4]);
    expect(await rowids({ $keyword_prefix: "eclass" })).toEqual([]);
    expect(await rowids({ $keyword_prefix_not: "recl" })).toEqual([1, 2]);
  });

  it("MONEY_100 compares the stored integer, over the full 64-bit range", async () => {
    expect(await rowids({ amount: { $gt: 100000 } })).toEqual([1]);
    expect(await rowids({ amount: -30000 })).toEqual([4]);
    expect(await rowids('{"amount":{"$lt":9223372036854775807,"$gte":-9223372036854775808}}')).toEqual([1, 2, 3, 4]);
    expect(await rowids('{"rowid":{"$in":[9007199254740993, 2]}}')).toEqual([2]);
  });
});

describe("query language errors over REST: 400 naming the key and the reason", () => {
  const cases: Array<[kind: string, path: string, filter: unknown, identifier: string, reason: RegExp]> = [
    ["unknown column", ENG, { colour: "red" }, "colour", /colour is not a queryable column of engagements/],
    ["unknown column operator", ENG, { name: { $between: ["a", "b"] } }, "name.$between", /Unknown column operator \$between/],
    ["not an operator inside a column object", ENG, { name: { eq: "a" } }, "name.eq", /not an operator/],
    ["unknown root operator", ENG, { $nor: [] }, "$nor", /Unknown root operator/],
    ["operator not allowed by the column type", ENG, { auditPeriodEndDate: { $iprefix: "2024" } }, "auditPeriodEndDate.$iprefix", /\$iprefix does not apply to auditPeriodEndDate, a DATE column/],
    ["$flags on a column that is not BOOLEAN_FLAGS", ENG, { name: { $flags: { x: true } } }, "name.$flags", /\$flags does not apply to name, a STRING column/],
    ["$contains on a scalar column", ENG, { name: { $contains: "a" } }, "name.$contains", /does not apply/],
    ["search flag missing (range on an enum)", ENG, { frequency: { $gt: "A" } }, "frequency.$gt", /rangeSearch flag is off/],
    ["search flag missing (prefix on an id)", ENG, { libraryId: { $iprefix: "5cc" } }, "libraryId.$iprefix", /does not apply|caseInsensitivePrefixSearch/],
    ["bad value type (string for INT64)", ENG, { version: "one" }, "version", /expects an integer/],
    ["bad value type (number for DATE)", ENG, { auditPeriodEndDate: 20241231 }, "auditPeriodEndDate", /ISO date/],
    ["bad value type (id)", ENG, { organizationId: "xyz" }, "organizationId", /24-character hexadecimal id/],
    ["bad $in operand", ENG, { frequency: { $in: "ANNUAL" } }, "frequency.$in", /expects an array/],
    ["DATE_TIME without a zone (date only)", ENG, { creationDate: { $gt: "2025-01-01" } }, "creationDate.$gt", /no zone/],
    ["DATE_TIME without a zone (time)", ENG, { lastModifiedDate: "2025-01-01T10:00:00" }, "lastModifiedDate", /no zone/],
    ["INT32 out of range", "/account-groups/query", { orderIndex: 2147483648 }, "orderIndex", /2147483648 is outside the INT32 range \[-2147483648, 2147483647\]/],
    ["INT64 out of range", ENG, '{"version":9223372036854775808}', "version", /9223372036854775808 is outside the INT64 range \[-9223372036854775808, 9223372036854775807\]/],
    ["INT64 out of range below", ENG, '{"version":{"$gt":-9223372036854775809}}', "version.$gt", /-9223372036854775809 is outside the INT64 range/],
    ["duplicate key", ENG, '{"industry":"a","industry":"b"}', "industry", /appears more than once/],
    ["duplicate key in an operator object", ENG, '{"$or":[{"name":{"$gt":"a","$gt":"b"}}]}', "$or[0].name.$gt", /appears more than once/],
    ["$and not an array", ENG, { $and: { industry: "x" } }, "$and", /\$and takes an array of query objects/],
    ["$or empty", ENG, { $or: [] }, "$or", /at least one query object/],
    ["$or item not an object", ENG, { $or: [5] }, "$or[0]", /must be a JSON object/],
    ["error nested in $and", ENG, { $and: [{ name: { $gt: 5 } }] }, "$and[0].name.$gt", /expects a string/],
    ["$keyword_prefix without keyword columns", ENG, { $keyword_prefix: "a" }, "$keyword_prefix", /no column with keywordSearch/],
    ["$keyword_prefix blank", ENG, { $keyword_prefix: " " }, "$keyword_prefix", /non-blank string/],
    ["NUL character in a string value", ENG, { name: "a\u0000b" }, "name", /must not contain the NUL character/],
    ["NUL character in a substring", ENG, { name: { $isubstr: "a\u0000" } }, "name.$isubstr", /must not contain the NUL character/],
    ["$population: not an id", ENG, { $population: "nope" }, "$population", /expects a population id/],
    ["$population: populations not available here", ENG, { $population: "5cc9076887f13cb8a7a1926b" }, "$population", /Populations cannot be used to filter engagements/],
    ["$not_population: validated the same way", ENG, { $not_population: 5 }, "$not_population", /expects a population id/],
  ];
  for (const [kind, path, filter, identifier, reason] of cases) {
    it(kind, async () => {
      const response = await post(path, filter);
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      const problem = (response.body.problems as Array<{ identifier: string; reason: string }>).find((p) => p.identifier === identifier);
      expect(problem, JSON.stringify(response.body.problems)).toBeDefined();
      expect(problem!.reason).toMatch(reason);
    });
  }

  it("MONEY_100 out of range (data table)", async () => {
    const response = await post(`/data-tables/${dataTableId}/data`, '{"query":{"amount":{"$gt":9223372036854775808}}}');
    expect(response.status).toBe(400);
    expect(response.body.problems[0]).toMatchObject({ identifier: "amount.$gt", values: ["9223372036854775808"] });
    expect(response.body.problems[0].reason).toMatch(/outside the MONEY_100 .*range \[-9223372036854775808, 9223372036854775807\]/);
  });

  it("collects every problem of one filter in one response", async () => {
    const response = await post(ENG, { colour: 1, version: "x", $or: [{ size: 1 }] });
    expect(response.status).toBe(400);
    expect(response.body.problems.map((p: { identifier: string }) => p.identifier).sort()).toEqual(["$or[0].size", "colour", "version"]);
  });
});

// Wire reference 3: a filter value that is not one of an enumeration column's values (section 7)
// is a 400 with problemType INCORRECT_DATA_TYPE naming the key; a known value matches in any case.
describe("enumeration columns over REST", () => {
  const ACCOUNT_MAPPING_STATUS = ["MANUAL", "MAC_CODE", "MODIFIED_MAC", "UNVERIFIED", "VERIFIED", "INFERRED", "UNMAPPED", "USED", "UNUSED"];
  const ROLE = ["ROLE_ADMIN", "ROLE_USER_ADMIN", "ROLE_ORGANIZATION_ADMIN", "ROLE_USER", "ROLE_CLIENT", "ROLE_PLATFORM_SUPPORT"];
  const ASYNC_TYPE = [
    "ANALYSIS_RUN", "ANALYSIS_SOURCE_INGESTION", "ADMIN_REPORT", "DATA_TABLE_EXPORT", "ANALYSIS_ROLL_FORWARD",
    "GDPDU_UNPACK_JOB", "ACCOUNT_GROUPING_EXPORT", "ACCOUNT_MAPPING_EXPORT", "DATA_TRANSFORMATION_JOB", "DATA_SOURCE_IMPORT_TASK",
  ];
  const ASYNC_ENTITY_TYPE = [
    "ORGANIZATION", "ENGAGEMENT", "ANALYSIS", "ANALYSIS_RESULT", "ANALYSIS_SOURCE", "FILE_RESULT", "GDPDU_UNPACK_JOB",
    "ACCOUNT_GROUPING", "ENGAGEMENT_ACCOUNT_GROUPING", "FILE_MANAGER_FILE", "DATA_SOURCE_IMPORT_TASK",
  ];
  const FREQUENCY = ["ANNUAL", "SEMI_ANNUAL", "QUARTERLY", "MONTHLY", "THIRTEEN_PERIODS"];

  const wrong: Array<[kind: string, path: string, filter: unknown, identifier: string, field: string, value: string, allowed: string[]]> = [
    ["account mapping status", "/account-mappings/query", { status: "BOGUS" }, "status", "status", "BOGUS", ACCOUNT_MAPPING_STATUS],
    ["user role", "/users/query", { role: "ROLE_BOSS" }, "role", "role", "ROLE_BOSS", ROLE],
    ["async result type", "/async-results/query", { type: "NOPE" }, "type", "type", "NOPE", ASYNC_TYPE],
    ["$eq", "/async-results/query", { status: { $eq: "DONE" } }, "status.$eq", "status", "DONE", ["IN_PROGRESS", "COMPLETE", "ERROR"]],
    ["$ne", "/file-manager/query", { type: { $ne: "FOLDER" } }, "type.$ne", "type", "FOLDER", ["DIRECTORY", "FILE"]],
    ["$in with one bad value", "/async-results/query", { $and: [{ entityType: { $in: ["analysis_source", "NOPE"] } }] }, "$and[0].entityType.$in", "entityType", "NOPE", ASYNC_ENTITY_TYPE],
    ["$nin with one bad value", ENG, { frequency: { $nin: ["annual", "YEARLY"] } }, "frequency.$nin", "frequency", "YEARLY", FREQUENCY],
  ];
  for (const [kind, path, filter, identifier, field, value, allowed] of wrong) {
    it(`a value outside the enumeration is a 400: ${kind}`, async () => {
      const response = await post(path, filter);
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      expect(response.body).toMatchObject({ status: 400, origin: expect.stringMatching(new RegExp(`${path}$`)), problemCount: 1 });
      expect(response.body.problems).toEqual([
        { problemType: "INCORRECT_DATA_TYPE", severity: "ERROR", identifier, reason: `${field}: expects one of ${allowed.join(", ")}`, values: [value], suggestedValues: allowed },
      ]);
    });
  }

  it("a known value matches whatever its case: user role", async () => {
    const users = async (filter: unknown) => {
      const response = await post("/users/query", filter);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return response.body.content as Array<{ id: string; role: string }>;
    };
    const plain = await users({ role: "rOlE_uSeR" });
    expect(plain.map((u) => u.id)).toContain(other);
    expect(new Set(plain.map((u) => u.role))).toEqual(new Set(["ROLE_USER"]));
    const admins = await users({ role: { $in: ["role_admin", "ROLE_CLIENT"] } });
    expect(admins.map((u) => u.id)).toContain(me);
    expect(admins.map((u) => u.id)).not.toContain(other);
  });

  it("a known value matches whatever its case: async result type, entity type and status", async () => {
    const response = await post("/async-results/query", {
      $and: [{ entityId: source.analysisSourceId }, { type: "analysis_source_ingestion" }, { entityType: { $in: ["Analysis_Source"] } }, { status: { $ne: "error" } }],
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.content.length).toBeGreaterThan(0);
    for (const result of response.body.content) expect(result).toMatchObject({ entityId: source.analysisSourceId, type: "ANALYSIS_SOURCE_INGESTION", entityType: "ANALYSIS_SOURCE", status: "COMPLETE" });
  });

  it("a known value matches whatever its case: account mapping status", async () => {
    const all = await post("/account-mappings/query?size=100", { engagementId: source.engagementId });
    expect(all.status, JSON.stringify(all.body)).toBe(200);
    const mappings = all.body.content as Array<{ id: string; status: string }>;
    expect(mappings.length).toBeGreaterThan(0);
    const status = mappings[0].status;
    const byStatus = await post("/account-mappings/query?size=100", { engagementId: source.engagementId, status: status.toLowerCase() });
    expect(byStatus.status, JSON.stringify(byStatus.body)).toBe(200);
    expect(byStatus.body.content.map((m: { id: string }) => m.id).sort()).toEqual(mappings.filter((m) => m.status === status).map((m) => m.id).sort());
    const none = await post("/account-mappings/query?size=100", { engagementId: source.engagementId, status: { $nin: ACCOUNT_MAPPING_STATUS.map((s) => s.toLowerCase()) } });
    expect(none.status, JSON.stringify(none.body)).toBe(200);
    expect(none.body.content).toEqual([]);
  });

  it("sorts by an enumeration column", async () => {
    const response = await post(`${ENG}?sort=frequency,desc`, { organizationId: { $in: [orgA, orgB] } });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.content.map((e: { name: string }) => e.name)).toEqual([BETA, GAMMA, ALPHA]);
  });

  it("GraphQL list filters check enumeration values the same way", async () => {
    const bad = await server.gql(`{ users(filter: { role: "ROLE_BOSS" }) { totalElements } }`);
    expect(bad.body.errors[0].extensions).toMatchObject({ status: 400 });
    expect(bad.body.errors[0].extensions.problems).toEqual([
      { problemType: "INCORRECT_DATA_TYPE", severity: "ERROR", identifier: "role", reason: `role: expects one of ${ROLE.join(", ")}`, values: ["ROLE_BOSS"], suggestedValues: ROLE },
    ]);
    const good = await server.gql(`query($f: JSON) { users(filter: $f) { content { id role } } }`, { f: { role: "role_user" } });
    expect(good.body.errors, JSON.stringify(good.body.errors)).toBeUndefined();
    expect(good.body.data.users.content.map((u: { id: string }) => u.id)).toContain(other);
  });
});
