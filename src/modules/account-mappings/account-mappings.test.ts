import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { awaitJob, clientWithPermissions } from "../../../test/helpers/entities.js";
import { inTransaction } from "../../events/outbox.js";
import { newId } from "../../core/ids.js";
import { accountMappingCounts, recordDiscoveredAccounts } from "./account-mapping.service.js";
import type { DiscoveredAccount } from "./mapping-inference.js";

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

async function createEngagement() {
  const response = await server.api.post("/engagements", {
    organizationId,
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
    expect(rows.map((r) => r.payload)).toEqual([{ engagementId, unmappedCount: 1 }]);
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
    expect(counts).toEqual({ mappedAccountMappingCount: 1, inferredAccountMappingCount: 1, unmappedAccountMappingCount: 1, unverifiedAccountMappingCount: 2 });
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

  it("verifies every mapped account of the engagement and leaves unmapped ones", async () => {
    const engagement = await createEngagement();
    await discover(engagement, [{ account: "1.1.1.1" }, { account: "1000", code: "1.1.1.2" }, { account: "nope" }]);
    const response = await server.api.post("/account-mappings/verify", { engagementId: engagement });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ engagementId: engagement, verifiedCount: 2, unmappedCount: 1, totalCount: 3 });
    expect((await mappings(engagement)).map((m) => m.status)).toEqual(["VERIFIED", "VERIFIED", "UNMAPPED"]);
    const again = await server.api.post("/account-mappings/verify", { engagementId: engagement });
    expect(again.body.verifiedCount).toBe(0);
    // Editing a verified mapping needs verifying again.
    const verified = (await mappings(engagement, { account: "1000" }))[0];
    const edited = await server.api.put(`/account-mappings/${verified.id}`, { code: "1.1.1.3", version: verified.version });
    expect(edited.body.status).toBe("MANUAL");
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
    expect((await writer.post("/account-mappings/verify", { engagementId: engagement })).body.verifiedCount).toBe(1);
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
