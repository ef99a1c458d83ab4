import { existsSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { createEngagement, waitFor } from "../../../test/helpers/entities.js";
import { postMultipart } from "../../../test/helpers/multipart.js";

let server: TestServer;
let db: pg.Pool;
let engagementId: string;

beforeAll(async () => {
  server = await startTestServer({ cleanupIntervalSeconds: 1, schedulerTickSeconds: 1 });
  db = new pg.Pool({ connectionString: server.databaseUrl, max: 2 });
  engagementId = (await createEngagement(server.api, "chunked")).id;
});
afterAll(async () => {
  await db?.end();
  await server?.close();
});

const content = Buffer.from(Array.from({ length: 1000 }, (_, i) => `row ${i};${i * 3}\n`).join(""));

function sendPart(id: string, offset: number, bytes: Buffer, declaredSize = bytes.length, name = "ledger.csv") {
  return postMultipart(server.url, server.token, `/chunked-files/${id}/part`, [
    { name: "chunkedFilePart", json: { offset, size: declaredSize } },
    { name: "fileChunk", filename: name, data: bytes },
  ]);
}

async function download(id: string): Promise<Buffer> {
  const response = await fetch(`${server.url}/api/v1/file-manager/${id}/export`, { headers: { authorization: `Bearer ${server.token}` } });
  return Buffer.from(await response.arrayBuffer());
}

async function newChunkedFile(size = content.length, name = "ledger.csv") {
  const response = await server.api.post("/chunked-files", { name, size });
  expect(response.status).toBe(200);
  return response.body as { id: string };
}

describe("chunked files", () => {
  it("creates a chunked file with name and size and no parts yet", async () => {
    const created = await server.api.post("/chunked-files", { name: "ledger.csv", size: 5_000_000_000 });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ name: "ledger.csv", size: 5_000_000_000, chunkedFileParts: [], version: 0 });
    expect((await server.api.get(`/chunked-files/${created.body.id}`)).body).toEqual(created.body);
  });

  it("refuses a size below 1 and a name without extension", async () => {
    const zero = await server.api.post("/chunked-files", { name: "a.csv", size: 0 });
    expect(zero.status).toBe(400);
    expect(zero.body.problems[0].identifier).toBe("size");
    const noExtension = await server.api.post("/chunked-files", { name: "ledger", size: 10 });
    expect(noExtension.status).toBe(400);
    expect(noExtension.body.problems[0].identifier).toBe("name");
  });

  it("accepts parts in any order, replaces a resent offset, and assembles them into a file", async () => {
    const file = await newChunkedFile();
    const cut = [0, 4000, 9000, content.length];
    for (const index of [2, 0, 1]) {
      const response = await sendPart(file.id, cut[index], content.subarray(cut[index], cut[index + 1]));
      expect(response.status).toBe(200);
    }
    // A retry of the same offset (here with different bytes first, then the right ones) overwrites it.
    expect((await sendPart(file.id, 4000, Buffer.alloc(5000, 0x41))).status).toBe(200);
    const retried = await sendPart(file.id, 4000, content.subarray(4000, 9000));
    expect(retried.body.chunkedFileParts).toEqual([
      { offset: 0, size: 4000 },
      { offset: 4000, size: 5000 },
      { offset: 9000, size: content.length - 9000 },
    ]);

    const created = await server.api.post("/file-manager/create-from-chunked-file", { chunkedFileId: file.id, engagementId, name: "assembled" });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ type: "FILE", name: "assembled", extension: "csv", originalName: "ledger.csv", engagementId });
    expect((await download(created.body.id)).equals(content)).toBe(true);
  });

  it("serves the deprecated import paths with the same body and result", async () => {
    const file = await newChunkedFile();
    await sendPart(file.id, 0, content);
    for (const path of ["import-from-chunked-file", "import-from-chunked"]) {
      const created = await server.api.post(`/file-manager/${path}/${file.id}`, { engagementId });
      expect(created.status).toBe(200);
      expect(created.body).toMatchObject({ type: "FILE", name: "ledger", extension: "csv" });
      expect((await download(created.body.id)).equals(content)).toBe(true);
    }
  });

  it("refuses to assemble an incomplete file, naming the missing bytes", async () => {
    const file = await newChunkedFile();
    await sendPart(file.id, 0, content.subarray(0, 100));
    await sendPart(file.id, 500, content.subarray(500, 600));
    const refused = await server.api.post("/file-manager/create-from-chunked-file", { chunkedFileId: file.id, engagementId });
    expect(refused.status).toBe(409);
    expect(refused.body.title).toContain(`bytes 100-499, 600-${content.length - 1}`);
  });

  it("validates offsets and sizes against the declared total", async () => {
    const file = await newChunkedFile(1000);
    const beyond = await sendPart(file.id, 900, Buffer.alloc(200));
    expect(beyond.status).toBe(413);
    expect(beyond.body.title).toMatch(/beyond the chunked file's declared size of 1000 bytes/);
    const mismatch = await sendPart(file.id, 0, Buffer.alloc(100), 120);
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.problems[0].identifier).toBe("chunkedFilePart.size");
    const negative = await sendPart(file.id, -5, Buffer.alloc(10));
    expect(negative.status).toBe(400);
    expect(negative.body.problems[0].identifier).toBe("chunkedFilePart.offset");
    expect((await sendPart(file.id, 100, Buffer.alloc(100))).status).toBe(200);
    const overlap = await sendPart(file.id, 150, Buffer.alloc(100));
    expect(overlap.status).toBe(400);
    expect(overlap.body.title).toMatch(/overlaps the part already received at offset 100/);
    const fractional = await sendPart(file.id, 1.5, Buffer.alloc(10));
    expect(fractional.status).toBe(400);
    const missingJson = await postMultipart(server.url, server.token, `/chunked-files/${file.id}/part`, [{ name: "fileChunk", filename: "ledger.csv", data: "x" }]);
    expect(missingJson.status).toBe(400);
    expect(missingJson.body.problems[0].identifier).toMatch(/^chunkedFilePart/);
    expect((await server.api.get(`/chunked-files/${file.id}`)).body.chunkedFileParts).toEqual([{ offset: 100, size: 100 }]);
    const unknown = await sendPart("0123456789abcdef01234567", 0, Buffer.alloc(1));
    expect(unknown.status).toBe(404);
  });

  it("treats a chunked file older than 7 days as gone, and the scheduled cleanup removes it with its bytes", async () => {
    const file = await newChunkedFile();
    await sendPart(file.id, 0, content);
    const partsDir = join(server.dataDir, "files", "chunked", file.id);
    expect(existsSync(partsDir)).toBe(true);
    await db.query("UPDATE chunked_file SET creation_date = now() - interval '7 days 1 minute' WHERE id = $1", [file.id]);
    expect((await server.api.get(`/chunked-files/${file.id}`)).status).toBe(404);
    expect((await sendPart(file.id, 0, content)).status).toBe(404);
    expect((await server.api.post("/file-manager/create-from-chunked-file", { chunkedFileId: file.id, engagementId })).status).toBe(404);
    await waitFor(async () => ((await db.query("SELECT 1 FROM chunked_file WHERE id = $1", [file.id])).rowCount === 0 ? true : undefined), "the cleanup", 15_000);
    expect(existsSync(partsDir)).toBe(false);

    const young = await newChunkedFile();
    await db.query("UPDATE chunked_file SET creation_date = now() - interval '6 days' WHERE id = $1", [young.id]);
    expect((await server.api.get(`/chunked-files/${young.id}`)).status).toBe(200);
  });

  it("removes staged uploads a crashed process left behind once they are a day old", async () => {
    const staging = join(server.dataDir, "files", "uploads");
    mkdirSync(staging, { recursive: true });
    writeFileSync(join(staging, "abandoned"), "half an upload");
    writeFileSync(join(staging, "in-flight"), "an upload in progress");
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600 * 1000);
    utimesSync(join(staging, "abandoned"), twoDaysAgo, twoDaysAgo);
    await waitFor(async () => (existsSync(join(staging, "abandoned")) ? undefined : true), "the staging cleanup", 15_000);
    expect(existsSync(join(staging, "in-flight"))).toBe(true);
  });
});
