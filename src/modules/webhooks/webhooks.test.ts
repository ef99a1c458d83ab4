import { statSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { clientWithPermissions, createEngagement, waitFor } from "../../../test/helpers/entities.js";
import { receiverEnv, signatureValid, startReceiver, type Receiver } from "../../../test/helpers/webhook-receiver.js";
import { nextDelaySeconds, retryAfter } from "./webhook.delivery.js";
import { webhookEventLogCleanup } from "./webhook.cleanup.js";
import { WEBHOOK_EVENT_TYPES } from "./webhook-events.js";

let server: TestServer;
let receiver: Receiver;
let db: pg.Pool;

beforeAll(async () => {
  receiver = await startReceiver();
  server = await startTestServer({ env: receiverEnv({ WEBHOOK_RETRY_SCHEDULE: "1,1,1", WEBHOOK_TIMEOUT_SECONDS: "2" }), jobSweepSeconds: 1 });
  db = new pg.Pool({ connectionString: server.databaseUrl, max: 2 });
});
afterAll(async () => {
  await db?.end();
  await server?.close();
  await receiver?.close();
});

let paths = 0;
/** A webhook on its own receiver path, for the given events. */
async function webhookFor(events: string[], name = "hook") {
  const path = `/${name}-${++paths}`;
  const created = await server.api.post("/webhooks", { name, url: receiver.url(path), events });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return { path, webhook: created.body };
}

async function logsOf(webhookId: string, expected: number) {
  return waitFor(async () => {
    const page = await server.api.post("/webhook-event-logs/query?sort=attemptStartDate,asc&size=50", { webhookId, status: { $ne: "IN_PROGRESS" } });
    return page.body.content.length >= expected ? page.body.content : undefined;
  }, `${expected} finished event logs of webhook ${webhookId}`);
}

describe("webhooks REST", () => {
  it("registers a webhook with an Ed25519 key pair, reads, queries, updates and deletes it", async () => {
    const me = (await server.api.get("/users/current")).body;
    const created = await server.api.post("/webhooks", {
      name: "Ledger sync",
      url: "https://Hooks.Example.com:443/in?x=1",
      events: ["engagement.created", "INGESTION_COMPLETE", "engagement.created"],
      technicalContactId: me.id,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toMatchObject({
      name: "Ledger sync",
      url: "https://hooks.example.com/in?x=1",
      events: ["engagement.created", "ingestion.complete"],
      status: "ACTIVE",
      technicalContactId: me.id,
      version: 0,
    });
    expect(created.body.publicKey).toMatch(/^-----BEGIN PUBLIC KEY-----\n[A-Za-z0-9+/=]{60}\n-----END PUBLIC KEY-----\n$/);
    expect(created.body.keyGenerationTimestamp).toBe(created.body.creationDate);
    expect(Object.keys(created.body).sort()).toEqual(
      ["createdUserInfo", "creationDate", "events", "id", "keyGenerationTimestamp", "lastModifiedDate", "lastModifiedUserInfo", "name", "publicKey", "status", "technicalContactId", "url", "version"].sort(),
    );
    const read = await server.api.get(`/webhooks/${created.body.id}`);
    expect(read.body).toEqual(created.body);

    const query = await server.api.post("/webhooks/query", { events: { $contains: "ingestion.complete" }, status: "ACTIVE", url: { $iprefix: "https://hooks.example" } });
    expect(query.body.content.map((w: { id: string }) => w.id)).toEqual([created.body.id]);

    // A read body sent back as an update body (read-only keys dropped), with constants as aliases.
    const updated = await server.api.put(`/webhooks/${created.body.id}`, { ...read.body, status: "INACTIVE", events: ["ANALYSIS_CREATED", "INGESTION_ANALYSIS_COMPLETE"] });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body).toMatchObject({ status: "INACTIVE", events: ["analysis.created", "analysis.complete"], version: 1, publicKey: created.body.publicKey });
    const stale = await server.api.put(`/webhooks/${created.body.id}`, { ...read.body, name: "lost" });
    expect(stale.status).toBe(409);

    expect((await server.api.delete(`/webhooks/${created.body.id}`)).status).toBe(204);
    expect((await server.api.get(`/webhooks/${created.body.id}`)).status).toBe(404);
  });

  it("refuses a second webhook for the same URL with 409 NON_UNIQUE_VALUE, whatever its spelling", async () => {
    const first = await server.api.post("/webhooks", { name: "a", url: "https://unique.example.com/hook", events: ["user.invited"] });
    expect(first.status).toBe(200);
    const again = await server.api.post("/webhooks", { ...first.body, name: "b", url: "https://UNIQUE.example.com:443/hook" });
    expect(again.status).toBe(409);
    expect(again.body.problems[0]).toMatchObject({ problemType: "NON_UNIQUE_VALUE", identifier: "url" });
    const other = await server.api.post("/webhooks", { name: "c", url: "https://unique.example.com/other", events: ["user.invited"] });
    const moved = await server.api.put(`/webhooks/${other.body.id}`, { url: "https://unique.example.com/hook", version: 0 });
    expect(moved.status).toBe(409);
    expect(moved.body.problems[0]).toMatchObject({ problemType: "NON_UNIQUE_VALUE", identifier: "url" });
  });

  it("needs HTTPS and a fully qualified host name, never an IP address (400 naming url)", async () => {
    for (const url of [
      "http://hooks.example.com/x",
      "https://127.0.0.1/x",
      "https://2130706433/x",
      "https://0x7f.1/x",
      "https://[::1]/x",
      "https://[fd00:ec2::254]/x",
      "https://169.254.169.254/latest/meta-data",
      "https://localhost/x",
      "https://intranet/x",
      "https://user:secret@hooks.example.com/x",
      "hooks.example.com/x",
      "ftp://hooks.example.com/x",
    ]) {
      const response = await server.api.post("/webhooks", { name: "bad", url, events: ["user.invited"] });
      expect(response.status, url).toBe(400);
      expect(response.body.problems[0], url).toMatchObject({ problemType: "ILLEGAL_ARGUMENT", identifier: "url" });
    }
  });

  it("accepts the spec 6.5 event names and their constants, refuses others and the removed data.added", async () => {
    const all = await server.api.post("/webhooks", { name: "all", url: "https://all.example.com/x", events: [...WEBHOOK_EVENT_TYPES] });
    expect(all.status).toBe(200);
    expect(all.body.events).toEqual([...WEBHOOK_EVENT_TYPES]);
    const unknown = await server.api.post("/webhooks", { name: "x", url: "https://x.example.com/x", events: ["user.invited", "organization.created"] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.problems[0]).toMatchObject({ identifier: "events[1]", values: ["organization.created"] });
    const removed = await server.api.post("/webhooks", { name: "x", url: "https://x.example.com/x", events: ["data.added"] });
    expect(removed.status).toBe(400);
    expect(removed.body.problems[0].reason).toMatch(/removed in v1\.8\.6.*connection\.data\.complete/);
    const empty = await server.api.post("/webhooks", { name: "x", url: "https://x.example.com/x", events: [] });
    expect(empty.status).toBe(400);
    expect(empty.body.problems[0].identifier).toBe("events");
    const badStatus = await server.api.post("/webhooks", { name: "x", url: "https://x.example.com/x", events: ["user.invited"], status: "EXPIRED" });
    expect(badStatus.status).toBe(400);
    const contact = await server.api.post("/webhooks", { name: "x", url: "https://x.example.com/x", events: ["user.invited"], technicalContactId: "5cc9076887f13cb8a7a19999" });
    expect(contact.status).toBe(400);
    expect(contact.body.problems[0].identifier).toBe("technicalContactId");
  });

  it("requires api.webhooks.read for reads and logs, .write to register, .delete to delete", async () => {
    const reader = await clientWithPermissions(server.api, ["api.webhooks.read"], "webhook reader");
    const nobody = await clientWithPermissions(server.api, ["api.organizations.read"], "no webhooks");
    expect((await nobody.post("/webhooks/query", {})).status).toBe(403);
    expect((await nobody.post("/webhook-event-logs/query", {})).status).toBe(403);
    expect((await reader.post("/webhooks/query", {})).status).toBe(200);
    expect((await reader.post("/webhook-event-logs/query", {})).status).toBe(200);
    const refused = await reader.post("/webhooks", { name: "x", url: "https://perm.example.com/x", events: ["user.invited"] });
    expect(refused.status).toBe(403);
    const created = await server.api.post("/webhooks", { name: "x", url: "https://perm.example.com/x", events: ["user.invited"] });
    expect((await reader.delete(`/webhooks/${created.body.id}`)).status).toBe(403);
  });

  it("works through GraphQL too: createWebhook, webhooks(filter), webhookEventLogs", async () => {
    const created = await server.gql(`mutation($i: CreateWebhookInput!) { createWebhook(input: $i) { id url events status publicKey keyGenerationTimestamp } }`, {
      i: { name: "gql", url: "https://gql.example.com/hook", events: ["USER_DELETED", "user.status"] },
    });
    expect(created.body.errors).toBeUndefined();
    expect(created.body.data.createWebhook).toMatchObject({ url: "https://gql.example.com/hook", events: ["user.deleted", "user.status"], status: "ACTIVE" });
    const found = await server.gql(`query($f: JSON) { webhooks(filter: $f) { totalElements content { id } } webhookEventLogs(filter: {}) { totalElements } }`, {
      f: { events: { $contains: "user.deleted" }, url: { $iprefix: "https://gql." } },
    });
    expect(found.body.data.webhooks).toEqual({ totalElements: 1, content: [{ id: created.body.data.createWebhook.id }] });
    const refused = await server.gql(`mutation { createWebhook(input: { name: "ip", url: "https://10.0.0.1/x", events: ["user.deleted"] }) { id } }`);
    expect(refused.body.errors[0].extensions).toMatchObject({ code: "VALIDATION", status: 400 });
  });

  it("stores the private key encrypted under DATA_DIR/webhook-key (mode 0600), never the key itself", async () => {
    const { webhook } = await webhookFor(["user.invited"], "at-rest");
    const { rows } = await db.query("SELECT public_key, private_key_encrypted FROM webhook WHERE id = $1", [webhook.id]);
    expect(rows[0].public_key).toBe(webhook.publicKey);
    expect(rows[0].private_key_encrypted).toMatch(/^v1\.[A-Za-z0-9+/=]+$/);
    expect(rows[0].private_key_encrypted).not.toMatch(/PRIVATE KEY/);
    expect(statSync(join(server.dataDir, "webhook-key")).mode & 0o777).toBe(0o600);
  });
});

describe("delivery", () => {
  it("POSTs a signed Standard Webhooks request that node:crypto verifies, and logs the attempt", async () => {
    const { path, webhook } = await webhookFor(["engagement.created"], "signed");
    const engagement = await createEngagement(server.api, "Signed delivery");
    const request = await waitFor(async () => receiver.at(path)[0], "the delivery");
    expect(request.headers["content-type"]).toBe("application/json");
    expect(signatureValid(webhook.publicKey, request)).toBe(true);
    expect(signatureValid(webhook.publicKey, { ...request, body: request.body.replace("engagement", "engagemenT") })).toBe(false);
    expect(request.headers["webhook-signature"]).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);
    const timestamp = Number(request.headers["webhook-timestamp"]);
    expect(Math.abs(timestamp - Date.now() / 1000)).toBeLessThan(30);
    const payload = JSON.parse(request.body);
    const me = (await server.api.get("/users/current")).body;
    expect(Object.keys(payload)).toEqual(["type", "eventId", "tenantId", "senderId", "userId", "timestamp", "data"]);
    expect(payload).toMatchObject({ type: "engagement.created", tenantId: "default", senderId: webhook.id, userId: me.id, data: { engagementId: engagement.id, eventId: payload.eventId } });
    expect(payload.eventId).toMatch(/^[0-9a-f]{24}$/);
    expect(request.headers["webhook-id"]).toBe(payload.eventId);
    expect(payload.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const [log] = await logsOf(webhook.id, 1);
    expect(log).toMatchObject({
      webhookId: webhook.id,
      url: webhook.url,
      eventType: "engagement.created",
      eventId: payload.eventId,
      status: "COMPLETED",
      requestId: payload.eventId,
      requestBody: request.body,
      responseStatusCode: 200,
      responseBody: "ok",
      retryCount: 0,
    });
    expect(log.requestHeaders).toMatchObject({ "webhook-id": [payload.eventId], "webhook-timestamp": [String(timestamp)], "webhook-signature": [request.headers["webhook-signature"]] });
    expect(log.responseHeaders["content-type"]).toEqual(["text/plain"]);
    expect(log.responseTimeSec).toBeGreaterThan(0);
    expect(log.responseTimeSec).toBeLessThan(5);
    expect((await server.api.get(`/webhook-event-logs/${log.id}`)).body).toEqual(log);
    expect((await server.api.get("/webhook-event-logs/5cc9076887f13cb8a7a19999")).status).toBe(404);
  });

  it("a receiver failing twice then succeeding: three logs, one delivery, the same signed body each time", async () => {
    const { path, webhook } = await webhookFor(["engagement.created"], "flaky");
    receiver.reply(path, (_request, count) => (count < 2 ? { status: 500, body: `failure ${count + 1}` } : { status: 204, body: "" }));
    // The Prometheus counter of delivery attempts (GET /metrics) moves with them.
    const attempts = async (status: string) =>
      (await server.running.app.metrics.webhookDeliveries.get()).values.find((v) => v.labels.event === "engagement.created" && v.labels.status === status)?.value ?? 0;
    const [failedBefore, completedBefore] = [await attempts("FAILED"), await attempts("COMPLETED")];
    await createEngagement(server.api, "Flaky receiver");
    const logs = await logsOf(webhook.id, 3);
    expect(logs.map((l: { status: string }) => l.status)).toEqual(["FAILED", "FAILED", "COMPLETED"]);
    expect(logs.map((l: { retryCount: number }) => l.retryCount)).toEqual([0, 1, 2]);
    expect(logs.map((l: { responseStatusCode: number }) => l.responseStatusCode)).toEqual([500, 500, 204]);
    expect(logs[0].failureReason).toMatch(/HTTP 500/);
    expect(logs[0].responseBody).toBe("failure 1");
    expect(Date.parse(logs[0].nextAttemptDate)).toBeGreaterThan(Date.parse(logs[0].attemptStartDate));
    expect(logs[2].nextAttemptDate).toBeUndefined();
    await new Promise((r) => setTimeout(r, 1500));
    const requests = receiver.at(path);
    expect(requests).toHaveLength(3);
    expect(requests.filter((r) => r.status >= 200 && r.status < 300)).toHaveLength(1);
    expect(new Set(requests.map((r) => r.headers["webhook-id"])).size).toBe(1);
    expect(new Set(requests.map((r) => r.body)).size).toBe(1);
    expect(requests.every((r) => signatureValid(webhook.publicKey, r))).toBe(true);
    const { rows } = await db.query("SELECT status FROM webhook_delivery WHERE webhook_id = $1", [webhook.id]);
    expect(rows).toEqual([{ status: "COMPLETED" }]);
    expect((await attempts("FAILED")) - failedBefore).toBeGreaterThanOrEqual(2);
    expect((await attempts("COMPLETED")) - completedBefore).toBeGreaterThanOrEqual(1);
  });

  it("waits as long as Retry-After asks when that is longer than the schedule", async () => {
    const { path, webhook } = await webhookFor(["engagement.created"], "retry-after");
    receiver.reply(path, (_request, count) => (count === 0 ? { status: 503, headers: { "retry-after": "3" } } : {}));
    await createEngagement(server.api, "Retry after");
    const logs = await logsOf(webhook.id, 2);
    expect(logs.map((l: { status: string }) => l.status)).toEqual(["FAILED", "COMPLETED"]);
    const [first, second] = receiver.at(path);
    expect(second.at - first.at).toBeGreaterThanOrEqual(2900);
  });

  it("a 410 Gone disables the webhook: no retry, no later delivery", async () => {
    const { path, webhook } = await webhookFor(["engagement.created"], "gone");
    receiver.reply(path, () => ({ status: 410 }));
    await createEngagement(server.api, "Gone 1");
    const [log] = await logsOf(webhook.id, 1);
    expect(log).toMatchObject({ status: "FAILED_PERMANENTLY", responseStatusCode: 410 });
    expect(log.failureReason).toMatch(/410 Gone.*INACTIVE/);
    const after = await waitFor(async () => {
      const read = await server.api.get(`/webhooks/${webhook.id}`);
      return read.body.status === "INACTIVE" ? read.body : undefined;
    }, "the webhook to become INACTIVE");
    expect(after.version).toBe(1);
    await createEngagement(server.api, "Gone 2");
    await new Promise((r) => setTimeout(r, 2500));
    expect(receiver.at(path)).toHaveLength(1);
  });

  it("retries a receiver that does not answer within the timeout, and reads at most 64 KiB of a response", async () => {
    const { path, webhook } = await webhookFor(["engagement.created"], "slow");
    receiver.reply(path, (_request, count) => (count === 0 ? { hang: true } : { body: "x".repeat(300_000) }));
    await createEngagement(server.api, "Slow receiver");
    const logs = await logsOf(webhook.id, 2);
    expect(logs[0]).toMatchObject({ status: "FAILED" });
    expect(logs[0].failureReason).toMatch(/no complete response within 2 s/);
    expect(logs[0].responseStatusCode).toBeUndefined();
    expect(logs[1]).toMatchObject({ status: "COMPLETED", responseStatusCode: 200 });
    expect(logs[1].responseBody.startsWith("x".repeat(65536))).toBe(true);
    expect(logs[1].responseBody.length).toBeLessThan(66_000);
    expect(logs[1].responseBody).toMatch(/\[truncated after 65536 bytes\]$/);
  });

  it("gives up after the configured attempts with FAILED_PERMANENTLY", async () => {
    const { path, webhook } = await webhookFor(["engagement.created"], "down");
    receiver.reply(path, () => ({ status: 502 }));
    await createEngagement(server.api, "Receiver down");
    const logs = await logsOf(webhook.id, 4);
    expect(logs.map((l: { status: string }) => l.status)).toEqual(["FAILED", "FAILED", "FAILED", "FAILED_PERMANENTLY"]);
    expect(logs[3].failureReason).toMatch(/last of 4 attempts/);
    const { rows } = await db.query("SELECT status FROM webhook_delivery WHERE webhook_id = $1", [webhook.id]);
    expect(rows).toEqual([{ status: "FAILED" }]);
  });

  it("does not send to an INACTIVE webhook", async () => {
    const { path, webhook } = await webhookFor(["engagement.created"], "inactive");
    await server.api.put(`/webhooks/${webhook.id}`, { status: "INACTIVE", version: 0 });
    await createEngagement(server.api, "Nobody listens");
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.at(path)).toHaveLength(0);
  });
});

describe("outbound safety (SSRF)", () => {
  async function refusedLog(host: string) {
    const path = `/ssrf-${++paths}`;
    const url = receiver.url(path, host);
    const created = await server.api.post("/webhooks", { name: `ssrf ${host}`, url, events: ["engagement.created"] });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    await createEngagement(server.api, `SSRF ${host}`);
    const [log] = await logsOf(created.body.id, 1);
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.at(path)).toHaveLength(0);
    return log;
  }

  it("refuses a name resolving to 127.0.0.1 or ::1 (loopback), saying why, without retrying", async () => {
    const log = await refusedLog("evil.test");
    expect(log).toMatchObject({ status: "FAILED_PERMANENTLY", retryCount: 0 });
    expect(log.failureReason).toMatch(/evil\.test resolves to 127\.0\.0\.1, a loopback address/);
    expect(log.responseStatusCode).toBeUndefined();
    expect((await refusedLog("v6.test")).failureReason).toMatch(/resolves to ::1, a loopback address/);
  });

  it("refuses the cloud metadata address 169.254.169.254 and private networks", async () => {
    expect((await refusedLog("metadata.test")).failureReason).toMatch(/169\.254\.169\.254, a cloud metadata address/);
    expect((await refusedLog("private.test")).failureReason).toMatch(/10\.1\.2\.3, a private network address/);
  });

  it("does not follow a redirect", async () => {
    const { path, webhook } = await webhookFor(["engagement.created"], "redirect");
    const stolen = `/stolen-${paths}`;
    receiver.reply(path, () => ({ status: 302, headers: { location: `https://127.0.0.1:${receiver.port}${stolen}` } }));
    await createEngagement(server.api, "Redirected");
    const [log] = await logsOf(webhook.id, 1);
    expect(log).toMatchObject({ status: "FAILED", responseStatusCode: 302 });
    expect(log.failureReason).toMatch(/redirects are not followed \(Location: https:\/\/127\.0\.0\.1:\d+\/stolen-\d+\)/);
    expect(receiver.at(stolen)).toHaveLength(0);
  });

  it("computes retry waits from the schedule with ±10 % jitter, Retry-After winning when longer", () => {
    const schedule = [5, 300, 1800];
    expect(nextDelaySeconds(schedule, 0, undefined, () => 0)).toBe(4.5);
    expect(nextDelaySeconds(schedule, 0, undefined, () => 1)).toBe(5.5);
    expect(nextDelaySeconds(schedule, 1, undefined, () => 0.5)).toBe(300);
    expect(nextDelaySeconds(schedule, 9, undefined, () => 0.5)).toBe(1800);
    expect(nextDelaySeconds(schedule, 0, 120, () => 0.5)).toBe(120);
    expect(nextDelaySeconds(schedule, 1, 120, () => 0.5)).toBe(300);
    expect(nextDelaySeconds(schedule, 0, 10 ** 9, () => 0.5)).toBe(86400);
    expect(retryAfter("7")).toBe(7);
    expect(retryAfter(new Date(Date.UTC(2030, 0, 1, 0, 1)).toUTCString(), Date.UTC(2030, 0, 1))).toBe(60);
    expect(retryAfter("soon")).toBeUndefined();
  });
});

describe("event log retention", () => {
  it("the scheduled task deletes logs older than WEBHOOK_EVENT_LOG_RETENTION_DAYS and keeps newer ones", async () => {
    const { webhook } = await webhookFor(["engagement.created"], "retention");
    await createEngagement(server.api, "Retention");
    const [recent] = await logsOf(webhook.id, 1);
    await db.query(
      `INSERT INTO webhook_event_log (id, webhook_id, delivery_id, url, event_type, event_id, status, request_id, request_body, retry_count, attempt_start_date)
       VALUES ('00000000000000000000000a', $1, 'x', 'https://old.example.com', 'engagement.created', 'e', 'COMPLETED', 'e', '{}', 0, now() - interval '31 days')`,
      [webhook.id],
    );
    await webhookEventLogCleanup.run(server.running.app);
    expect((await server.api.get("/webhook-event-logs/00000000000000000000000a")).status).toBe(404);
    expect((await server.api.get(`/webhook-event-logs/${recent.id}`)).status).toBe(200);
  });
});
