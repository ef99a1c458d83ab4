import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { newId } from "../../core/ids.js";

const SYSTEM = "5cc9076887f13cb8a7a19300";

let server: TestServer;
let db: pg.Pool;
beforeAll(async () => {
  server = await startTestServer();
  db = new pg.Pool({ connectionString: server.databaseUrl, max: 2 });
});
afterAll(async () => {
  await db?.end();
  await server?.close();
});

/**
 * A grouping as an import leaves it (DRAFT, one group missing its MAC code). Imports need chunked
 * files; these tests of read/update/publish/delete put the rows in place directly.
 */
async function draftGrouping(): Promise<{ id: string; groups: Record<string, string> }> {
  const id = newId();
  await db.query(
    `INSERT INTO account_grouping (id, name, code_display_name, delimiter, mac, system, archived, publish_status) VALUES ($1, '{"en":"Imported"}', '{"en":"Code"}', '.', false, false, false, 'DRAFT')`,
    [id],
  );
  const groups: Record<string, string> = {};
  const rows: Array<[string, string | null, string, string[], boolean, string | null, unknown[]]> = [
    ["A", null, "Assets", ["A"], false, null, []],
    ["A1", "A", "Cash", ["A", "A1"], true, null, [{ type: "ERROR_LOWEST_LEVEL_WITH_NO_MAC", arguments: ["A1"] }]],
    ["A2", "A", "Receivables", ["A", "A2"], true, "1.1.2.1", []],
  ];
  for (const [index, [code, parent, description, hierarchy, lowest, mac, errors]] of rows.entries()) {
    groups[code] = newId();
    await db.query(
      `INSERT INTO account_group (id, account_grouping_id, code, parent_code, description, hierarchy, lowest_level, mac_code, order_index, errors)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [groups[code], id, code, parent, JSON.stringify({ en: description }), hierarchy, lowest, mac, index, JSON.stringify(errors)],
    );
  }
  return { id, groups };
}

describe("the system account grouping (MAC codes)", () => {
  it("is seeded under its well-known id, published, MAC and system", async () => {
    const response = await server.api.get(`/account-groupings/${SYSTEM}`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: SYSTEM, mac: true, system: true, archived: false, publishStatus: "PUBLISHED", delimiter: ".", name: { en: "Platform account classification (MAC)" }, codeDisplayName: { en: "MAC code" }, version: 0 });
    expect(response.body.publishedDate).toBe("2024-01-01T00:00:00.000Z");
    expect(response.body.createdUserInfo).toEqual({ userName: "system" });
  });

  it("holds a consistent four-level tree: statement classes down to level-4 MAC codes", async () => {
    const all: any[] = [];
    for (let page = 0; ; page++) {
      const response = await server.api.post(`/account-groups/query?page=${page}&size=100&sort=orderIndex,asc`, { accountGroupingId: SYSTEM });
      expect(response.status).toBe(200);
      if (response.body.content.length === 0) break;
      all.push(...response.body.content);
    }
    expect(all.length).toBeGreaterThan(150);
    const byCode = new Map(all.map((g) => [g.code, g]));
    expect(all.filter((g) => !g.parentCode).map((g) => g.description.en)).toEqual(["Assets", "Liabilities", "Equity", "Revenue", "Expenses"]);
    for (const group of all) {
      expect(group.macCode).toBe(group.code);
      expect(group.errors).toEqual([]);
      expect(group.hierarchy[group.hierarchy.length - 1]).toBe(group.code);
      if (group.parentCode) expect(byCode.get(group.parentCode)?.hierarchy).toEqual(group.hierarchy.slice(0, -1));
      const hasChildren = all.some((g) => g.parentCode === group.code);
      expect(group.lowestLevel).toBe(!hasChildren);
      if (group.lowestLevel) expect(group.hierarchy).toHaveLength(4);
    }
    expect(byCode.get("1.1.1.2")).toMatchObject({ description: { en: "Cash at bank" }, accountTags: ["cash"], parentCode: "1.1.1", hierarchy: ["1", "1.1", "1.1.1", "1.1.1.2"] });
  });

  it("answers queries on the group columns", async () => {
    const level4 = await server.api.post("/account-groups/query", { $and: [{ accountGroupingId: SYSTEM }, { lowestLevel: true }, { hierarchy: { $contains: "1.1" } }] });
    expect(level4.body.content.length).toBeGreaterThan(10);
    expect(level4.body.content.every((g: { code: string }) => g.code.startsWith("1.1."))).toBe(true);
    const tagged = await server.api.post("/account-groups/query?size=50", { accountGroupingId: SYSTEM, accountTags: { $contains: "accounts_receivable" } });
    expect(tagged.body.content.map((g: { code: string }) => g.code)).toContain("1.1.2.1");
    const prefix = await server.api.post("/account-groups/query", { code: { $iprefix: "2.2.1" }, accountGroupingId: SYSTEM });
    expect(prefix.body.totalElements).toBe(4);
    const bad = await server.api.post("/account-groups/query", { description: "Cash" });
    expect(bad.status).toBe(400);
    expect(bad.body.problems[0].identifier).toBe("description");
  });

  it("is read-only: update and delete answer 409, its groups cannot be changed", async () => {
    const update = await server.api.put(`/account-groupings/${SYSTEM}`, { archived: true, version: 0 });
    expect(update.status).toBe(409);
    const remove = await server.api.delete(`/account-groupings/${SYSTEM}`);
    expect(remove.status).toBe(409);
    expect(remove.body.problems[0].problemType).toBe("CANNOT_DELETE");
    const group = (await server.api.post("/account-groups/query", { accountGroupingId: SYSTEM, code: "1.1.1.1" })).body.content[0];
    const groupUpdate = await server.api.put(`/account-groups/${group.id}`, { accountTags: ["x"] });
    expect(groupUpdate.status).toBe(409);
    expect((await server.api.get(`/account-groupings/${SYSTEM}`)).body.archived).toBe(false);
  });

  it("is found by the grouping query language", async () => {
    const response = await server.api.post("/account-groupings/query", { system: true, mac: true });
    expect(response.status).toBe(200);
    expect(response.body.content.map((g: { id: string }) => g.id)).toEqual([SYSTEM]);
    expect((await server.api.post("/account-groupings/query", { publishStatus: "DRAFT", id: SYSTEM })).body.totalElements).toBe(0);
    expect((await server.api.post("/account-groupings/query", { name: "x" })).status).toBe(400);
  });
});

describe("updating account groupings", () => {
  it("renames and archives with the latest version, refuses a stale one", async () => {
    const { id } = await draftGrouping();
    const updated = await server.api.put(`/account-groupings/${id}`, { name: { en: "Renamed", fr: "Renommé" }, archived: true, version: 0 });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: { en: "Renamed", fr: "Renommé" }, archived: true, version: 1, publishStatus: "DRAFT" });
    const stale = await server.api.put(`/account-groupings/${id}`, { archived: false, version: 0 });
    expect(stale.status).toBe(409);
    expect((await server.api.get(`/account-groupings/${id}`)).body.archived).toBe(true);
  });

  it("validates {lang} names and unknown keys", async () => {
    const { id } = await draftGrouping();
    const notObject = await server.api.put(`/account-groupings/${id}`, { name: "Plain", version: 0 });
    expect(notObject.status).toBe(400);
    expect(notObject.body.problems[0]).toMatchObject({ identifier: "name", problemType: "INCORRECT_DATA_TYPE" });
    expect((await server.api.put(`/account-groupings/${id}`, { name: {}, version: 0 })).status).toBe(400);
    const blank = await server.api.put(`/account-groupings/${id}`, { name: { en: " " }, version: 0 });
    expect(blank.status).toBe(400);
    expect(blank.body.problems[0].identifier).toBe("name.en");
    expect((await server.api.put(`/account-groupings/${id}`, { mac: true, version: 0 })).status).toBe(200); // read-only key ignored
    expect((await server.api.put(`/account-groupings/${id}`, { colour: "red", version: 1 })).status).toBe(400);
    expect((await server.api.get(`/account-groupings/${id}`)).body.mac).toBe(false);
  });

  it("publishes only when no group carries errors, then marks later changes as unpublished", async () => {
    const { id, groups } = await draftGrouping();
    const refused = await server.api.put(`/account-groupings/${id}`, { publishStatus: "PUBLISHED", version: 0 });
    expect(refused.status).toBe(409);
    expect(refused.body.problems[0]).toMatchObject({ problemType: "ACCOUNT_GROUPING_NODES_CONTAIN_ERRORS", values: ["A1"] });

    const fixed = await server.api.put(`/account-groups/${groups.A1}`, { macCode: "1.1.1.2" });
    expect(fixed.status).toBe(200);
    expect(fixed.body).toMatchObject({ macCode: "1.1.1.2", errors: [], version: 1 });

    const published = await server.api.put(`/account-groupings/${id}`, { publishStatus: "PUBLISHED", version: 0 });
    expect(published.status).toBe(200);
    expect(published.body.publishStatus).toBe("PUBLISHED");
    expect(Date.now() - Date.parse(published.body.publishedDate)).toBeLessThan(60_000);
    expect((await server.api.get(`/account-groups/${groups.A2}`)).body.publishedDate).toBe(published.body.publishedDate);

    expect((await server.api.put(`/account-groups/${groups.A2}`, { accountTags: ["receivables"] })).status).toBe(200);
    expect((await server.api.get(`/account-groupings/${id}`)).body).toMatchObject({ publishStatus: "UNPUBLISHED_CHANGES", version: 2 });
    const draft = await server.api.put(`/account-groupings/${id}`, { publishStatus: "DRAFT", version: 2 });
    expect(draft.status).toBe(400);
    expect(draft.body.problems[0].identifier).toBe("publishStatus");
  });

  it("deletes with 204 (groups go with it), 404 afterwards", async () => {
    const { id, groups } = await draftGrouping();
    expect((await server.api.delete(`/account-groupings/${id}`)).status).toBe(204);
    expect((await server.api.get(`/account-groupings/${id}`)).status).toBe(404);
    expect((await server.api.get(`/account-groups/${groups.A}`)).status).toBe(404);
    expect((await server.api.delete(`/account-groupings/${id}`)).status).toBe(404);
  });

  it("refuses to delete a grouping a library uses (409 ACCOUNT_GROUPING_IN_USE_BY_LIBRARY)", async () => {
    const { id } = await draftGrouping();
    const library = await server.api.post("/libraries", { name: `Uses ${id}`, basedOnLibraryId: "5cc9076887f13cb8a7a1926b", accountGroupingId: id, convertSettings: true });
    expect(library.status).toBe(200);
    const refused = await server.api.delete(`/account-groupings/${id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.problems[0]).toMatchObject({ problemType: "ACCOUNT_GROUPING_IN_USE_BY_LIBRARY", values: [library.body.id] });
    expect((await server.api.delete(`/libraries/${library.body.id}`)).status).toBe(204);
    expect((await server.api.delete(`/account-groupings/${id}`)).status).toBe(204);
  });
});

describe("updating account groups", () => {
  it("takes macCode and accountTags without a version, checks a version when given", async () => {
    const { groups } = await draftGrouping();
    const noVersion = await server.api.put(`/account-groups/${groups.A2}`, { accountTags: ["b", "a", "a"] });
    expect(noVersion.status).toBe(200);
    expect(noVersion.body).toMatchObject({ accountTags: ["b", "a"], version: 1, macCode: "1.1.2.1" });
    expect((await server.api.put(`/account-groups/${groups.A2}`, { accountTags: ["c"], version: 0 })).status).toBe(409);
    expect((await server.api.put(`/account-groups/${groups.A2}`, { accountTags: ["c"], version: 1 })).status).toBe(200);
  });

  it("refuses codes that are not MAC codes, flags MAC codes above level 4, and flags a cleared one", async () => {
    const { groups } = await draftGrouping();
    const unknown = await server.api.put(`/account-groups/${groups.A2}`, { macCode: "9.9.9.9" });
    expect(unknown.status).toBe(400);
    expect(unknown.body.problems[0].identifier).toBe("macCode");
    const level3 = await server.api.put(`/account-groups/${groups.A2}`, { macCode: "1.1.2" });
    expect(level3.status).toBe(200);
    expect(level3.body.errors).toEqual([{ type: "ERROR_LOWEST_LEVEL_WITHOUT_LEVEL_4_MAC", arguments: ["A2", "1.1.2"] }]);
    const cleared = await server.api.put(`/account-groups/${groups.A2}`, { macCode: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.errors).toEqual([{ type: "ERROR_LOWEST_LEVEL_WITH_NO_MAC", arguments: ["A2"] }]);
    expect(cleared.body.macCode).toBeUndefined();
    // Read-only keys from a read body are ignored; unknown ones refused.
    const roundTrip = await server.api.put(`/account-groups/${groups.A2}`, { ...cleared.body, macCode: "1.1.2.1" });
    expect(roundTrip.status).toBe(200);
    expect(roundTrip.body).toMatchObject({ code: "A2", errors: [] });
    expect((await server.api.put(`/account-groups/${groups.A2}`, { parent: "x" })).status).toBe(400);
  });

  it("answers 404 for unknown groups and groupings", async () => {
    const missing = "5cc9076887f13cb8a7a19999";
    expect((await server.api.get(`/account-groups/${missing}`)).status).toBe(404);
    expect((await server.api.put(`/account-groups/${missing}`, { accountTags: [] })).status).toBe(404);
    expect((await server.api.get(`/account-groupings/${missing}`)).status).toBe(404);
    expect((await server.api.put(`/account-groupings/${missing}`, { archived: true, version: 0 })).status).toBe(404);
  });
});

describe("permissions", () => {
  it("needs api.account-groupings.read / write / delete", async () => {
    const { id, groups } = await draftGrouping();
    const created = await server.api.post("/api-tokens", { name: "reader", permissions: ["api.account-groupings.read"] });
    const reader = server.api.withToken(created.body.token);
    expect((await reader.get(`/account-groupings/${id}`)).status).toBe(200);
    expect((await reader.put(`/account-groupings/${id}`, { archived: true, version: 0 })).status).toBe(403);
    expect((await reader.put(`/account-groups/${groups.A}`, { accountTags: [] })).status).toBe(403);
    expect((await reader.delete(`/account-groupings/${id}`)).status).toBe(403);
    const none = await server.api.post("/api-tokens", { name: "none", permissions: ["api.users.read"] });
    expect((await server.api.withToken(none.body.token).post("/account-groups/query", {})).status).toBe(403);
  });
});

describe("account groupings over GraphQL", () => {
  it("reads a grouping with its groups in order and updates a group", async () => {
    const { id, groups } = await draftGrouping();
    const read = await server.gql(`query($id: ID!) { accountGrouping(id: $id) { id publishStatus name groups { code lowestLevel errors { type arguments } } } }`, { id });
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data.accountGrouping).toEqual({
      id,
      publishStatus: "DRAFT",
      name: { en: "Imported" },
      groups: [
        { code: "A", lowestLevel: false, errors: [] },
        { code: "A1", lowestLevel: true, errors: [{ type: "ERROR_LOWEST_LEVEL_WITH_NO_MAC", arguments: ["A1"] }] },
        { code: "A2", lowestLevel: true, errors: [] },
      ],
    });
    const updated = await server.gql(`mutation($id: ID!) { updateAccountGroup(id: $id, input: { macCode: "1.1.1.1" }) { macCode errors { type } } }`, { id: groups.A1 });
    expect(updated.body.data.updateAccountGroup).toEqual({ macCode: "1.1.1.1", errors: [] });
    const page = await server.gql(`query($f: JSON) { accountGroups(filter: $f, sort: ["code,desc"]) { totalElements content { code } } }`, { f: { accountGroupingId: id } });
    expect(page.body.data.accountGroups).toEqual({ totalElements: 3, content: [{ code: "A2" }, { code: "A1" }, { code: "A" }] });
    const published = await server.gql(`mutation($id: ID!) { updateAccountGrouping(id: $id, input: { publishStatus: PUBLISHED, version: 0 }) { publishStatus } }`, { id });
    expect(published.body.data.updateAccountGrouping.publishStatus).toBe("PUBLISHED");
    const deleted = await server.gql(`mutation($id: ID!) { deleteAccountGrouping(id: $id) { id } }`, { id });
    expect(deleted.body.data.deleteAccountGrouping).toEqual({ id });
  });
});
