import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "graphql-ws";
import WebSocket from "ws";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { awaitJob, clientWithPermissions, createEngagement, waitFor } from "../../../test/helpers/entities.js";
import { flakyJob, holdJob, steppedJob } from "../../../test/fixtures/test-jobs.js";
import { inTransaction } from "../../events/outbox.js";
import { startJob, type JobDefinition, type JobStarter } from "../../jobs/index.js";

let server: TestServer;
let starter: JobStarter;

beforeAll(async () => {
  server = await startTestServer({ jobSweepSeconds: 1 });
  const [user, token] = await Promise.all([server.api.get("/users/current"), server.api.get("/api-tokens/current")]);
  starter = { userId: user.body.id, userName: user.body.userName, tokenId: token.body.id };
});
afterAll(async () => server?.close());

/** Starts a job the way a service does: inside a transaction, targeting an existing engagement. */
function start<P>(job: JobDefinition<P>, payload: P, engagementId: string) {
  return inTransaction(server.running.app, (tx) => startJob(tx, { job, payload, entityType: "ENGAGEMENT", entityId: engagementId, startedBy: starter }));
}

async function billingCode(engagementId: string): Promise<string | undefined> {
  return (await server.api.get(`/engagements/${engagementId}`)).body.billingCode;
}

describe("job runtime (in-process runner)", () => {
  it("returns an IN_PROGRESS async result at once, runs the job after commit, then reports COMPLETE", async () => {
    const engagement = await createEngagement(server.api, "runs");
    const started = await start(holdJob, { engagementId: engagement.id, holdFirstAttemptMs: 0 }, engagement.id);
    const first = await server.api.get(`/async-results/${started.id}`);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ id: started.id, type: "ANALYSIS_ROLL_FORWARD", entityId: engagement.id, entityType: "ENGAGEMENT", version: 0 });
    expect(["IN_PROGRESS", "COMPLETE"]).toContain(first.body.status);
    expect(first.body.createdUserInfo.userId).toBe(starter.userId);

    const done = await awaitJob(server.api, started.id);
    expect(done.status).toBe("COMPLETE");
    expect(done).not.toHaveProperty("error");
    expect(await billingCode(engagement.id)).toBe("done on attempt 1");
  });

  it("does not run a job whose starting transaction rolled back", async () => {
    const engagement = await createEngagement(server.api, "rolled back");
    let startedId = "";
    await expect(
      inTransaction(server.running.app, async (tx) => {
        startedId = (await startJob(tx, { job: holdJob, payload: { engagementId: engagement.id, holdFirstAttemptMs: 0 }, entityType: "ENGAGEMENT", entityId: engagement.id, startedBy: starter })).id;
        throw new Error("caller failed after starting the job");
      }),
    ).rejects.toThrow("caller failed");
    expect((await server.api.get(`/async-results/${startedId}`)).status).toBe(404);
    await new Promise((r) => setTimeout(r, 300));
    expect(await billingCode(engagement.id)).toBeUndefined();
  });

  it("retries a failing job by its policy and completes on a later attempt", async () => {
    const engagement = await createEngagement(server.api, "flaky");
    const started = await start(flakyJob, { engagementId: engagement.id, failures: 2, kind: "retryable" }, engagement.id);
    expect((await awaitJob(server.api, started.id)).status).toBe("COMPLETE");
    expect(await billingCode(engagement.id)).toBe("flaky done on attempt 3");
  });

  it("fails after the last attempt with an error that does not leak internals, and runs the failure cleanup", async () => {
    const engagement = await createEngagement(server.api, "always fails");
    const started = await start(flakyJob, { engagementId: engagement.id, failures: 5, kind: "retryable" }, engagement.id);
    const failed = await awaitJob(server.api, started.id);
    expect(failed.status).toBe("ERROR");
    expect(failed.error).toContain(started.id);
    expect(failed.error).not.toContain("/secret/path");
    expect(await billingCode(engagement.id)).toMatch(/^failed: Unexpected error/);
  });

  it("fails at once on a permanent error, with its message as the async result error", async () => {
    const engagement = await createEngagement(server.api, "permanent");
    const started = await start(flakyJob, { engagementId: engagement.id, failures: 1, kind: "permanent" }, engagement.id);
    const failed = await awaitJob(server.api, started.id);
    expect(failed).toMatchObject({ status: "ERROR", error: "The input of attempt 1 is unusable" });
  });

  it("publishes progress to the jobProgress subscription, then the final status", async () => {
    const engagement = await createEngagement(server.api, "progress");
    const started = await start(steppedJob, { engagementId: engagement.id }, engagement.id);
    const client = createClient({ url: `${server.url.replace("http", "ws")}/api/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${server.token}` } });
    const events: Array<{ status: string; percent: number | null; message: string | null }> = [];
    const finished = new Promise<void>((resolve, reject) => {
      client.subscribe<{ jobProgress: { status: string; percent: number | null; message: string | null } }>(
        { query: `subscription ($id: ID!) { jobProgress(asyncResultId: $id) { status percent message } }`, variables: { id: started.id } },
        { next: (value) => value.data && events.push(value.data.jobProgress), error: reject, complete: resolve },
      );
    });
    await waitFor(async () => (events.some((e) => e.percent === 50) ? true : undefined), "a progress event", 10_000);
    await server.api.put(`/engagements/${engagement.id}`, { ...(await server.api.get(`/engagements/${engagement.id}`)).body, billingCode: "go" });
    await finished;
    await client.dispose();
    expect(events[0]).toEqual({ status: "IN_PROGRESS", percent: 50, message: "half way" });
    expect(events.at(-1)).toEqual({ status: "COMPLETE", percent: 100, message: null });
  });
});

describe("async results REST", () => {
  it("polls by id $in: the returned ids over all pages equal the requested set exactly", async () => {
    const engagement = await createEngagement(server.api, "polling");
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await start(holdJob, { engagementId: engagement.id, holdFirstAttemptMs: 0 }, engagement.id)).id);
    const other = await start(holdJob, { engagementId: engagement.id, holdFirstAttemptMs: 0 }, engagement.id);
    const seen: string[] = [];
    for (let page = 0; page < 10; page++) {
      const response = await server.api.post(`/async-results/query?page=${page}&size=2`, { id: { $in: ids } });
      expect(response.status).toBe(200);
      if (response.body.content.length === 0) break;
      seen.push(...response.body.content.map((r: { id: string }) => r.id));
    }
    expect(seen.sort()).toEqual([...ids].sort());
    expect(seen).not.toContain(other.id);
  });

  it("filters by $and of entityId, type and entityType", async () => {
    const a = await createEngagement(server.api, "filter a");
    const b = await createEngagement(server.api, "filter b");
    const mine = await start(holdJob, { engagementId: a.id, holdFirstAttemptMs: 0 }, a.id);
    await start(holdJob, { engagementId: b.id, holdFirstAttemptMs: 0 }, b.id);
    const response = await server.api.post("/async-results/query", { $and: [{ entityId: a.id }, { type: "ANALYSIS_ROLL_FORWARD" }, { entityType: "ENGAGEMENT" }] });
    expect(response.status).toBe(200);
    expect(response.body.content.map((r: { id: string }) => r.id)).toEqual([mine.id]);
    expect(response.body.totalElements).toBe(1);
    const none = await server.api.post("/async-results/query", { $and: [{ entityId: a.id }, { entityType: "ANALYSIS_SOURCE" }] });
    expect(none.body.content).toEqual([]);
  });

  it("rejects a bad filter with 400 naming the field", async () => {
    const response = await server.api.post("/async-results/query", { colour: "red" });
    expect(response.status).toBe(400);
    expect(response.body.problems[0].identifier).toBe("colour");
  });

  it("answers 404 for an unknown id", async () => {
    const response = await server.api.get("/async-results/0123456789abcdef01234567");
    expect(response.status).toBe(404);
    expect(response.body.problems[0]).toMatchObject({ problemType: "UNKNOWN" });
  });

  it("follows the target's read permission: 403 on read, left out of queries", async () => {
    const engagement = await createEngagement(server.api, "permissions");
    const started = await start(holdJob, { engagementId: engagement.id, holdFirstAttemptMs: 0 }, engagement.id);
    const blind = await clientWithPermissions(server.api, ["api.file-manager.read"], "no engagements");
    const denied = await blind.get(`/async-results/${started.id}`);
    expect(denied.status).toBe(403);
    expect(denied.body.problems[0]).toMatchObject({ problemType: "INSUFFICIENT_PERMISSION", values: ["api.engagements.read"] });
    const query = await blind.post("/async-results/query", { id: { $in: [started.id] } });
    expect(query.status).toBe(200);
    expect(query.body.content).toEqual([]);

    const reader = await clientWithPermissions(server.api, ["api.engagements.read"], "engagements");
    expect((await reader.get(`/async-results/${started.id}`)).status).toBe(200);
    expect((await reader.post("/async-results/query", { id: { $in: [started.id] } })).body.content).toHaveLength(1);
  });

  it("is readable over GraphQL with the same rules", async () => {
    const engagement = await createEngagement(server.api, "graphql");
    const started = await start(holdJob, { engagementId: engagement.id, holdFirstAttemptMs: 0 }, engagement.id);
    await awaitJob(server.api, started.id);
    const result = await server.gql(`query ($id: ID!, $filter: JSON) { asyncResult(id: $id) { id status type entityId entityType } asyncResults(filter: $filter) { totalElements } }`, {
      id: started.id,
      filter: { id: { $in: [started.id] } },
    });
    expect(result.body.errors).toBeUndefined();
    expect(result.body.data.asyncResult).toEqual({ id: started.id, status: "COMPLETE", type: "ANALYSIS_ROLL_FORWARD", entityId: engagement.id, entityType: "ENGAGEMENT" });
    expect(result.body.data.asyncResults.totalElements).toBe(1);
  });
});
