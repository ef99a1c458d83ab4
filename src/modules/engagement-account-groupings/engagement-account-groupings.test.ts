import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { newId } from "../../core/ids.js";

const SYSTEM = "5cc9076887f13cb8a7a19300";

let server: TestServer;
let db: pg.Pool;
let organizationId: string;
beforeAll(async () => {
  server = await startTestServer();
  db = new pg.Pool({ connectionString: server.databaseUrl, max: 2 });
  organizationId = (await server.api.post("/organizations", { name: "Groupings Inc" })).body.id;
});
afterAll(async () => {
  await db?.end();
  await server?.close();
});

async function createEngagement(extra: Record<string, unknown> = {}) {
  const response = await server.api.post("/engagements", {
    organizationId,
    name: `FY ${newId()}`,
    auditPeriodEndDate: "2025-12-31",
    accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" },
    ...extra,
  });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body as { id: string };
}

async function groupingOf(engagementId: string) {
  const response = await server.api.post("/engagement-account-groupings/query", { engagementId });
  expect(response.status).toBe(200);
  expect(response.body.content).toHaveLength(1);
  return response.body.content[0];
}

async function groupsOf(engagementAccountGroupingId: string, filter: Record<string, unknown> = {}) {
  const all: any[] = [];
  for (let page = 0; ; page++) {
    const response = await server.api.post(`/engagement-account-groups/query?page=${page}&size=200&sort=orderIndex,asc`, { engagementAccountGroupingId, ...filter });
    expect(response.status).toBe(200);
    if (response.body.content.length === 0) return all;
    all.push(...response.body.content);
  }
}

async function groupByCode(groupingId: string, code: string) {
  const response = await server.api.post("/engagement-account-groups/query", { engagementAccountGroupingId: groupingId, code });
  return response.body.content[0];
}

async function systemGroup(code: string) {
  return (await server.api.post("/account-groups/query", { accountGroupingId: SYSTEM, code })).body.content[0];
}

/** A library whose account grouping is one of the tenant's own (not the system grouping). */
async function libraryWithOwnGrouping(): Promise<{ libraryId: string; groupingId: string; groupIds: Record<string, string> }> {
  const groupingId = newId();
  await db.query(`INSERT INTO account_grouping (id, name, code_display_name, delimiter, publish_status) VALUES ($1, '{"en":"Client chart"}', '{"en":"Group"}', '-', 'PUBLISHED')`, [groupingId]);
  const groupIds: Record<string, string> = {};
  for (const [index, [code, parent, mac, lowest, hierarchy]] of ([
    ["100", null, null, false, ["100"]],
    ["100-10", "100", "1.1.1.2", true, ["100", "100-10"]],
  ] as const).entries()) {
    groupIds[code] = newId();
    await db.query(
      "INSERT INTO account_group (id, account_grouping_id, code, parent_code, description, hierarchy, lowest_level, mac_code, order_index) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
      [groupIds[code], groupingId, code, parent, JSON.stringify({ en: `Group ${code}` }), hierarchy, lowest, mac, index],
    );
  }
  const library = await server.api.post("/libraries", { name: `Client chart ${groupingId}`, basedOnLibraryId: "5cc9076887f13cb8a7a1926b", accountGroupingId: groupingId, convertSettings: true });
  expect(library.status).toBe(200);
  const libraryId = library.body.id as string;
  return { libraryId, groupingId, groupIds };
}

describe("copy at engagement creation", () => {
  it("gives every new engagement its own copy of the system grouping (the default library's)", async () => {
    const engagement = await createEngagement();
    const grouping = await groupingOf(engagement.id);
    expect(grouping).toMatchObject({ engagementId: engagement.id, accountGroupingId: SYSTEM, name: { en: "Platform account classification (MAC)" }, codeDisplayName: { en: "MAC code" }, delimiter: ".", version: 0 });
    expect(grouping.id).not.toBe(SYSTEM);
    const groups = await groupsOf(grouping.id);
    const system = (await server.api.post("/account-groups/query?size=1", { accountGroupingId: SYSTEM })).body.totalElements;
    expect(groups).toHaveLength(system);
    expect(groups.every((g) => g.origin === "IMPORTED_FROM_LIBRARY" && g.hidden === false)).toBe(true);
    const cash = groups.find((g) => g.code === "1.1.1.2");
    const original = await systemGroup("1.1.1.2");
    expect(cash).toMatchObject({ parentCode: original.parentCode, hierarchy: original.hierarchy, description: original.description, macCode: original.macCode, accountTags: original.accountTags, lowestLevel: true });
    expect(cash.id).not.toBe(original.id);
  });

  it("copies the library's own grouping when the library names one", async () => {
    const { libraryId, groupingId } = await libraryWithOwnGrouping();
    const engagement = await createEngagement({ libraryId });
    const grouping = await groupingOf(engagement.id);
    expect(grouping).toMatchObject({ accountGroupingId: groupingId, name: { en: "Client chart" }, delimiter: "-" });
    expect((await groupsOf(grouping.id)).map((g) => [g.code, g.macCode, g.origin])).toEqual([
      ["100", undefined, "IMPORTED_FROM_LIBRARY"],
      ["100-10", "1.1.1.2", "IMPORTED_FROM_LIBRARY"],
    ]);
  });

  it("keeps library and engagement independent afterwards, in both directions", async () => {
    const { libraryId, groupIds } = await libraryWithOwnGrouping();
    const engagement = await createEngagement({ libraryId });
    const grouping = await groupingOf(engagement.id);
    const copy = await groupByCode(grouping.id, "100-10");

    // library -> engagement: a change to the library's grouping does not reach the copy
    expect((await server.api.put(`/account-groups/${groupIds["100-10"]}`, { macCode: "1.1.1.3", accountTags: ["changed"] })).status).toBe(200);
    expect(await groupByCode(grouping.id, "100-10")).toMatchObject({ macCode: "1.1.1.2", accountTags: [], version: 0 });

    // engagement -> library: a change to the copy does not reach the library's grouping
    expect((await server.api.put(`/engagement-account-groups/${copy.id}`, { macCode: "1.1.1.1", alias: "Bank", hidden: true })).status).toBe(200);
    expect((await server.api.get(`/account-groups/${groupIds["100-10"]}`)).body).toMatchObject({ macCode: "1.1.1.3", accountTags: ["changed"] });
    expect((await server.api.get(`/account-groups/${groupIds["100-10"]}`)).body.alias).toBeUndefined();
    // and engagements created later copy the library as it is now
    const later = await createEngagement({ libraryId });
    expect(await groupByCode((await groupingOf(later.id)).id, "100-10")).toMatchObject({ macCode: "1.1.1.3", hidden: false });
  });

  it("copies from the engagement it is based on (IMPORTED_FROM_ENGAGEMENT), then stays independent of it", async () => {
    const first = await createEngagement();
    const firstGrouping = await groupingOf(first.id);
    const cash = await groupByCode(firstGrouping.id, "1.1.1.2");
    await server.api.put(`/engagement-account-groups/${cash.id}`, { alias: "Main bank", hidden: true });
    const second = await createEngagement({ settingsBasedOnEngagementId: first.id });
    const secondGrouping = await groupingOf(second.id);
    expect(secondGrouping.accountGroupingId).toBe(SYSTEM);
    const copied = await groupByCode(secondGrouping.id, "1.1.1.2");
    expect(copied).toMatchObject({ alias: "Main bank", hidden: true, origin: "IMPORTED_FROM_ENGAGEMENT" });
    await server.api.put(`/engagement-account-groups/${copied.id}`, { alias: "Renamed" });
    expect((await groupByCode(firstGrouping.id, "1.1.1.2")).alias).toBe("Main bank");
    await server.api.put(`/engagement-account-groups/${cash.id}`, { hidden: false });
    expect((await groupByCode(secondGrouping.id, "1.1.1.2")).hidden).toBe(true);
    // the system grouping itself never changed
    expect((await systemGroup("1.1.1.2")).version).toBe(0);
  });

  it("goes away with its engagement", async () => {
    const engagement = await createEngagement();
    const grouping = await groupingOf(engagement.id);
    const group = await groupByCode(grouping.id, "1");
    expect((await server.api.delete(`/engagements/${engagement.id}`)).status).toBe(204);
    expect((await server.api.get(`/engagement-account-groupings/${grouping.id}`)).status).toBe(404);
    expect((await server.api.get(`/engagement-account-groups/${group.id}`)).status).toBe(404);
  });
});

describe("engagement account groups CRUD", () => {
  let groupingId: string;
  beforeAll(async () => {
    groupingId = (await groupingOf((await createEngagement()).id)).id;
  });

  it("creates a group under an existing parent (ADDED_ON_ENGAGEMENT) and re-derives the tree", async () => {
    const created = await server.api.post("/engagement-account-groups", {
      engagementAccountGroupingId: groupingId,
      code: "1.1.1.2.1",
      parentCode: "1.1.1.2",
      description: { en: "Bank - operating" },
      alias: "Operating",
      macCode: "1.1.1.2",
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ code: "1.1.1.2.1", parentCode: "1.1.1.2", origin: "ADDED_ON_ENGAGEMENT", hidden: false, lowestLevel: true, hierarchy: ["1", "1.1", "1.1.1", "1.1.1.2", "1.1.1.2.1"], version: 0, alias: "Operating", errors: [] });
    expect((await groupByCode(groupingId, "1.1.1.2")).lowestLevel).toBe(false);
    const top = await server.api.post("/engagement-account-groups", { engagementAccountGroupingId: groupingId, code: "9" });
    expect(top.status).toBe(200);
    expect(top.body).toMatchObject({ hierarchy: ["9"], description: { en: "9" } });
    expect("parentCode" in top.body).toBe(false);
  });

  it("refuses duplicates (409), unknown parents, groupings and MAC codes (400), bad bodies (400)", async () => {
    const duplicate = await server.api.post("/engagement-account-groups", { engagementAccountGroupingId: groupingId, code: "1.1" });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.problems[0]).toMatchObject({ problemType: "NON_UNIQUE_VALUE", identifier: "code" });
    const parent = await server.api.post("/engagement-account-groups", { engagementAccountGroupingId: groupingId, code: "X1", parentCode: "nope" });
    expect(parent.status).toBe(400);
    expect(parent.body.problems[0].identifier).toBe("parentCode");
    const grouping = await server.api.post("/engagement-account-groups", { engagementAccountGroupingId: "5cc9076887f13cb8a7a19999", code: "X2" });
    expect(grouping.status).toBe(400);
    expect(grouping.body.problems[0].identifier).toBe("engagementAccountGroupingId");
    const mac = await server.api.post("/engagement-account-groups", { engagementAccountGroupingId: groupingId, code: "X3", macCode: "not-a-mac" });
    expect(mac.status).toBe(400);
    expect(mac.body.problems[0].identifier).toBe("macCode");
    expect((await server.api.post("/engagement-account-groups", { engagementAccountGroupingId: groupingId })).status).toBe(400);
    expect((await server.api.post("/engagement-account-groups", { engagementAccountGroupingId: groupingId, code: " " })).status).toBe(400);
    const description = await server.api.post("/engagement-account-groups", { engagementAccountGroupingId: groupingId, code: "X4", description: "plain" });
    expect(description.status).toBe(400);
    expect(description.body.problems[0].identifier).toBe("description");
    expect((await server.api.post("/engagement-account-groups", { engagementAccountGroupingId: groupingId, code: "X5", colour: "red" })).status).toBe(400);
  });

  it("updates alias, hidden and MAC code without a version; checks a version when given", async () => {
    const group = await groupByCode(groupingId, "2.1.1.1");
    const updated = await server.api.put(`/engagement-account-groups/${group.id}`, { alias: "AP", hidden: true });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ alias: "AP", hidden: true, version: group.version + 1 });
    expect((await server.api.put(`/engagement-account-groups/${group.id}`, { hidden: false, version: group.version })).status).toBe(409);
    expect((await server.api.put(`/engagement-account-groups/${group.id}`, { hidden: false, version: group.version + 1 })).status).toBe(200);
    expect((await server.api.put(`/engagement-account-groups/${group.id}`, { macCode: "zzz" })).status).toBe(400);
    expect((await server.api.put(`/engagement-account-groups/5cc9076887f13cb8a7a19999`, { hidden: true })).status).toBe(404);
  });

  it("re-codes a group: children and account mappings follow, duplicates are refused", async () => {
    const engagement = await createEngagement();
    const id = (await groupingOf(engagement.id)).id;
    const parent = await groupByCode(id, "5.2.4");
    await db.query("INSERT INTO account_mapping (id, engagement_id, account, code, status) VALUES ($1, $2, '6100', '5.2.4', 'MANUAL')", [newId(), engagement.id]);
    expect((await server.api.put(`/engagement-account-groups/${parent.id}`, { code: "5.2.1" })).status).toBe(409);
    const recoded = await server.api.put(`/engagement-account-groups/${parent.id}`, { code: "5.2.4-GA" });
    expect(recoded.status).toBe(200);
    expect(recoded.body).toMatchObject({ code: "5.2.4-GA", hierarchy: ["5", "5.2", "5.2.4-GA"] });
    const child = await groupByCode(id, "5.2.4.2");
    expect(child).toMatchObject({ parentCode: "5.2.4-GA", hierarchy: ["5", "5.2", "5.2.4-GA", "5.2.4.2"] });
    const mapping = (await server.api.post("/account-mappings/query", { engagementId: engagement.id, account: "6100" })).body.content[0];
    expect(mapping.code).toBe("5.2.4-GA");
  });

  it("deletes leaves (204), refuses groups with children or mapped accounts (409)", async () => {
    const engagement = await createEngagement();
    const id = (await groupingOf(engagement.id)).id;
    const withChildren = await groupByCode(id, "3.3.1");
    const refused = await server.api.delete(`/engagement-account-groups/${withChildren.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.problems[0].problemType).toBe("CANNOT_DELETE");
    const leaf = await groupByCode(id, "3.3.1.1");
    await db.query("INSERT INTO account_mapping (id, engagement_id, account, code, status) VALUES ($1, $2, '3900', '3.3.1.1', 'MANUAL')", [newId(), engagement.id]);
    expect((await server.api.delete(`/engagement-account-groups/${leaf.id}`)).status).toBe(409);
    await db.query("DELETE FROM account_mapping WHERE engagement_id = $1", [engagement.id]);
    expect((await server.api.delete(`/engagement-account-groups/${leaf.id}`)).status).toBe(204);
    expect((await server.api.get(`/engagement-account-groups/${leaf.id}`)).status).toBe(404);
    expect((await groupByCode(id, "3.3.1")).lowestLevel).toBe(true);
    expect((await server.api.delete(`/engagement-account-groups/${leaf.id}`)).status).toBe(404);
  });

  it("re-derives MAC errors on groupings that are not MAC groupings", async () => {
    const { libraryId } = await libraryWithOwnGrouping();
    const id = (await groupingOf((await createEngagement({ libraryId })).id)).id;
    const added = await server.api.post("/engagement-account-groups", { engagementAccountGroupingId: id, code: "100-20", parentCode: "100" });
    expect(added.body.errors).toEqual([{ type: "ERROR_LOWEST_LEVEL_WITH_NO_MAC", arguments: ["100-20"] }]);
    const fixed = await server.api.put(`/engagement-account-groups/${added.body.id}`, { macCode: "1.1.1.1" });
    expect(fixed.body.errors).toEqual([]);
  });

  it("queries on hidden, origin, alias and code", async () => {
    const engagement = await createEngagement();
    const id = (await groupingOf(engagement.id)).id;
    for (const code of ["4.1.1.1", "4.1.1.2"]) await server.api.put(`/engagement-account-groups/${(await groupByCode(id, code)).id}`, { hidden: true, alias: `Sales ${code}` });
    expect((await groupsOf(id, { hidden: true })).map((g) => g.code)).toEqual(["4.1.1.1", "4.1.1.2"]);
    expect((await groupsOf(id, { hidden: false })).length).toBeGreaterThan(100);
    expect((await groupsOf(id, { alias: { $iprefix: "sales 4.1.1.2" } })).map((g) => g.code)).toEqual(["4.1.1.2"]);
    expect((await groupsOf(id, { origin: "ADDED_ON_ENGAGEMENT" }))).toEqual([]);
    const bad = await server.api.post("/engagement-account-groups/query", { hidden: "yes" });
    expect(bad.status).toBe(400);
    expect(bad.body.problems[0].identifier).toBe("hidden");
  });
});

describe("permissions and GraphQL", () => {
  it("needs the engagement-account-groupings permissions", async () => {
    const engagement = await createEngagement();
    const id = (await groupingOf(engagement.id)).id;
    const token = (await server.api.post("/api-tokens", { name: "eag reader", permissions: ["api.engagement-account-groupings.read"] })).body.token;
    const reader = server.api.withToken(token);
    expect((await reader.get(`/engagement-account-groupings/${id}`)).status).toBe(200);
    expect((await reader.post("/engagement-account-groups", { engagementAccountGroupingId: id, code: "Z" })).status).toBe(403);
    const group = await groupByCode(id, "1");
    expect((await reader.put(`/engagement-account-groups/${group.id}`, { hidden: true })).status).toBe(403);
    expect((await reader.delete(`/engagement-account-groups/${group.id}`)).status).toBe(403);
  });

  it("reads, creates, updates and deletes over GraphQL", async () => {
    const engagement = await createEngagement();
    const id = (await groupingOf(engagement.id)).id;
    const read = await server.gql(`query($f: JSON) { engagementAccountGroupings(filter: $f) { content { id engagementId groups { code } } } }`, { f: { engagementId: engagement.id } });
    expect(read.body.errors).toBeUndefined();
    const grouping = read.body.data.engagementAccountGroupings.content[0];
    expect(grouping.id).toBe(id);
    expect(grouping.groups.slice(0, 3).map((g: { code: string }) => g.code)).toEqual(["1", "1.1", "1.1.1"]);
    const created = await server.gql(`mutation($input: CreateEngagementAccountGroupInput!) { createEngagementAccountGroup(input: $input) { id code origin hierarchy } }`, {
      input: { engagementAccountGroupingId: id, code: "1.1.9", parentCode: "1.1", description: { en: "Crypto" } },
    });
    expect(created.body.data.createEngagementAccountGroup).toMatchObject({ code: "1.1.9", origin: "ADDED_ON_ENGAGEMENT", hierarchy: ["1", "1.1", "1.1.9"] });
    const groupId = created.body.data.createEngagementAccountGroup.id;
    const updated = await server.gql(`mutation($id: ID!) { updateEngagementAccountGroup(id: $id, input: { hidden: true }) { hidden } }`, { id: groupId });
    expect(updated.body.data.updateEngagementAccountGroup.hidden).toBe(true);
    const hidden = await server.gql(`query($f: JSON) { engagementAccountGroups(filter: $f) { totalElements } }`, { f: { engagementAccountGroupingId: id, hidden: true } });
    expect(hidden.body.data.engagementAccountGroups.totalElements).toBe(1);
    const deleted = await server.gql(`mutation($id: ID!) { deleteEngagementAccountGroup(id: $id) { id } }`, { id: groupId });
    expect(deleted.body.data.deleteEngagementAccountGroup).toEqual({ id: groupId });
  });
});
