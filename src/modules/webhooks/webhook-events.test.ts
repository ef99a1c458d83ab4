import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { awaitJob, waitFor } from "../../../test/helpers/entities.js";
import { analysisFixture, ingest } from "../../../test/helpers/analysis-sources.js";
import { SIGNED_AMOUNT_LEDGER } from "../../../test/ingestion/fixtures.js";
import { receiverEnv, signatureValid, startReceiver, type ReceivedRequest, type Receiver } from "../../../test/helpers/webhook-receiver.js";
import { inTransaction } from "../../events/outbox.js";
import { newId } from "../../core/ids.js";
import { WEBHOOK_EVENT_TYPES } from "./webhook-events.js";
import { FakeWarehouse, ledgerTable } from "../../../test/helpers/fake-warehouse.js";

// Issue 18 point 4: every spec 6.5 event the platform emits today, produced by its own trigger
// through the public API, reaches a signed HTTPS receiver with the wire reference's data keys.
let server: TestServer;
let receiver: Receiver;
let publicKey: string;
let warehouse: FakeWarehouse;
const PATH = "/every-event";

beforeAll(async () => {
  receiver = await startReceiver();
  warehouse = await new FakeWarehouse().start();
  warehouse.tables.set("main.finance.gl_lines", ledgerTable(20));
  server = await startTestServer({ env: receiverEnv(), warehouseCaFile: warehouse.caFile });
  const webhook = await server.api.post("/webhooks", { name: "everything", url: receiver.url(PATH), events: [...WEBHOOK_EVENT_TYPES] });
  expect(webhook.status, JSON.stringify(webhook.body)).toBe(200);
  publicKey = webhook.body.publicKey;
});
afterAll(async () => {
  await server?.close();
  await receiver?.close();
  await warehouse?.close();
});

interface Payload {
  type: string;
  eventId: string;
  tenantId: string;
  senderId: string;
  userId: string | null;
  timestamp: string;
  data: Record<string, unknown>;
}

/** The delivered payloads of one type whose data match `match`, once `count` of them arrived. */
async function delivered(type: string, match: Record<string, unknown> = {}, count = 1): Promise<Payload[]> {
  return waitFor(async () => {
    const found = receiver
      .at(PATH)
      .map((request: ReceivedRequest) => ({ request, payload: JSON.parse(request.body) as Payload }))
      .filter(({ payload }) => payload.type === type && Object.entries(match).every(([key, value]) => payload.data[key] === value));
    if (found.length < count) return undefined;
    for (const { request, payload } of found) {
      expect(signatureValid(publicKey, request)).toBe(true);
      expect(payload.data.eventId).toBe(payload.eventId);
      expect(request.headers["webhook-id"]).toBe(payload.eventId);
    }
    return found.map((f) => f.payload);
  }, `${count} ${type} deliveries matching ${JSON.stringify(match)}`);
}

/** The wire reference's data keys (plus the deprecated eventId) are all present. */
function expectKeys(payload: Payload, keys: string[]) {
  for (const key of [...keys, "eventId"]) expect(payload.data, `${payload.type} data.${key}`).toHaveProperty(key);
}

describe("every spec 6.5 event, from its trigger to a signed HTTPS receiver", () => {
  it("engagement.created / .updated / .deleted", async () => {
    const organization = await server.api.post("/organizations", { name: "Events org" });
    const engagement = await server.api.post("/engagements", {
      organizationId: organization.body.id,
      name: "Events",
      accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" },
    });
    const id = engagement.body.id;
    const updated = await server.api.put(`/engagements/${id}`, { ...engagement.body, name: "Events renamed" });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect((await server.api.delete(`/engagements/${id}`)).status).toBe(204);
    for (const type of ["engagement.created", "engagement.updated", "engagement.deleted"]) {
      const [payload] = await delivered(type, { engagementId: id });
      expectKeys(payload, ["engagementId"]);
      expect(payload.data.organizationId).toBe(organization.body.id);
    }
  });

  it("analysis.created / .updated / .archived / .unarchived / .deleted", async () => {
    const fixture = await analysisFixture(server, "Analysis events");
    const id = fixture.analysisId;
    const read = async () => (await server.api.get(`/analyses/${id}`)).body;
    expect((await server.api.put(`/analyses/${id}`, { name: "Renamed", version: (await read()).version })).status).toBe(200);
    expect((await server.api.put(`/analyses/${id}`, { archived: true, version: (await read()).version })).status).toBe(200);
    expect((await server.api.put(`/analyses/${id}`, { archived: false, version: (await read()).version })).status).toBe(200);
    expect((await server.api.delete(`/analyses/${id}`)).status).toBe(204);
    for (const type of ["analysis.created", "analysis.updated", "analysis.archived", "analysis.unarchived", "analysis.deleted"]) {
      const [payload] = await delivered(type, { analysisId: id });
      expectKeys(payload, ["analysisId", "engagementId"]);
      expect(payload.data.engagementId).toBe(fixture.engagementId);
    }
  });

  it("ingestion.complete and unmapped.accounts after a ledger with an unknown account; ingestion.failed for an unreadable file", async () => {
    const fixture = await analysisFixture(server, "Ingestion events");
    const ledger = SIGNED_AMOUNT_LEDGER + "04/05/2023,103,9990-X,Suspense zq unclassified,$10.00,Suspense\n04/05/2023,103,1000,Cash,($10.00),Suspense\n";
    const { source } = await ingest(server, fixture, ledger, { targetWorkflowState: "COMPLETED", proposedAmbiguousColumnResolutions: [{ position: 0, selectedFormat: "MM/dd/yyyy" }] });
    expect(source.workflowState).toBe("COMPLETED");
    const me = (await server.api.get("/users/current")).body;
    const [complete] = await delivered("ingestion.complete", { analysisSourceId: source.id });
    expectKeys(complete, ["analysisId", "analysisSourceId", "engagementId"]);
    expect(complete.data).toMatchObject({ analysisId: fixture.analysisId, engagementId: fixture.engagementId });
    const [unmapped] = await delivered("unmapped.accounts", { engagementId: fixture.engagementId });
    expectKeys(unmapped, ["engagementId", "targetUserId"]);
    expect(unmapped.data.targetUserId).toBe(me.id);

    const zip = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(200, 7)]);
    const failed = await ingest(server, fixture, zip, {}, "ERROR");
    const [payload] = await delivered("ingestion.failed", { analysisSourceId: failed.source.id });
    expectKeys(payload, ["analysisId", "analysisSourceId", "engagementId"]);
  });

  it("export.ready when a file-result export finishes", async () => {
    const fixture = await analysisFixture(server, "Export events");
    const started = await server.api.post("/account-mappings/export", { engagementId: fixture.engagementId });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const job = await awaitJob(server.api, started.body.id);
    expect(job.status).toBe("COMPLETE");
    const [payload] = await delivered("export.ready", { fileExportId: job.entityId });
    expectKeys(payload, ["fileExportId"]);
  });

  it("user.invited, user.role, user.status, user.deleted", async () => {
    const invited = await server.api.post("/users", { email: `events-${newId()}@example.com`, role: "ROLE_USER" });
    expect(invited.status, JSON.stringify(invited.body)).toBe(200);
    const id = invited.body.id;
    const role = await server.api.put(`/users/${id}`, { role: "ROLE_USER_ADMIN", enabled: true, version: invited.body.version });
    expect(role.status, JSON.stringify(role.body)).toBe(200);
    const disabled = await server.api.put(`/users/${id}`, { role: "ROLE_USER_ADMIN", enabled: false, version: role.body.version });
    expect(disabled.status, JSON.stringify(disabled.body)).toBe(200);
    expect((await server.api.delete(`/users/${id}`)).status).toBe(204);
    const [inviteEvent] = await delivered("user.invited", { targetUserId: id });
    expectKeys(inviteEvent, ["targetUserId", "role"]);
    expect(inviteEvent.data.role).toBe("ROLE_USER");
    const [roleEvent] = await delivered("user.role", { targetUserId: id });
    expect(roleEvent.data.role).toBe("ROLE_USER_ADMIN");
    const [statusEvent] = await delivered("user.status", { targetUserId: id });
    expectKeys(statusEvent, ["targetUserId", "status"]);
    expect(statusEvent.data.status).toBe("DISABLED");
    const [deleted] = await delivered("user.deleted", { targetUserId: id });
    expectKeys(deleted, ["targetUserId"]);
  });

  it("analysis.complete when a run of the analysis engine finishes", async () => {
    const fixture = await analysisFixture(server, "Run events");
    const { source } = await ingest(server, fixture, SIGNED_AMOUNT_LEDGER, { targetWorkflowState: "COMPLETED", proposedAmbiguousColumnResolutions: [{ position: 0, selectedFormat: "MM/dd/yyyy" }] });
    expect(source.workflowState).toBe("COMPLETED");
    expect((await server.api.post("/account-mappings/verify", { engagementId: fixture.engagementId })).status).toBe(200);
    const started = await server.api.post(`/analyses/${fixture.analysisId}/run`, {});
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const job = await awaitJob(server.api, started.body.id);
    expect(job.status, job.error).toBe("COMPLETE");
    const [payload] = await delivered("analysis.complete", { analysisResultId: started.body.entityId });
    expectKeys(payload, ["analysisId", "analysisResultId", "engagementId"]);
    expect(payload.data).toMatchObject({ analysisId: fixture.analysisId, engagementId: fixture.engagementId });
  });

  it("analysis.failed in the shape the engine writes it when a run fails (generic delivery of any listed type)", async () => {
    // A failing run needs a broken engine; the engine's own tests cover that it writes this event.
    const fixture = await analysisFixture(server, "Failed run events");
    const resultId = newId();
    const me = (await server.api.get("/users/current")).body;
    await inTransaction(server.running.app, async (_tx, emit) => {
      emit({ type: "analysis.failed", entityType: "ANALYSIS", entityId: fixture.analysisId, userId: me.id, payload: { analysisId: fixture.analysisId, analysisResultId: resultId, engagementId: fixture.engagementId } });
    });
    const [payload] = await delivered("analysis.failed", { analysisResultId: resultId });
    expectKeys(payload, ["analysisId", "analysisResultId", "engagementId"]);
    expect(payload.userId).toBe(me.id);
  });

  it("connection.created, connection.test.complete (a warehouse that cannot be reached), connection.data.complete and connection.deleted", async () => {
    const created = await server.api.post("/connections", { name: `Warehouse ${newId()}`, type: "WAREHOUSE" });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const auth = await server.api.post("/warehouse-auth", { connectionId: created.body.id, authType: "PAT", host: "localhost", port: 1, httpPath: "/sql/1.0/warehouses/abc", accessToken: "dapi-unreachable" });
    expect(auth.status, JSON.stringify(auth.body)).toBe(200);
    const tested = await server.api.post(`/connections/${created.body.id}/test`, {});
    expect(tested.status, JSON.stringify(tested.body)).toBe(200);
    const [testEvent] = await delivered("connection.test.complete", { connectionId: created.body.id });
    expectKeys(testEvent, ["connectionId", "success"]);
    expect(testEvent.data.success).toBe(false);

    // connection.data.complete: a table read from a (fake, HTTPS) warehouse into a data table.
    const fixture = await analysisFixture(server, "Connection data events");
    const reachable = await server.api.post("/connections", { name: `Warehouse ${newId()}`, type: "WAREHOUSE" });
    const reachableAuth = await server.api.post("/warehouse-auth", { connectionId: reachable.body.id, authType: "PAT", host: "localhost", port: warehouse.port, httpPath: `/sql/1.0/warehouses/${warehouse.warehouseId}`, accessToken: warehouse.accessToken });
    expect(reachableAuth.status, JSON.stringify(reachableAuth.body)).toBe(200);
    expect((await server.api.post(`/connections/${reachable.body.id}/tables`, {})).status).toBe(200);
    const started = await server.api.post(`/connections/${reachable.body.id}/get-data`, { tableId: "main.finance.gl_lines", analysisId: fixture.analysisId });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect((await awaitJob(server.api, started.body.id)).status).toBe("COMPLETE");
    const [dataEvent] = await delivered("connection.data.complete", { connectionId: reachable.body.id });
    expectKeys(dataEvent, ["connectionId"]);
    expect((await server.api.delete(`/connections/${created.body.id}`)).status).toBe(204);
    const [createdEvent] = await delivered("connection.created", { connectionId: created.body.id });
    expectKeys(createdEvent, ["connectionId"]);
    await delivered("connection.deleted", { connectionId: created.body.id });
  });

  it("never sends an event type that is not subscribed or not a webhook event type", async () => {
    const types = new Set(receiver.at(PATH).map((r) => (JSON.parse(r.body) as Payload).type));
    for (const type of types) expect(WEBHOOK_EVENT_TYPES).toContain(type);
    expect(types.has("data.added")).toBe(false);
  });
});
