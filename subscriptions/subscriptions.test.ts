import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startTestServer, type TestServer } from "../test/helpers/server.js";
import { subscribe } from "../test/helpers/ws-client.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());

const QUERY = `subscription($entityType: String, $types: [String!]) {
  entityChanged(entityType: $entityType, types: $types) { id type entityType entityId userId occurredAt payload }
}`;

describe("graphql-ws subscriptions", () => {
  it("pushes entity events after the change commits", async () => {
    const subscription = subscribe<{ entityChanged: any }>(server.url, server.token, QUERY, { entityType: "ENGAGEMENT" });
    await subscription.ready;
    await new Promise((r) => setTimeout(r, 100));
    const organization = (await server.api.post("/organizations", { name: "Live" })).body;
    const engagement = (
      await server.api.post("/engagements", {
        organizationId: organization.id,
        name: "Live engagement",
        auditPeriodEndDate: "2025-12-31",
        accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" },
      })
    ).body;
    const created = await subscription.next((e) => e.entityChanged.entityId === engagement.id);
    expect(created.entityChanged).toMatchObject({ type: "engagement.created", entityType: "ENGAGEMENT", payload: { engagementId: engagement.id } });
    expect(created.entityChanged.userId).toBe(engagement.createdUserInfo.userId);
    await server.api.delete(`/engagements/${engagement.id}`);
    const deleted = await subscription.next((e) => e.entityChanged.type === "engagement.deleted");
    expect(deleted.entityChanged.entityId).toBe(engagement.id);
    // The entityType argument filtered the organization event out.
    expect(subscription.events.every((e) => e.entityChanged.entityType === "ENGAGEMENT")).toBe(true);
    await subscription.close();
  });

  it("does not deliver events of entities the token cannot read", async () => {
    const limited = await server.api.post("/api-tokens", { name: "engagement reader", permissions: ["api.engagements.read"] });
    const subscription = subscribe<{ entityChanged: any }>(server.url, limited.body.token, QUERY);
    await subscription.ready;
    await new Promise((r) => setTimeout(r, 100));
    const organization = (await server.api.post("/organizations", { name: "Hidden from the subscriber" })).body;
    await server.api.post("/engagements", { organizationId: organization.id, name: "Visible", auditPeriodEndDate: "2025-12-31", accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" } });
    await subscription.next((e) => e.entityChanged.type === "engagement.created");
    expect(subscription.events.some((e) => e.entityChanged.entityType === "ORGANIZATION")).toBe(false);
    await subscription.close();
  });

  it("closes an open connection when its token is deleted, and delivers nothing more", async () => {
    const doomed = (await server.api.post("/api-tokens", { name: "deleted while subscribed", permissions: ["api.organizations.read"] })).body;
    const subscription = subscribe<{ entityChanged: any }>(server.url, doomed.token, QUERY, { entityType: "ORGANIZATION" });
    await subscription.ready;
    await new Promise((r) => setTimeout(r, 100));
    const before = (await server.api.post("/organizations", { name: "Seen while the token holds" })).body;
    await subscription.next((e) => e.entityChanged.entityId === before.id);

    expect((await server.api.delete(`/api-tokens/${doomed.id}`)).status).toBe(204);
    await vi.waitFor(() => expect(subscription.errors).toContainEqual(expect.objectContaining({ code: 4401 })), { timeout: 5000 });
    const after = (await server.api.post("/organizations", { name: "Not seen after the deletion" })).body;
    await new Promise((r) => setTimeout(r, 300));
    expect(subscription.events.some((e) => e.entityChanged.entityId === after.id)).toBe(false);
    await subscription.close().catch(() => undefined);
  });

  it("reports a document that does not validate with the same extensions as HTTP, without Yoga's internal http one", async () => {
    const subscription = subscribe(server.url, server.token, `subscription { entityChanged { noSuchField } }`);
    await vi.waitFor(() => expect(subscription.errors.length).toBeGreaterThan(0), { timeout: 5000 });
    const [error] = subscription.errors[0] as Array<{ message: string; extensions: Record<string, unknown> }>;
    expect(error.message).toMatch(/noSuchField/);
    expect(error.extensions).toMatchObject({ code: "VALIDATION", status: 400, graphqlCode: "GRAPHQL_VALIDATION_FAILED" });
    expect(error.extensions.http).toBeUndefined();
    await subscription.close().catch(() => undefined);
  });

  it("refuses a connection without a valid token", async () => {
    const subscription = subscribe(server.url, "fap_wrong", QUERY);
    // graphql-ws closes with 4403 Forbidden when onConnect refuses.
    await vi.waitFor(() => expect(subscription.errors).toContainEqual(expect.objectContaining({ code: 4403 })), { timeout: 5000 });
    expect(subscription.events).toEqual([]);
    await subscription.close().catch(() => undefined);
  });
});
