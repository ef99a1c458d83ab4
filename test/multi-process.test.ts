import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase } from "./helpers/database.js";
import { startChildServer, type ChildServer } from "./helpers/child-server.js";
import { RestClient } from "./helpers/client.js";
import { subscribe } from "./helpers/ws-client.js";
import { describeWithRedis, testRedisUrl } from "./helpers/redis-tests.js";

// Two server processes sharing one PostgreSQL database and one Redis must behave as one service.
let first: ChildServer;
let second: ChildServer;
const token = `fap_shared_${randomBytes(12).toString("hex")}`;

beforeAll(async () => {
  if (!testRedisUrl()) return;
  const { url } = await createTestDatabase();
  const env = { DATABASE_URL: url, REDIS_URL: testRedisUrl(), BOOTSTRAP_TOKEN: token, IP_RATE_LIMIT: "40", IP_RATE_LIMIT_WINDOW_SECONDS: "3600" };
  // Started together: migrations and the first-token bootstrap must not race.
  [first, second] = await Promise.all([startChildServer(env), startChildServer(env)]);
});
afterAll(async () => {
  await Promise.all([first?.stop(), second?.stop()]);
});

describeWithRedis("two processes, one Postgres, one Redis", () => {
  it("created exactly one bootstrap token, printed by exactly one process", async () => {
    const tokens = await new RestClient(first.url, token).post("/api-tokens/query", {});
    expect(tokens.body.totalElements).toBe(1);
    const printed = [first.output(), second.output()].filter((o) => o.includes("First start")).length;
    expect(printed).toBe(1);
  });

  it("delivers to a subscription on one process a change made through the other's REST API", async () => {
    const subscription = subscribe<{ entityChanged: { type: string; entityId: string } }>(
      first.url,
      token,
      `subscription { entityChanged(entityType: "ORGANIZATION") { type entityId } }`,
    );
    await subscription.ready;
    await new Promise((r) => setTimeout(r, 200));
    const created = await new RestClient(second.url, token).post("/organizations", { name: "Made on the second process" });
    expect(created.status).toBe(200);
    const event = await subscription.next((e) => e.entityChanged.entityId === created.body.id);
    expect(event.entityChanged.type).toBe("organization.created");
    await subscription.close();
  });

  it("forgets a deleted token on every process", async () => {
    const a = new RestClient(first.url, token);
    const temp = await a.post("/api-tokens", { name: "temporary", permissions: ["api.organizations.read"] });
    const onSecond = new RestClient(second.url, temp.body.token);
    expect((await onSecond.get("/users/current")).status).toBe(200);
    expect((await a.delete(`/api-tokens/${temp.body.id}`)).status).toBe(204);
    // Revocation reaches the other process through Redis; until it does, a request may still pass
    // authentication (200) or find the token's user already gone (404).
    let status = 200;
    for (let i = 0; i < 50 && status !== 401; i++) {
      status = (await onSecond.get("/users/current")).status;
      if (status !== 401) await new Promise((r) => setTimeout(r, 50));
    }
    expect(status).toBe(401);
  });

  it("shares the per-IP rate limit through Redis", async () => {
    const clients = [new RestClient(first.url, token), new RestClient(second.url, token)];
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) statuses.push((await clients[i % 2].get("/users/current")).status);
    // 40 per window across both processes (earlier tests in this file used some of them); the hour-long
    // window cannot end during the run, and its key is apart from other servers' shorter windows.
    expect(statuses.filter((s) => s === 200).length).toBeLessThan(40);
    expect(statuses.slice(-10).every((s) => s === 429)).toBe(true);
  });
});
