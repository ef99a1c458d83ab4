import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { awaitJob, clientWithPermissions } from "../../../test/helpers/entities.js";
import { subscribe } from "../../../test/helpers/ws-client.js";
import type { RestClient } from "../../../test/helpers/client.js";
import { inTransaction } from "../../events/outbox.js";
import { exportJob } from "../../../test/fixtures/test-jobs.js";
import { startFileResultJob } from "./file-result.service.js";

let server: TestServer;
let other: RestClient & { tokenId: string };

beforeAll(async () => {
  server = await startTestServer();
  // No file-results permission: a file result belongs to the token that started its job, whatever it holds.
  other = await clientWithPermissions(server.api, ["api.data-tables.read"], "other token");
});
afterAll(async () => server?.close());

/** Starts the export as the given token would (its user and token own the result). */
async function startExport(client: RestClient, rows: number) {
  const [user, token] = await Promise.all([client.get("/users/current"), client.get("/api-tokens/current")]);
  return inTransaction(server.running.app, (tx) =>
    startFileResultJob(tx, { job: exportJob, payload: { rows }, fileName: "export.csv", startedBy: { userId: user.body.id, userName: user.body.userName, tokenId: token.body.id } }),
  );
}

async function rawExport(token: string, id: string) {
  const response = await fetch(`${server.url}/api/v1/file-results/${id}/export`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

describe("file results", () => {
  it("follows the export flow: async result COMPLETE -> file result (fileName, size) -> raw bytes", async () => {
    const started = await startExport(server.api, 1000);
    expect(started).toMatchObject({ type: "DATA_TABLE_EXPORT", entityType: "FILE_RESULT", status: "IN_PROGRESS" });
    const done = await awaitJob(server.api, started.id);
    expect(done.status).toBe("COMPLETE");

    const result = await server.api.get(`/file-results/${done.entityId}`);
    expect(result.status).toBe(200);
    const expected = "id;value\n" + Array.from({ length: 1000 }, (_, i) => `${i};${i * 2}\n`).join("");
    expect(result.body).toMatchObject({ id: done.entityId, fileName: "export.csv", size: Buffer.byteLength(expected) });

    const bytes = await rawExport(server.token, done.entityId);
    expect(bytes.status).toBe(200);
    expect(bytes.headers.get("content-type")).toBe("application/octet-stream");
    expect(bytes.headers.get("content-disposition")).toMatch(/^attachment; filename="export.csv"/);
    expect(bytes.text).toBe(expected);
  });

  it("is visible only to the token that started it: 404 for another token, also for its async result", async () => {
    const started = await startExport(server.api, 3);
    const done = await awaitJob(server.api, started.id);
    expect((await other.get(`/file-results/${done.entityId}`)).status).toBe(404);
    expect((await rawExport(other.token!, done.entityId)).status).toBe(404);
    expect((await other.get(`/async-results/${started.id}`)).status).toBe(404);
    expect((await other.post("/async-results/query", { id: { $in: [started.id] } })).body.content).toEqual([]);

    const own = await startExport(other, 2);
    const ownDone = await awaitJob(other, own.id);
    expect((await other.get(`/file-results/${ownDone.entityId}`)).status).toBe(200);
    expect((await rawExport(other.token!, ownDone.entityId)).text).toBe("id;value\n0;0\n1;2\n");
    expect((await server.api.get(`/file-results/${ownDone.entityId}`)).status).toBe(404);
  });

  it("tells only the starting token about its file result (export.ready, job events), whatever the permissions", async () => {
    const query = `subscription { entityChanged(entityType: "FILE_RESULT") { type entityId } }`;
    const mine = subscribe<{ entityChanged: { type: string; entityId: string } }>(server.url, server.token, query);
    const theirs = subscribe<{ entityChanged: { type: string; entityId: string } }>(server.url, other.token!, query);
    await Promise.all([mine.ready, theirs.ready]);
    await new Promise((r) => setTimeout(r, 100));
    const first = await awaitJob(server.api, (await startExport(server.api, 1)).id);
    await mine.next((e) => e.entityChanged.type === "export.ready" && e.entityChanged.entityId === first.entityId);
    // Events reach every subscriber in order: once `other` hears of its own export, it has been passed the first one.
    const second = await awaitJob(other, (await startExport(other, 1)).id);
    await theirs.next((e) => e.entityChanged.type === "export.ready" && e.entityChanged.entityId === second.entityId);
    expect(theirs.events.map((e) => e.entityChanged.entityId)).not.toContain(first.entityId);
    expect(mine.events.map((e) => e.entityChanged.entityId)).not.toContain(second.entityId);
    await Promise.all([mine.close(), theirs.close()]);
  });

  it("is readable over GraphQL by its owner only", async () => {
    const started = await startExport(server.api, 1);
    const done = await awaitJob(server.api, started.id);
    const query = `query ($id: ID!) { fileResult(id: $id) { fileName size } fileResultDownload(id: $id) { url fileName } }`;
    const mine = await server.gql(query, { id: done.entityId });
    expect(mine.body.data).toEqual({ fileResult: { fileName: "export.csv", size: Buffer.byteLength("id;value\n0;0\n") }, fileResultDownload: { url: `/file-results/${done.entityId}/export`, fileName: "export.csv" } });
    const theirs = await server.gql(query, { id: done.entityId }, other.token);
    expect(theirs.body.errors?.[0].extensions?.code).toBe("NOT_FOUND");
  });
});
