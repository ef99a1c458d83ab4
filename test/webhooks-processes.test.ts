import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase } from "./helpers/database.js";
import { startChildServer, type ChildServer } from "./helpers/child-server.js";
import { RestClient } from "./helpers/client.js";
import { createEngagement, waitFor } from "./helpers/entities.js";
import { analysisFixture, ingest } from "./helpers/analysis-sources.js";
import { subscribe } from "./helpers/ws-client.js";
import { receiverEnv, signatureValid, startReceiver, type Receiver } from "./helpers/webhook-receiver.js";
import { SIGNED_AMOUNT_LEDGER } from "./ingestion/fixtures.js";
import { describeWithRedis, testRedisUrl } from "./helpers/redis-tests.js";
import type { TestServer } from "./helpers/server.js";

// Issue 18 point 7: server processes sharing one PostgreSQL and one Redis deliver each event once,
// carry subscriptions across processes, and a kill -9 between (or during) attempts loses nothing
// and delivers nothing twice.
let receiver: Receiver;
let env: Record<string, string>;
let first: ChildServer;
let second: ChildServer;
// One DATA_DIR, as a deployment's processes share file storage (an upload on one, a job on the other).
const dataDir = mkdtempSync(join(tmpdir(), "fap-hooks-"));
const token = `fap_hooks_${randomBytes(12).toString("hex")}`;

beforeAll(async () => {
  if (!testRedisUrl()) return;
  receiver = await startReceiver();
  const { url } = await createTestDatabase();
  env = {
    DATABASE_URL: url,
    REDIS_URL: testRedisUrl(),
    BOOTSTRAP_TOKEN: token,
    TENANT_ID: `hooks${randomBytes(3).toString("hex")}`,
    // Set explicitly (as a deployment whose processes do not share DATA_DIR must).
    SECRETS_KEY: randomBytes(32).toString("base64"),
    JOB_SWEEP_SECONDS: "1",
    JOB_LEASE_SECONDS: "3",
    ...receiverEnv({ WEBHOOK_RETRY_SCHEDULE: "2", WEBHOOK_TIMEOUT_SECONDS: "30" }),
  };
  [first, second] = await Promise.all([startChildServer(env, { dataDir }), startChildServer(env, { dataDir })]);
}, 180_000);
afterAll(async () => {
  await Promise.all([first?.stop("SIGKILL"), second?.stop("SIGKILL")]);
  await receiver?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const api = (server: ChildServer) => new RestClient(server.url, token);
/** What the analysis-source helpers need of a server. */
const asTestServer = (server: ChildServer) => ({ api: api(server), url: server.url, token }) as unknown as TestServer;

async function register(server: ChildServer, path: string, events: string[]) {
  const created = await api(server).post("/webhooks", { name: path, url: receiver.url(path), events });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return created.body as { id: string; publicKey: string };
}

async function logs(server: ChildServer, webhookId: string, count: number) {
  return waitFor(async () => {
    const page = await api(server).post("/webhook-event-logs/query?sort=attemptStartDate,asc", { webhookId, status: { $ne: "IN_PROGRESS" } });
    return page.body.content.length >= count ? page.body.content : undefined;
  }, `${count} logs of ${webhookId}`, 60_000);
}

describeWithRedis("webhooks across processes", () => {
  it("two processes on one Redis deliver each event exactly once", async () => {
    const webhook = await register(first, "/shared", ["engagement.created"]);
    const servers = [first, second];
    // One after the other, alternating: both relays and both job workers take part.
    const engagements: Array<{ id: string }> = [];
    for (let i = 0; i < 12; i++) engagements.push(await createEngagement(api(servers[i % 2]), `Shared ${i}`));
    await waitFor(async () => (new Set(receiver.at("/shared").map((r) => r.headers["webhook-id"])).size >= engagements.length ? true : undefined), "12 deliveries", 60_000);
    await sleep(3000);
    const requests = receiver.at("/shared");
    expect(requests).toHaveLength(engagements.length);
    const ids = requests.map((r) => JSON.parse(r.body).data.engagementId).sort();
    expect(ids).toEqual(engagements.map((e) => e.id).sort());
    expect(new Set(requests.map((r) => r.headers["webhook-id"])).size).toBe(engagements.length);
    expect(requests.every((r) => signatureValid(webhook.publicKey, r))).toBe(true);
  }, 120_000);

  it("a subscription on one process follows an engagement whose sources run on the other", async () => {
    const fixture = await analysisFixture(asTestServer(second), "Across processes");
    const subscription = subscribe<{ events: { type: string; entityId: string; state: string | null; engagementId: string } }>(
      first.url,
      token,
      `subscription($e: ID) { events(engagementId: $e, types: ["analysis-source.progress", "ingestion.complete"]) { type entityId state engagementId } }`,
      { e: fixture.engagementId },
    );
    await subscription.ready;
    await sleep(300);
    const { source } = await ingest(asTestServer(second), fixture, SIGNED_AMOUNT_LEDGER, { targetWorkflowState: "COMPLETED", proposedAmbiguousColumnResolutions: [{ position: 0, selectedFormat: "MM/dd/yyyy" }] });
    expect((await subscription.next((e) => e.events.type === "analysis-source.progress" && e.events.state === "COMPLETED", 30_000)).events.entityId).toBe(source.id);
    expect((await subscription.next((e) => e.events.type === "ingestion.complete", 30_000)).events).toMatchObject({ entityId: source.id, engagementId: fixture.engagementId });
    await subscription.close();
  }, 120_000);

  it("kill -9 between attempts and during an attempt, then restart: each event delivered exactly once", async () => {
    const between = await register(first, "/crash-between", ["engagement.created"]);
    const during = await register(first, "/crash-during", ["engagement.created"]);
    receiver.reply("/crash-between", (_request, count) => (count === 0 ? { status: 500 } : {}));
    receiver.reply("/crash-during", (_request, count) => (count === 0 ? { hang: true } : {}));
    await createEngagement(api(second), "Crash");
    // The first attempt to one receiver failed (its retry is due in about 2 s); the other is hanging.
    await logs(first, between.id, 1);
    await waitFor(async () => receiver.at("/crash-during")[0], "the hanging attempt");
    await Promise.all([first.stop("SIGKILL"), second.stop("SIGKILL")]);
    await sleep(1000);
    expect(receiver.at("/crash-between")).toHaveLength(1);

    first = await startChildServer(env, { dataDir });
    const betweenLogs = await logs(first, between.id, 2);
    expect(betweenLogs.map((l: { status: string }) => l.status)).toEqual(["FAILED", "COMPLETED"]);
    const duringLogs = await logs(first, during.id, 2);
    expect(duringLogs.map((l: { status: string }) => l.status)).toEqual(["FAILED", "COMPLETED"]);
    expect(duringLogs[0].failureReason).toMatch(/interrupted/);
    expect(duringLogs.map((l: { retryCount: number }) => l.retryCount)).toEqual([0, 1]);
    await sleep(4000);
    for (const path of ["/crash-between", "/crash-during"]) {
      const requests = receiver.at(path);
      expect(requests, path).toHaveLength(2);
      expect(requests.filter((r) => r.status === 200), path).toHaveLength(1);
      expect(new Set(requests.map((r) => r.headers["webhook-id"])).size, path).toBe(1);
    }
    second = await startChildServer(env, { dataDir });
  }, 300_000);
});
