import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase } from "../helpers/database.js";
import { startChildServer, type ChildServer } from "../helpers/child-server.js";
import { createEngagement } from "../helpers/entities.js";
import { RestClient } from "../helpers/client.js";
import { describeWithRedis, testRedisUrl } from "../helpers/redis-tests.js";
import { prepareLoadMix, routeTable, runLoadMix } from "../../bench/load-mix.js";

// The short version of `npm run bench`'s load run (bench/load.bench.ts): 20 clients for a few
// seconds against two server processes sharing one PostgreSQL and one Redis. Figures are the
// benchmark's business; this checks what must hold under any load: only 2xx/404/409/429, and no
// acknowledged update missing from the final state.
describeWithRedis("mixed concurrent load on two processes", () => {
  let servers: ChildServer[] = [];
  // One storage directory for both, as a shared volume would be.
  const dataDir = mkdtempSync(join(tmpdir(), "fap-load-"));
  const token = `fap_load_${randomBytes(10).toString("hex")}`;
  beforeAll(async () => {
    const { url } = await createTestDatabase();
    const env = { DATABASE_URL: url, REDIS_URL: testRedisUrl(), BOOTSTRAP_TOKEN: token, TENANT_ID: `load${randomBytes(3).toString("hex")}`, IP_RATE_LIMIT: "100000000" };
    servers = await Promise.all([startChildServer(env, { compiled: true, dataDir }), startChildServer(env, { compiled: true, dataDir })]);
  }, 240_000);
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("answers only 2xx, 404, 409 or 429 and loses no acknowledged update", async () => {
    const api = new RestClient(servers[0].url, token);
    const engagementId = (await createEngagement(api, "Load")).id;
    const prepared = await prepareLoadMix(servers[0].url, token, 4, 40);
    const result = await runLoadMix({ urls: servers.map((s) => s.url), token, engagementId, clients: 20, seconds: Number(process.env.LOAD_TEST_SECONDS ?? 4), ...prepared });
    expect(result.violations, routeTable(result)).toEqual([]);
    expect(result.updates.lost, result.updates.detail.join("\n")).toBe(0);
    expect(result.updates.succeeded).toBeGreaterThan(0);
    expect(result.updates.conflicts).toBeGreaterThan(0);
    expect(Object.keys(result.routes).sort()).toEqual(["GET /organizations/{id}", "POST /file-manager/import", "POST /organizations", "POST /organizations/query", "PUT /organizations/{id}"]);
  }, 120_000);
});
