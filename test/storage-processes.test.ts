import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase } from "./helpers/database.js";
import { startChildServer, type ChildServer } from "./helpers/child-server.js";
import { RestClient } from "./helpers/client.js";
import { describeWithRedis, testRedisUrl } from "./helpers/redis-tests.js";
import { startTestS3, type TestS3 } from "./helpers/s3-server.js";
import { analysisFixture, createSource, settle, uploadFile } from "./helpers/analysis-sources.js";
import { journalCsv } from "./helpers/ledger.js";
import { postMultipart } from "./helpers/multipart.js";
import type { TestServer } from "./helpers/server.js";

// Two server processes on one PostgreSQL and one Redis, each with a DATA_DIR of its own (as on two
// machines), storing files in one S3 bucket: what one stores, the other reads.
let s3: TestS3;
let first: ChildServer;
let second: ChildServer;
const dataDirs = [mkdtempSync(join(tmpdir(), "fap-s3-a-")), mkdtempSync(join(tmpdir(), "fap-s3-b-"))];
const token = `fap_shared_${randomBytes(12).toString("hex")}`;
const as = (server: ChildServer) => ({ url: server.url, token, api: new RestClient(server.url, token) }) as unknown as TestServer;

beforeAll(async () => {
  if (!testRedisUrl()) return;
  s3 = await startTestS3();
  const { url } = await createTestDatabase();
  const env = { DATABASE_URL: url, REDIS_URL: testRedisUrl(), BOOTSTRAP_TOKEN: token, ...s3.env("deployment") };
  [first, second] = await Promise.all([startChildServer(env, { dataDir: dataDirs[0] }), startChildServer(env, { dataDir: dataDirs[1] })]);
});
afterAll(async () => {
  await Promise.all([first?.stop(), second?.stop()]);
  await s3?.close();
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

async function download(server: ChildServer, fileId: string): Promise<Buffer> {
  const response = await fetch(`${server.url}/api/v1/file-manager/${fileId}/export`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

describeWithRedis("two processes with separate DATA_DIRs share files through S3", () => {
  it("a file uploaded on one process downloads byte for byte from the other, and neither keeps it locally", async () => {
    const fixture = await analysisFixture(as(first), "S3 shared");
    const content = journalCsv(300);
    const fileId = await uploadFile(as(first), fixture.engagementId, "ledger.csv", content);
    expect((await download(second, fileId)).toString("utf8")).toBe(content);
    for (const dir of dataDirs) expect(existsSync(join(dir, "files", "files", fileId))).toBe(false);
  });

  it("chunked parts sent to both processes assemble on one and ingest through the other", async () => {
    const fixture = await analysisFixture(as(second), "S3 chunked");
    const content = Buffer.from(journalCsv(400));
    const half = Math.floor(content.length / 2);
    const chunked = await new RestClient(first.url, token).post("/chunked-files", { name: "ledger.csv", size: content.length });
    expect(chunked.status).toBe(200);
    const parts: Array<[ChildServer, number, Buffer]> = [
      [first, 0, content.subarray(0, half)],
      [second, half, content.subarray(half)],
    ];
    for (const [server, offset, bytes] of parts) {
      const sent = await postMultipart(server.url, token, `/chunked-files/${chunked.body.id}/part`, [
        { name: "chunkedFilePart", json: { offset, size: bytes.length } },
        { name: "fileChunk", filename: "ledger.csv", data: bytes },
      ]);
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    }
    const file = await new RestClient(second.url, token).post("/file-manager/create-from-chunked-file", { chunkedFileId: chunked.body.id, engagementId: fixture.engagementId, name: "assembled" });
    expect(file.status, JSON.stringify(file.body)).toBe(200);
    expect((await download(first, file.body.id)).equals(content)).toBe(true);

    const started = await createSource(as(first), fixture, file.body.id, { targetWorkflowState: "COMPLETED" });
    const { source } = await settle(as(second), started.id);
    expect(source.workflowState).toBe("COMPLETED");
  });
});
