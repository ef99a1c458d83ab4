import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { clientWithPermissions, createEngagement, waitFor } from "../../../test/helpers/entities.js";
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

/**
 * Sends the JSON part, then up to `offered` bytes of fileChunk as fast as the server reads them,
 * stopping as soon as an answer comes; `sent` says how many file bytes had gone out by then.
 */
function streamPart(id: string, part: { offset: number; size: number }, offered: number): Promise<{ status: number; body: any; sent: number }> {
  const boundary = `----fap${randomBytes(8).toString("hex")}`;
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = httpRequest(`${server.url}/api/v1/chunked-files/${id}/part`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.token}`, "content-type": `multipart/form-data; boundary=${boundary}` },
    });
    req.on("response", (res) => {
      answered = true;
      const sentWhenAnswered = sent;
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (text += chunk));
      res.on("end", () => {
        resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined, sent: sentWhenAnswered });
        req.destroy();
      });
    });
    req.on("error", (error) => {
      if (!answered) reject(error);
    });
    req.write(`--${boundary}\r\nContent-Disposition: form-data; name="chunkedFilePart"\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(part)}\r\n`);
    req.write(`--${boundary}\r\nContent-Disposition: form-data; name="fileChunk"; filename="ledger.csv"\r\nContent-Type: text/csv\r\n\r\n`);
    const piece = Buffer.alloc(1024 * 1024, 0x41);
    const pump = () => {
      while (!answered && sent < offered) {
        sent += piece.length;
        if (!req.write(piece)) return void req.once("drain", pump);
      }
      if (!answered) req.end(`\r\n--${boundary}--\r\n`);
    };
    pump();
  });
}

/** The status answered to a part request that declares `length` bytes but sends almost none. */
function declaredOnly(path: string, length: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${server.url}/api/v1${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.token}`, "content-type": "multipart/form-data; boundary=x", "content-length": String(length) },
    });
    req.on("response", (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
      req.destroy();
    });
    req.on("error", reject);
    req.write("--x\r\n");
  });
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
    // Every stored part is a save: five parts, version 5.
    expect(retried.body.version).toBe(5);

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

  it("answers 413 for a part whose bytes run past the declared size, whatever its JSON part says", async () => {
    const file = await newChunkedFile(1000);
    // The JSON part claims 100 bytes (which would fit) but 200 arrive: [900, 1100) runs past 1000.
    const longer = await sendPart(file.id, 900, Buffer.alloc(200), 100);
    expect(longer.status).toBe(413);
    expect(longer.body.problems[0]).toMatchObject({ problemType: "ILLEGAL_ARGUMENT" });
    expect(longer.body.title).toMatch(/beyond the chunked file's declared size of 1000 bytes/);
    // JSON part after the bytes: the offset is not known while staging, the declared total bounds it, the service the rest.
    const late = await postMultipart(server.url, server.token, `/chunked-files/${file.id}/part`, [
      { name: "fileChunk", filename: "ledger.csv", data: Buffer.alloc(150) },
      { name: "chunkedFilePart", json: { offset: 900, size: 150 } },
    ]);
    expect(late.status).toBe(413);
    const overTotal = await postMultipart(server.url, server.token, `/chunked-files/${file.id}/part`, [
      { name: "fileChunk", filename: "ledger.csv", data: Buffer.alloc(1001) },
      { name: "chunkedFilePart", json: { offset: 0, size: 1001 } },
    ]);
    expect(overTotal.status).toBe(413);
    expect(overTotal.body.title).toMatch(/more than the chunked file's declared size of 1000 bytes/);
    // Shorter than declared but inside the total stays a 400 naming the mismatch; an exact fit is stored.
    expect((await sendPart(file.id, 900, Buffer.alloc(50), 100)).status).toBe(400);
    expect((await sendPart(file.id, 900, Buffer.alloc(100))).status).toBe(200);
    expect((await server.api.get(`/chunked-files/${file.id}`)).body.chunkedFileParts).toEqual([{ offset: 900, size: 100 }]);
    expect(readdirSync(join(server.dataDir, "files", "uploads"))).toEqual([]);
  });

  it("stops reading a part at what is left of the declared size instead of staging all of it", async () => {
    const file = await newChunkedFile(1024 * 1024);
    const offered = 512 * 1024 * 1024;
    const answer = await streamPart(file.id, { offset: 1024 * 1024 - 10, size: 10 }, offered);
    expect(answer.status).toBe(413);
    expect(answer.body.title).toMatch(/more than the 10 bytes left: it goes beyond the chunked file's declared size of 1048576 bytes/);
    // The refusal came while the client was still sending: a small part of what it offered went out.
    expect(answer.sent).toBeLessThan(64 * 1024 * 1024);
    expect(readdirSync(join(server.dataDir, "files", "uploads"))).toEqual([]);
    expect((await server.api.get(`/chunked-files/${file.id}`)).body.chunkedFileParts).toEqual([]);
  });

  it("refuses at once a request declaring far more bytes than the chunked file can take, and 404s an unknown one before reading", async () => {
    const file = await newChunkedFile(1000);
    expect(await declaredOnly(`/chunked-files/${file.id}/part`, 50 * 1024 * 1024)).toBe(413);
    expect(await declaredOnly("/chunked-files/0123456789abcdef01234567/part", 50 * 1024 * 1024 * 1024)).toBe(404);
  });

  it("needs api.file-manager.read/write (chunked files belong to the file manager area)", async () => {
    const fileManager = await clientWithPermissions(server.api, ["api.file-manager.read", "api.file-manager.write"], "file manager");
    const created = await fileManager.post("/chunked-files", { name: "wire.csv", size: content.length });
    expect(created.status).toBe(200);
    const part = await postMultipart(server.url, fileManager.token, `/chunked-files/${created.body.id}/part`, [
      { name: "chunkedFilePart", json: { offset: 0, size: content.length } },
      { name: "fileChunk", filename: "wire.csv", data: content },
    ]);
    expect(part.status).toBe(200);
    expect((await fileManager.get(`/chunked-files/${created.body.id}`)).body.chunkedFileParts).toEqual([{ offset: 0, size: content.length }]);
    const assembled = await fileManager.post("/file-manager/create-from-chunked-file", { chunkedFileId: created.body.id, engagementId, name: "wire" });
    expect(assembled.status).toBe(200);

    const neither = await clientWithPermissions(server.api, ["api.engagements.read"], "no files");
    const refused = await neither.post("/chunked-files", { name: "x.csv", size: 3 });
    expect(refused.status).toBe(403);
    expect(refused.body.problems[0].values).toEqual(["api.file-manager.write"]);
    const refusedPart = await postMultipart(server.url, neither.token, `/chunked-files/${created.body.id}/part`, [
      { name: "chunkedFilePart", json: { offset: 0, size: 1 } },
      { name: "fileChunk", filename: "x.csv", data: "x" },
    ]);
    expect(refusedPart.status).toBe(403);
    expect(refusedPart.body.problems[0].values).toEqual(["api.file-manager.write"]);
    expect((await neither.get(`/chunked-files/${created.body.id}`)).status).toBe(403);
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
