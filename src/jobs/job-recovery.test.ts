import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { afterAll, describe, expect, it } from "vitest";
import { describeWithRedis, testRedisUrl } from "../../test/helpers/redis-tests.js";
import { PrismaClient } from "../generated/prisma/client.js";
import { createTestDatabase } from "../../test/helpers/database.js";
import { RestClient } from "../../test/helpers/client.js";
import { startTestServer } from "../../test/helpers/server.js";
import { ensureBuilt, JOB_SERVER_SCRIPT } from "../../test/helpers/child-server.js";
import { awaitJob, createEngagement, waitFor } from "../../test/helpers/entities.js";
import { holdJob, holdOnceJob, holdOnWorkerJob } from "../../test/fixtures/test-jobs.js";
import { startJob, type JobDefinition, type JobStarter } from "./index.js";

const ROOT = new URL("../../", import.meta.url).pathname;
const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

interface Child {
  process: ChildProcess;
  api: RestClient;
  exited: Promise<number | null>;
}

/** `npm start` as a real child process (compiled, plus the test job definitions), against the given database. */
async function spawnServer(env: Record<string, string>): Promise<Child> {
  ensureBuilt();
  const child = spawn(process.execPath, [JOB_SERVER_SCRIPT], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  let output = "";
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Ready: REST (http:\/\/\S+)\/api\/v1/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    void exited.then((code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
  return { process: child, api: new RestClient(url, env.BOOTSTRAP_TOKEN), exited };
}

async function crashScenario(mode: "in-process" | "redis") {
  const { url: databaseUrl } = await createTestDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), "fap-jobs-"));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const env: Record<string, string> = {
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    PORT: "0",
    HOST: "127.0.0.1",
    BOOTSTRAP_TOKEN: `fap_test_${randomBytes(12).toString("hex")}`,
    JOB_LEASE_SECONDS: "2",
    JOB_SWEEP_SECONDS: "1",
    LOG_LEVEL: "error",
    TENANT_ID: `t${randomBytes(4).toString("hex")}`,
    ...(mode === "redis" ? { REDIS_URL: testRedisUrl() } : {}),
  };
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  cleanups.push(async () => {
    await prisma.$disconnect();
    await pool.end().catch(() => undefined);
  });

  const first = await spawnServer(env);
  const resumable = await createEngagement(first.api, "resumable");
  const oneShot = await createEngagement(first.api, "one attempt");
  const user = (await first.api.get("/users/current")).body;
  const starter: JobStarter = { userId: user.id, userName: user.userName };
  const start = (job: JobDefinition<{ engagementId: string; holdFirstAttemptMs: number }>, engagementId: string) =>
    prisma.$transaction((tx) => startJob(tx, { job, payload: { engagementId, holdFirstAttemptMs: 120_000 }, entityType: "ENGAGEMENT", entityId: engagementId, startedBy: starter }));
  const resumed = await start(holdJob, resumable.id);
  const failed = await start(holdOnceJob, oneShot.id);

  // Both jobs are running (leased) in the first process; then it dies without any chance to clean up.
  await waitFor(async () => {
    const { rows } = await pool.query("SELECT count(*)::int AS n FROM async_result WHERE id = ANY($1) AND lease_owner IS NOT NULL", [[resumed.id, failed.id]]);
    return rows[0].n === 2 ? true : undefined;
  }, "both jobs to be claimed");
  first.process.kill("SIGKILL");
  await first.exited;
  const orphaned = await pool.query("SELECT status FROM async_result WHERE id = ANY($1)", [[resumed.id, failed.id]]);
  expect(orphaned.rows.map((r) => r.status)).toEqual(["IN_PROGRESS", "IN_PROGRESS"]);

  const second = await spawnServer(env);
  const completed = await awaitJob(second.api, resumed.id, 30_000);
  expect(completed.status).toBe("COMPLETE");
  expect((await second.api.get(`/engagements/${resumable.id}`)).body.billingCode).toBe("done on attempt 2");

  const gaveUp = await awaitJob(second.api, failed.id, 30_000);
  expect(gaveUp.status).toBe("ERROR");
  expect(gaveUp.error).toMatch(/interrupted .* used all 1 attempt/);
  expect((await second.api.get(`/engagements/${oneShot.id}`)).body.billingCode).toMatch(/^cleaned up: The job was interrupted/);

  const leases = await pool.query("SELECT count(*)::int AS n FROM async_result WHERE lease_owner IS NOT NULL");
  expect(leases.rows[0].n).toBe(0);
  second.process.kill("SIGTERM");
  await second.exited;
}

// Two child servers start one after another (each up to 60 s on a loaded machine): more than the default test timeout.
const CRASH_TIMEOUT = 180_000;

describe("job recovery after kill -9", () => {
  it("in-process runner: a restarted process resumes one job and cleanly fails the one out of attempts", () => crashScenario("in-process"), CRASH_TIMEOUT);
  it.skipIf(!testRedisUrl())("BullMQ on Redis: the same", () => crashScenario("redis"), CRASH_TIMEOUT);
});

describe("graceful shutdown", () => {
  it("hands a running job back without spending an attempt; the next process completes it", async () => {
    const firstServer = await startTestServer({ jobLeaseSeconds: 30, jobSweepSeconds: 1 });
    const engagement = await createEngagement(firstServer.api, "graceful");
    const user = (await firstServer.api.get("/users/current")).body;
    const app = firstServer.running.app;
    const started = await app.prisma.$transaction((tx) =>
      startJob(tx, { job: holdOnWorkerJob, payload: { engagementId: engagement.id, holdOnWorker: app.jobs.workerId }, entityType: "ENGAGEMENT", entityId: engagement.id, startedBy: { userId: user.id, userName: user.userName } }),
    );
    await waitFor(async () => ((await app.pool.query("SELECT lease_owner FROM async_result WHERE id = $1", [started.id])).rows[0].lease_owner ? true : undefined), "the job to be claimed");
    await firstServer.close();

    const secondServer = await startTestServer({ databaseUrl: firstServer.databaseUrl, jobSweepSeconds: 1 });
    cleanups.push(() => secondServer.close());
    const api = secondServer.api.withToken(firstServer.token); // the database keeps the first server's token
    expect((await awaitJob(api, started.id)).status).toBe("COMPLETE");
    expect((await api.get(`/engagements/${engagement.id}`)).body.billingCode).toBe("done on attempt 1");
  });
});

describeWithRedis("several processes sharing Redis", () => {
  it("work one BullMQ queue: every job runs exactly once", async () => {
    const tenantId = `t${randomBytes(4).toString("hex")}`;
    const a = await startTestServer({ redisUrl: testRedisUrl(), tenantId, jobSweepSeconds: 1 });
    cleanups.push(() => a.close());
    const b = await startTestServer({ redisUrl: testRedisUrl(), tenantId, databaseUrl: a.databaseUrl, jobSweepSeconds: 1 });
    cleanups.push(() => b.close());
    const engagement = await createEngagement(a.api, "shared queue");
    const user = (await a.api.get("/users/current")).body;
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) {
      const app = (i % 2 === 0 ? a : b).running.app;
      const row = await app.prisma.$transaction((tx) =>
        startJob(tx, { job: holdJob, payload: { engagementId: engagement.id, holdFirstAttemptMs: 0 }, entityType: "ENGAGEMENT", entityId: engagement.id, startedBy: { userId: user.id, userName: user.userName } }),
      );
      ids.push(row.id);
    }
    for (const id of ids) expect((await awaitJob(a.api, id)).status).toBe("COMPLETE");
    const { rows } = await a.running.app.pool.query("SELECT attempts FROM async_result WHERE id = ANY($1)", [ids]);
    expect(rows.map((r) => r.attempts)).toEqual(ids.map(() => 1));
  });
});
