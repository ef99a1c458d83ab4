import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());

const ID = /^[0-9a-f]{24}$/;

describe("organizations REST", () => {
  it("creates with common fields, ignores read-only ones, and reads back", async () => {
    const created = await server.api.post("/organizations", { name: "Acme Ltd", externalClientCode: "AC-1", id: "ignored", version: 7, creationDate: "2000-01-01T00:00:00Z" });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ name: "Acme Ltd", externalClientCode: "AC-1", version: 0, managerUserIds: [] });
    expect(created.body.id).toMatch(ID);
    expect(created.body.id).not.toBe("ignored");
    expect(created.body.creationDate).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(created.body.creationDate).not.toBe("2000-01-01T00:00:00Z");
    const me = await server.api.get("/users/current");
    expect(created.body.createdUserInfo).toEqual({ userId: me.body.id, userName: "(API) App Admin" });
    expect(created.body.lastModifiedUserInfo).toEqual(created.body.createdUserInfo);

    const read = await server.api.get(`/organizations/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
  });

  it("accepts a read body sent back as a create body (spec 2.1 rule 2)", async () => {
    const first = await server.api.post("/organizations", { name: "Round trip" });
    const copy = await server.api.post("/organizations", first.body);
    expect(copy.status).toBe(200);
    expect(copy.body.id).not.toBe(first.body.id);
    expect(copy.body.name).toBe("Round trip");
  });

  it("rejects a property that is not in the model, naming it", async () => {
    const response = await server.api.post("/organizations", { name: "X", colour: "red" });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ status: 400, origin: "/api/v1/organizations", problemCount: 1 });
    expect(response.body.problems[0]).toMatchObject({ problemType: "ILLEGAL_ARGUMENT", identifier: "colour", severity: "ERROR" });
    expect(typeof response.body.instance).toBe("string");
    expect(response.body.type).toMatch(/^https:\/\//);
  });

  it("rejects blank strings and empty required content", async () => {
    const blank = await server.api.post("/organizations", { name: "   " });
    expect(blank.status).toBe(400);
    expect(blank.body.problems[0].identifier).toBe("name");
    const missing = await server.api.post("/organizations", { externalClientCode: "x" });
    expect(missing.status).toBe(400);
    expect(missing.body.problems[0]).toMatchObject({ identifier: "name" });
    const wrongType = await server.api.post("/organizations", { name: 42 });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.problems[0]).toMatchObject({ identifier: "name", problemType: "INCORRECT_DATA_TYPE" });
  });

  it("rejects malformed JSON with 400", async () => {
    const response = await server.api.request("POST", "/organizations", '{"name": ');
    expect(response.status).toBe(400);
    expect(response.body.problems[0].problemType).toBe("INCORRECT_DATA_TYPE");
  });

  it("updates with the latest version, increments it, and refuses a stale one without overwriting", async () => {
    const created = (await server.api.post("/organizations", { name: "Versioned" })).body;
    const updated = await server.api.put(`/organizations/${created.id}`, { ...created, name: "Versioned 2" });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: "Versioned 2", version: 1 });
    expect(Date.parse(updated.body.lastModifiedDate)).toBeGreaterThanOrEqual(Date.parse(created.lastModifiedDate));

    const stale = await server.api.put(`/organizations/${created.id}`, { ...created, name: "Lost update" });
    expect(stale.status).toBe(409);
    expect(stale.body.problems[0]).toMatchObject({ problemType: "INVALID_STATE", identifier: "version" });
    const after = await server.api.get(`/organizations/${created.id}`);
    expect(after.body).toMatchObject({ name: "Versioned 2", version: 1 });
  });

  it("requires version on update", async () => {
    const created = (await server.api.post("/organizations", { name: "No version" })).body;
    const response = await server.api.put(`/organizations/${created.id}`, { name: "x" });
    expect(response.status).toBe(400);
    expect(response.body.problems[0].identifier).toBe("version");
  });

  it("lets exactly one of two concurrent updates with the same version win", async () => {
    const created = (await server.api.post("/organizations", { name: "Race" })).body;
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => server.api.put(`/organizations/${created.id}`, { name: `Writer ${i}`, version: created.version })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(5);
    const winner = results.find((r) => r.status === 200)!.body;
    const stored = await server.api.get(`/organizations/${created.id}`);
    expect(stored.body).toMatchObject({ name: winner.name, version: 1 });
  });

  it("answers 404 with the error body for unknown ids and paths", async () => {
    const missing = await server.api.get("/organizations/5cc9076887f13cb8a7a19999");
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ status: 404, entityType: "ORGANIZATION", entityId: "5cc9076887f13cb8a7a19999" });
    expect((await server.api.get("/organizations/not-an-id")).status).toBe(404);
    expect((await server.api.put("/organizations/5cc9076887f13cb8a7a19999", { name: "x", version: 0 })).status).toBe(404);
    expect((await server.api.delete("/organizations/5cc9076887f13cb8a7a19999")).status).toBe(404);
    const noRoute = await server.api.get("/no-such-thing");
    expect(noRoute.status).toBe(404);
    expect(noRoute.body.status).toBe(404);
    const wrongMethod = await server.api.request("PATCH", "/organizations/5cc9076887f13cb8a7a19999");
    expect(wrongMethod.status).toBe(405);
  });

  it("deletes with 204 and then 404", async () => {
    const created = (await server.api.post("/organizations", { name: "Short lived" })).body;
    const deleted = await server.api.delete(`/organizations/${created.id}`);
    expect(deleted.status).toBe(204);
    expect((await server.api.get(`/organizations/${created.id}`)).status).toBe(404);
  });

  it("refuses to delete an organization that still has engagements", async () => {
    const organization = (await server.api.post("/organizations", { name: "Busy" })).body;
    const engagement = await server.api.post("/engagements", {
      organizationId: organization.id,
      name: "FY2025",
      auditPeriodEndDate: "2025-12-31",
      accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" },
    });
    expect(engagement.status).toBe(200);
    const refused = await server.api.delete(`/organizations/${organization.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.problems[0].problemType).toBe("CANNOT_DELETE");
    expect((await server.api.get(`/organizations/${organization.id}`)).status).toBe(200);
    expect((await server.api.delete(`/engagements/${engagement.body.id}`)).status).toBe(204);
    expect((await server.api.delete(`/organizations/${organization.id}`)).status).toBe(204);
  });
});

describe("organizations query", () => {
  const names = ["Query Alpha", "Query beta", "Query Gamma", "Query delta", "Query Epsilon"];
  let ids: string[] = [];
  beforeAll(async () => {
    ids = [];
    for (const name of names) ids.push((await server.api.post("/organizations", { name, externalClientCode: name.split(" ")[1].toUpperCase() })).body.id);
  });

  it("returns the documented page envelope", async () => {
    const response = await server.api.post("/organizations/query?page=0&size=2", { name: { $iprefix: "query " } });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      content: expect.any(Array),
      number: 0,
      size: 2,
      numberOfElements: 2,
      totalElements: 5,
      totalPages: 3,
      first: true,
      last: false,
      pageNumber: 0,
      pageSize: 2,
      pageable: { offset: 0, pageNumber: 0, pageSize: 2, paged: true, unpaged: false, sort: { empty: true, sorted: false, unsorted: true } },
      sort: { empty: true, sorted: false, unsorted: true },
    });
    expect(response.body.content.map((o: { id: string }) => o.id)).toEqual(ids.slice(0, 2));
  });

  it("pages until content is empty, past the end included", async () => {
    const seen: string[] = [];
    for (let page = 0; page < 10; page++) {
      const response = await server.api.post(`/organizations/query?page=${page}&size=2`, { name: { $iprefix: "query " } });
      expect(response.status).toBe(200);
      if (response.body.content.length === 0) {
        expect(response.body.last).toBe(true);
        break;
      }
      seen.push(...response.body.content.map((o: { id: string }) => o.id));
    }
    expect(seen).toEqual(ids);
  });

  it("defaults to page 0, size 20 and sorts on request", async () => {
    const response = await server.api.post("/organizations/query?sort=name,desc", { id: { $in: ids } });
    expect(response.body.size).toBe(20);
    expect(response.body.sort.sorted).toBe(true);
    expect(response.body.content.map((o: { name: string }) => o.name)).toEqual([...names].sort((a, b) => b.toLowerCase().localeCompare(a.toLowerCase())));
    const bad = await server.api.post("/organizations/query?sort=managerUserIds,asc", {});
    expect(bad.status).toBe(400);
    expect(bad.body.problems[0].identifier).toBe("sort[0]");
  });

  it("compares strings case-insensitively", async () => {
    const response = await server.api.post("/organizations/query", { name: "QUERY ALPHA" });
    expect(response.body.content.map((o: { id: string }) => o.id)).toEqual([ids[0]]);
  });

  it("rejects an invalid page or size", async () => {
    expect((await server.api.post("/organizations/query?page=-1", {})).status).toBe(400);
    expect((await server.api.post("/organizations/query?size=0", {})).status).toBe(400);
    expect((await server.api.post("/organizations/query?size=abc", {})).status).toBe(400);
  });

  it("rejects a bad filter saying which key and why", async () => {
    const response = await server.api.post("/organizations/query", { name: { $gt: 5 }, colour: "red" });
    expect(response.status).toBe(400);
    const identifiers = response.body.problems.map((p: { identifier: string }) => p.identifier).sort();
    expect(identifiers).toEqual(["colour", "name.$gt"]);
    expect(response.body.problems.find((p: { identifier: string }) => p.identifier === "colour").problemType).toBe("FILTER_CONVERSION_FAILED");
  });
});
