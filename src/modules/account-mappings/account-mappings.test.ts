import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { awaitJob, clientWithPermissions } from "../../../test/helpers/entities.js";
import { analysisFixture, ingest } from "../../../test/helpers/analysis-sources.js";
import { SIGNED_AMOUNT_LEDGER } from "../../../test/ingestion/fixtures.js";
import { inTransaction } from "../../events/outbox.js";
import { newId } from "../../core/ids.js";
import { accountMappingCounts, recordDiscoveredAccounts } from "./account-mapping.service.js";
import type { DiscoveredAccount } from "./inference/index.js";

let server: TestServer;
let db: pg.Pool;
let organizationId: string;
beforeAll(async () => {
  server = await startTestServer();
  db = new pg.Pool({ connectionString: server.databaseUrl, max: 2 });
  organizationId = (await server.api.post("/organizations", { name: "Mappings Ltd" })).body.id;
});
afterAll(async () => {
  await db?.end();
  await server?.close();
});

/** Each in an organization of its own: mappings of an organization's earlier engagements are evidence. */
async function createEngagement(inOrganization?: string) {
  const response = await server.api.post("/engagements", {
    organizationId: inOrganization ?? (await server.api.post("/organizations", { name: `Mappings ${newId()}` })).body.id,
    name: `FY ${newId()}`,
    accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" },
  });
  expect(response.status).toBe(200);
  return response.body.id as string;
}

/** What ingestion (issue 5) will call when an analysis source brings accounts. */
function discover(engagementId: string, accounts: DiscoveredAccount[], analysisSourceId: string | null = newId()) {
  const app = server.running.app;
  return inTransaction(app, (tx, emit) => recordDiscoveredAccounts(tx, emit, { userId: "ingestion", userName: "ingestion" }, { engagementId, analysisSourceId, accounts }));
}

async function mappings(engagementId: string, filter: Record<string, unknown> = {}) {
  const response = await server.api.post("/account-mappings/query?size=100&sort=account,asc", { engagementId, ...filter });
  expect(response.status).toBe(200);
  return response.body.content as any[];
}

describe("mappings of discovered accounts (the service ingestion calls)", () => {
  it("infers groups from a given MAC code, the account number or the description, else leaves the account unmapped", async () => {
    const engagementId = await createEngagement();
    const result = await discover(engagementId, [
      { account: "1000", accountDescription: "Petty cash", code: "1.1.1.1" },
      { account: "1.1.1.2", accountDescription: "Main bank account" },
      { account: "4000", accountDescription: "product sales" },
      { account: "9999", accountDescription: "Suspense" },
      { account: "9999", accountDescription: "Suspense" },
    ]);
    expect(result).toEqual({ created: 4, updated: 0, unmapped: 1 });
    expect((await mappings(engagementId)).map((m) => [m.account, m.code, m.status])).toEqual([
      ["1.1.1.2", "1.1.1.2", "INFERRED"],
      ["1000", "1.1.1.1", "MAC_CODE"],
      ["4000", "4.1.1.1", "INFERRED"],
      ["9999", undefined, "UNMAPPED"],
    ]);
    const { rows } = await db.query("SELECT payload FROM outbox_event WHERE type = 'unmapped.accounts' AND entity_id = $1", [engagementId]);
    expect(rows.map((r) => r.payload)).toEqual([{ engagementId, targetUserId: "ingestion", unmappedCount: 1 }]);
  });

  it("keeps existing mappings when accounts come again, adding the new source to usedByAnalysisSources", async () => {
    const engagementId = await createEngagement();
    const first = newId();
    const second = newId();
    await discover(engagementId, [{ account: "1000", code: "1.1.1.1" }], first);
    const [mapping] = await mappings(engagementId);
    await server.api.put(`/account-mappings/${mapping.id}`, { code: "1.1.1.3", version: mapping.version });
    const again = await discover(engagementId, [{ account: "1000", code: "1.1.1.1", accountDescription: "Cash" }, { account: "1000", fundId: "F1" }], second);
    expect(again).toEqual({ created: 1, updated: 1, unmapped: 1 });
    const stored = await mappings(engagementId);
    expect(stored.map((m) => [m.account, m.fundId, m.code, m.status, m.usedByAnalysisSources])).toEqual([
      ["1000", undefined, "1.1.1.3", "MODIFIED_MAC", [first, second]],
      ["1000", "F1", undefined, "UNMAPPED", [second]],
    ]);
    expect(stored[0].accountDescription).toBe("Cash");
    expect(stored[0].version).toBe(mapping.version + 2); // the PUT, then the source joining
  });

  it("gives the counts an analysis's readiness needs", async () => {
    const engagementId = await createEngagement();
    await discover(engagementId, [{ account: "1.1.1.1" }, { account: "1000", code: "1.1.1.2" }, { account: "x" }]);
    const counts = await accountMappingCounts(server.running.app.prisma, engagementId);
    expect(counts).toEqual({ mappedAccountMappingCount: 1, inferredAccountMappingCount: 1, unmappedAccountMappingCount: 1, unverifiedAccountMappingCount: 3 });
  });
});

describe("account mappings REST", () => {
  let engagementId: string;
  beforeAll(async () => {
    engagementId = await createEngagement();
    await discover(engagementId, [{ account: "1000", code: "1.1.1.1" }, { account: "2000", accountDescription: "Trade payables" }, { account: "8888" }]);
  });

  it("reads a mapping by id and 404s unknown ones", async () => {
    const [first] = await mappings(engagementId);
    const read = await server.api.get(`/account-mappings/${first.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(first);
    expect(read.body).toMatchObject({ engagementId, account: "1000", code: "1.1.1.1", accountTags: [], status: "MAC_CODE", version: 0 });
    expect((await server.api.get("/account-mappings/5cc9076887f13cb8a7a19999")).status).toBe(404);
  });

  it("updates code and tags with the latest version; a new group makes it MANUAL", async () => {
    const mapping = (await mappings(engagementId, { account: "8888" }))[0];
    const updated = await server.api.put(`/account-mappings/${mapping.id}`, { code: "5.2.4.7", accountTags: ["review"], version: 0 });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ code: "5.2.4.7", accountTags: ["review"], status: "MANUAL", version: 1 });
    const stale = await server.api.put(`/account-mappings/${mapping.id}`, { code: "5.2.4.6", version: 0 });
    expect(stale.status).toBe(409);
    const tagsOnly = await server.api.put(`/account-mappings/${mapping.id}`, { accountTags: ["x"], version: 1 });
    expect(tagsOnly.body).toMatchObject({ status: "MANUAL", code: "5.2.4.7", accountTags: ["x"] });
    expect((await server.api.put(`/account-mappings/${mapping.id}`, { version: 2 })).status).toBe(200);
  });

  it("refuses codes that are not lowest-level groups of the engagement (400), unknown keys (400), missing version (400)", async () => {
    const mapping = (await mappings(engagementId, { account: "2000" }))[0];
    const unknown = await server.api.put(`/account-mappings/${mapping.id}`, { code: "7.7.7", version: mapping.version });
    expect(unknown.status).toBe(400);
    expect(unknown.body.problems[0].identifier).toBe("code");
    const parent = await server.api.put(`/account-mappings/${mapping.id}`, { code: "2.1.1", version: mapping.version });
    expect(parent.status).toBe(400);
    expect(parent.body.problems[0].suggestedValues).toContain("2.1.1.1");
    expect((await server.api.put(`/account-mappings/${mapping.id}`, { code: "2.1.1.1" })).status).toBe(400);
    expect((await server.api.put(`/account-mappings/${mapping.id}`, { account: "changed", version: mapping.version })).status).toBe(200); // read-only: ignored
    expect((await server.api.put(`/account-mappings/${mapping.id}`, { colour: "red", version: mapping.version + 1 })).status).toBe(400);
    expect((await server.api.get(`/account-mappings/${mapping.id}`)).body.account).toBe("2000");
    expect((await server.api.put("/account-mappings/5cc9076887f13cb8a7a19999", { version: 0 })).status).toBe(404);
  });

  it("a mapping follows its group to a code chosen on the engagement", async () => {
    const engagement = await createEngagement();
    await discover(engagement, [{ account: "6000" }]);
    const grouping = (await server.api.post("/engagement-account-groupings/query", { engagementId: engagement })).body.content[0];
    const created = await server.api.post("/engagement-account-groups", { engagementAccountGroupingId: grouping.id, code: "5.2.4.7.1", parentCode: "5.2.4.7", description: { en: "Licences" } });
    expect(created.status).toBe(200);
    const [mapping] = await mappings(engagement);
    expect((await server.api.put(`/account-mappings/${mapping.id}`, { code: "5.2.4.7.1", version: 0 })).status).toBe(200);
  });

  it("verifies every mapping of the engagement, those without a group included (spec 4.3)", async () => {
    const engagement = await createEngagement();
    await discover(engagement, [{ account: "1.1.1.1" }, { account: "1000", code: "1.1.1.2" }, { account: "nope" }]);
    const response = await server.api.post("/account-mappings/verify", { engagementId: engagement });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ engagementId: engagement, verifiedCount: 3, unmappedCount: 1, totalCount: 3 });
    expect((await mappings(engagement)).map((m) => [m.account, m.code, m.status])).toEqual([
      ["1.1.1.1", "1.1.1.1", "VERIFIED"],
      ["1000", "1.1.1.2", "VERIFIED"],
      ["nope", undefined, "VERIFIED"],
    ]);
    const again = await server.api.post("/account-mappings/verify", { engagementId: engagement });
    expect(again.body).toMatchObject({ verifiedCount: 0, unmappedCount: 1 });
    // Editing a verified mapping needs verifying again; so does giving a group to one verified without.
    const verified = (await mappings(engagement, { account: "1000" }))[0];
    const edited = await server.api.put(`/account-mappings/${verified.id}`, { code: "1.1.1.3", version: verified.version });
    expect(edited.body.status).toBe("MANUAL");
    const without = (await mappings(engagement, { account: "nope" }))[0];
    const given = await server.api.put(`/account-mappings/${without.id}`, { code: "5.2.4.7", version: without.version });
    expect(given.body).toMatchObject({ code: "5.2.4.7", status: "MANUAL" });
    expect((await server.api.post("/account-mappings/query", { engagementId: engagement, status: "VERIFIED" })).body.totalElements).toBe(1);
  });

  it("verify: 404 for an unknown engagement, 400 without engagementId or with extra keys, needs api.analyses.write", async () => {
    expect((await server.api.post("/account-mappings/verify", { engagementId: "5cc9076887f13cb8a7a19999" })).status).toBe(404);
    expect((await server.api.post("/account-mappings/verify", {})).status).toBe(400);
    expect((await server.api.post("/account-mappings/verify", { engagementId, extra: 1 })).status).toBe(400);
    // Verifying is api.analyses.write (spec 4.3); api.analyses.read reads but does not verify.
    const reader = await clientWithPermissions(server.api, ["api.analyses.read"], "mapping reader");
    const refused = await reader.post("/account-mappings/verify", { engagementId });
    expect(refused.status).toBe(403);
    expect(refused.body.problems[0].values).toEqual(["api.analyses.write"]);
    expect((await reader.post("/account-mappings/query", {})).status).toBe(200);
    expect((await reader.post("/account-mappings/delete-unused", { engagementId })).status).toBe(403);
  });

  it("works with the wire reference's analyses permissions alone: read, query, update, verify, delete-unused, export and its file", async () => {
    const engagement = await createEngagement();
    await discover(engagement, [{ account: "1000", code: "1.1.1.1" }]);
    await discover(engagement, [{ account: "unused" }], null);
    const reader = await clientWithPermissions(server.api, ["api.analyses.read"], "analyses reader");
    const writer = await clientWithPermissions(server.api, ["api.analyses.read", "api.analyses.write"], "analyses writer");
    const [mapping] = await mappings(engagement, { account: "1000" });
    expect((await reader.get(`/account-mappings/${mapping.id}`)).body).toEqual(mapping);
    expect((await reader.post("/account-mappings/query", { engagementId: engagement })).body.totalElements).toBe(2);
    const readOnly = await reader.put(`/account-mappings/${mapping.id}`, { accountTags: ["x"], version: mapping.version });
    expect(readOnly.status).toBe(403);
    expect(readOnly.body.problems[0].values).toEqual(["api.analyses.write"]);

    const updated = await writer.put(`/account-mappings/${mapping.id}`, { code: "1.1.1.2", accountTags: ["checked"], version: mapping.version });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ code: "1.1.1.2", accountTags: ["checked"], status: "MODIFIED_MAC" });
    expect((await writer.post("/account-mappings/verify", { engagementId: engagement })).body).toMatchObject({ verifiedCount: 2, unmappedCount: 1 });
    expect((await writer.post("/account-mappings/delete-unused", { engagementId: engagement })).body.deletedCount).toBe(1);

    // The export's async result, file result and bytes need nothing beyond the token that started it.
    const started = await reader.post("/account-mappings/export", { engagementId: engagement });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ type: "ACCOUNT_MAPPING_EXPORT", entityType: "FILE_RESULT" });
    const done = await awaitJob(reader, started.body.id);
    expect(done.status).toBe("COMPLETE");
    const fileResult = await reader.get(`/file-results/${done.entityId}`);
    expect(fileResult.status).toBe(200);
    expect(fileResult.body.size).toBeGreaterThan(0);
    const bytes = await fetch(`${server.url}/api/v1/file-results/${done.entityId}/export`, { headers: { authorization: `Bearer ${reader.token}` } });
    expect(bytes.status).toBe(200);
    expect((await bytes.arrayBuffer()).byteLength).toBe(fileResult.body.size);
    expect((await writer.get(`/file-results/${done.entityId}`)).status).toBe(404);

    const neither = await clientWithPermissions(server.api, ["api.engagements.read"], "no mappings");
    const denied = await neither.get(`/account-mappings/${mapping.id}`);
    expect(denied.status).toBe(403);
    expect(denied.body.problems[0].values).toEqual(["api.analyses.read"]);
    const gql = await server.gql(`query($id: ID!) { accountMapping(id: $id) { account } }`, { id: mapping.id }, reader.token);
    expect(gql.body.data.accountMapping.account).toBe("1000");
  });

  it("deletes the mappings no analysis source uses", async () => {
    const engagement = await createEngagement();
    await discover(engagement, [{ account: "used" }]);
    await discover(engagement, [{ account: "unused-1" }, { account: "unused-2" }], null);
    const response = await server.api.post("/account-mappings/delete-unused", { engagementId: engagement });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ engagementId: engagement, deletedCount: 2 });
    expect((await mappings(engagement)).map((m) => m.account)).toEqual(["used"]);
    expect((await server.api.post("/account-mappings/delete-unused", { engagementId: "5cc9076887f13cb8a7a19999" })).status).toBe(404);
  });

  it("queries on status, code, account, description, tags and usage", async () => {
    expect((await mappings(engagementId, { status: "UNMAPPED" }))).toEqual([]);
    expect((await mappings(engagementId, { status: { $in: ["MAC_CODE", "INFERRED"] } })).map((m) => m.account)).toEqual(["1000", "2000"]);
    expect((await mappings(engagementId, { account: { $iprefix: "10" } })).map((m) => m.account)).toEqual(["1000"]);
    expect((await mappings(engagementId, { accountDescription: { $isubstr: "PAYABLE" } })).map((m) => m.account)).toEqual(["2000"]);
    expect((await mappings(engagementId, { code: { $iprefix: "1.1" } })).map((m) => m.account)).toEqual(["1000"]);
    const bad = await server.api.post("/account-mappings/query", { status: { $gt: "A" } });
    expect(bad.status).toBe(400);
  });

  it("feed the analysis status: counts, and UNVERIFIED_ACCOUNT_MAPPINGS until verified", async () => {
    const engagement = await createEngagement();
    const analysis = await server.api.post("/analyses", { engagementId: engagement, analysisTypeId: "4b8360d00000000000000000", name: "GL", analysisPeriods: [{ startDate: "2025-01-01", endDate: "2025-12-31" }] });
    expect(analysis.status).toBe(200);
    await discover(engagement, [{ account: "1.1.1.1" }, { account: "1000", code: "1.1.1.2" }, { account: "2000", code: "2.1.1.1" }]);
    const before = (await server.api.get(`/analyses/${analysis.body.id}/status`)).body;
    expect(before).toMatchObject({ mappedAccountMappingCount: 2, inferredAccountMappingCount: 1, unmappedAccountMappingCount: 0 });
    expect(before.preflightErrors).toContain("UNVERIFIED_ACCOUNT_MAPPINGS");
    await server.api.post("/account-mappings/verify", { engagementId: engagement });
    const after = (await server.api.get(`/analyses/${analysis.body.id}/status`)).body;
    expect(after).toMatchObject({ mappedAccountMappingCount: 3, inferredAccountMappingCount: 0, unmappedAccountMappingCount: 0 });
    expect(after.preflightErrors).not.toContain("UNVERIFIED_ACCOUNT_MAPPINGS");
  });

  it("answers GraphQL with the same rules", async () => {
    const engagement = await createEngagement();
    await discover(engagement, [{ account: "1.1.1.1" }]);
    const page = await server.gql(`query($f: JSON) { accountMappings(filter: $f) { totalElements content { id account code status } } }`, { f: { engagementId: engagement } });
    expect(page.body.data.accountMappings).toMatchObject({ totalElements: 1, content: [{ account: "1.1.1.1", code: "1.1.1.1", status: "INFERRED" }] });
    const id = page.body.data.accountMappings.content[0].id;
    const updated = await server.gql(`mutation($id: ID!) { updateAccountMapping(id: $id, input: { code: "1.1.1.2", version: 0 }) { code status version } }`, { id });
    expect(updated.body.data.updateAccountMapping).toEqual({ code: "1.1.1.2", status: "MANUAL", version: 1 });
    const verified = await server.gql(`mutation($e: ID!) { verifyAccountMappings(engagementId: $e) { verifiedCount } }`, { e: engagement });
    expect(verified.body.data.verifyAccountMappings.verifiedCount).toBe(1);
    const unused = await server.gql(`mutation($e: ID!) { deleteUnusedAccountMappings(engagementId: $e) { deletedCount } }`, { e: engagement });
    expect(unused.body.data.deleteUnusedAccountMappings.deletedCount).toBe(0);
  });
});

describe("verify, then run (spec 4.3: verify marks all account mappings of the engagement verified)", () => {
  it("after a ledger is ingested and its mappings verified the analysis is ready; accounts without a group stay counted and queryable", async () => {
    const fixture = await analysisFixture(server, "Verify then run");
    // A suspense account no name, number or type places: it stays without a group.
    const ledger = SIGNED_AMOUNT_LEDGER + "04/05/2023,103,9990-X,Suspense zq unclassified,$10.00,Suspense\n04/05/2023,103,1000,Cash,($10.00),Suspense\n";
    const { source } = await ingest(server, fixture, ledger, { targetWorkflowState: "COMPLETED", proposedAmbiguousColumnResolutions: [{ position: 0, selectedFormat: "MM/dd/yyyy" }] });
    expect(source.workflowState).toBe("COMPLETED");
    const status = async () => (await server.api.get(`/analyses/${fixture.analysisId}/status`)).body;
    expect(await status()).toMatchObject({ ready: false, preflightErrors: ["UNVERIFIED_ACCOUNT_MAPPINGS"], mappedAccountMappingCount: 0, inferredAccountMappingCount: 5, unmappedAccountMappingCount: 1 });
    const { rows } = await db.query("SELECT payload FROM outbox_event WHERE type = 'unmapped.accounts' AND entity_id = $1", [fixture.engagementId]);
    const me = (await server.api.get("/users/current")).body;
    expect(rows.map((r) => r.payload)).toEqual([{ engagementId: fixture.engagementId, targetUserId: me.id, unmappedCount: 1 }]);

    const verified = await server.api.post("/account-mappings/verify", { engagementId: fixture.engagementId });
    expect(verified.body).toEqual({ engagementId: fixture.engagementId, verifiedCount: 6, unmappedCount: 1, totalCount: 6 });
    expect(await status()).toMatchObject({ ready: true, preflightErrors: [], mappedAccountMappingCount: 5, inferredAccountMappingCount: 0, unmappedAccountMappingCount: 1 });
    const without = await server.api.post("/account-mappings/query", { engagementId: fixture.engagementId, code: null });
    expect(without.body.content.map((m: { account: string; status: string }) => [m.account, m.status])).toEqual([["9990-X", "VERIFIED"]]);
  });
});

describe("inference from everything the import knows", () => {
  const placed = async (engagementId: string) => Object.fromEntries((await mappings(engagementId)).map((m) => [m.account, m.code ?? null]));

  it("reads the words of a chart's names (vocabulary and synonyms)", async () => {
    const engagementId = await createEngagement();
    await discover(engagementId, [
      { account: "1010", accountDescription: "Cash - Operating" },
      { account: "1200", accountDescription: "Accounts Receivable - Trade" },
      { account: "1250", accountDescription: "Allowance for Doubtful Accounts" },
      { account: "1510", accountDescription: "Accum. Depr. - Vehicles" },
      { account: "2050", accountDescription: "Accrued Payroll" },
      { account: "2200", accountDescription: "Sales Tax Payable" },
      { account: "3900", accountDescription: "Retained Earnings" },
      { account: "4100", accountDescription: "Consulting Revenue" },
      { account: "6150", accountDescription: "Office Supplies Expense" },
      { account: "6400", accountDescription: "Depreciation Expense" },
      { account: "Sundry debtors" },
      { account: "9999", accountDescription: "Suspense" },
    ]);
    expect(await placed(engagementId)).toEqual({
      "1010": "1.1.1.2",
      "1200": "1.1.2.1",
      "1250": "1.1.2.2",
      "1510": "1.2.1.7",
      "2050": "2.1.3.1",
      "2200": "2.1.4.2",
      "3900": "3.2.1.1",
      "4100": "4.1.2.1",
      "6150": "5.2.4.1",
      "6400": "5.2.5.1",
      "Sundry debtors": "1.1.2.3",
      "9999": null,
    });
    expect((await mappings(engagementId)).filter((m) => m.code).every((m) => m.status === "INFERRED")).toBe(true);
  });

  it("places by the chart's numbering scheme what the names leave open, once the names show which scheme it is", async () => {
    const engagementId = await createEngagement();
    const named = [
      ["0030", "Office equipment"],
      ["1100", "Debtors control account"],
      ["1200", "Bank current account"],
      ["2100", "Creditors control account"],
      ["3000", "Ordinary shares"],
      ["4000", "Sales type A"],
      ["7100", "Rent"],
      ["7502", "Telephone"],
    ].map(([account, accountDescription]) => ({ account, accountDescription }));
    await discover(engagementId, [
      ...named,
      { account: "7009", accountDescription: "Adjustments" },
      { account: "2204", accountDescription: "Manual adjustments" },
      { account: "4400", accountDescription: "Credit charges (late payments)" },
      { account: "7905", accountDescription: "Credit charges" },
      { account: "8001", accountDescription: "Plant/machinery depreciation" },
      { account: "0021", accountDescription: "Plant/machinery depreciation" },
    ]);
    expect(await placed(engagementId)).toMatchObject({ "7009": "5.2.1.1", "2204": "2.1.4.2", "4400": "4.2.1.1", "7905": "5.2.4.5", "8001": "5.2.5.1", "0021": "1.2.1.7" });
    // Numbers alone prove no scheme: a few accounts without names stay unmapped.
    const bare = await createEngagement();
    await discover(bare, [{ account: "7009" }, { account: "4400" }]);
    expect(await placed(bare)).toEqual({ "7009": null, "4400": null });
  });

  it("follows the package's account type, and a chart's types reach accounts a ledger left unmapped", async () => {
    const engagementId = await createEngagement();
    await discover(engagementId, [
      { account: "Car & Truck", accountType: "Expenses" },
      { account: "Automobile", accountType: "Fixed Assets" },
      { account: "Rounding", accountType: "Current Liability" },
      { account: "Suspense" },
      { account: "8800", accountDescription: "Zqx" },
    ]);
    expect(await placed(engagementId)).toEqual({ "Car & Truck": "5.2.3.2", Automobile: "1.2.1.5", Rounding: "2.1.1.3", Suspense: null, "8800": null });
    const again = await discover(engagementId, [{ account: "8800", accountDescription: "Zqx", accountType: "Other Income" }]);
    expect(again).toEqual({ created: 0, updated: 1, unmapped: 0 });
    expect((await mappings(engagementId, { account: "8800" }))[0]).toMatchObject({ code: "4.2.2.3", status: "INFERRED" });
  });

  it("learns the client's words from a group's alias", async () => {
    const engagementId = await createEngagement();
    const grouping = (await server.api.post("/engagement-account-groupings/query", { engagementId })).body.content[0];
    const group = (await server.api.post("/engagement-account-groups/query", { engagementAccountGroupingId: grouping.id, code: "5.2.4.4" })).body.content[0];
    expect((await server.api.put(`/engagement-account-groups/${group.id}`, { alias: "Zoom licences" })).status).toBe(200);
    await discover(engagementId, [{ account: "6470", accountDescription: "Zoom licences - sales team" }]);
    expect(await placed(engagementId)).toEqual({ "6470": "5.2.4.4" });
  });

  it("takes a person's mapping of the same account in the organization's earlier engagement, unless the name now says another class", async () => {
    const earlier = await createEngagement(organizationId);
    await discover(earlier, [{ account: "5000", accountDescription: "Zqx pool" }, { account: "4000", accountDescription: "Sales" }]);
    const [pool] = await mappings(earlier, { account: "5000" });
    expect(pool.code).toBeUndefined();
    expect((await server.api.put(`/account-mappings/${pool.id}`, { code: "5.1.2.2", version: pool.version })).status).toBe(200);
    expect((await server.api.post("/account-mappings/verify", { engagementId: earlier })).status).toBe(200);

    const later = await createEngagement(organizationId);
    await discover(later, [{ account: "5000", accountDescription: "Zqx pool" }, { account: "4000", accountDescription: "Rent expense" }]);
    expect(await placed(later)).toEqual({ "5000": "5.1.2.2", "4000": "5.2.2.1" });
    expect((await mappings(later, { account: "5000" }))[0].status).toBe("INFERRED");
    // Another organization's engagements say nothing.
    const elsewhere = await createEngagement();
    await discover(elsewhere, [{ account: "5000", accountDescription: "Zqx pool" }]);
    expect(await placed(elsewhere)).toEqual({ "5000": null });
  });

  it("reads an account's side in the ledger: the same name credited is income, debited an expense", async () => {
    const fixture = await analysisFixture(server, "Behaviour");
    const ledger = [
      "Txn Date,JE Number,GL Account,Account Name,Amount,Description",
      "01/02/2023,100,B1,Bank,100.00,Interest received",
      "01/02/2023,100,N1,Interest,(100.00),Interest received",
      "01/03/2023,101,N2,Interest,40.00,Loan interest",
      "01/03/2023,101,B1,Bank,(40.00),Loan interest",
      "01/04/2023,102,N1,Interest,(5.00),Interest received",
      "01/04/2023,102,B1,Bank,5.00,Interest received",
    ].join("\n") + "\n";
    const { source } = await ingest(server, fixture, ledger, { targetWorkflowState: "COMPLETED", proposedAmbiguousColumnResolutions: [{ position: 0, selectedFormat: "MM/dd/yyyy" }] });
    expect(source.workflowState).toBe("COMPLETED");
    expect(await placed(fixture.engagementId)).toEqual({ B1: "1.1.1.2", N1: "4.2.1.1", N2: "5.3.1.1" });
  });
});
