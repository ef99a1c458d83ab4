import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { createStorage } from "../src/storage/create-storage.js";
import { LocalFileStorage } from "../src/storage/local-storage.js";
import { S3FileStorage } from "../src/storage/s3-storage.js";
import type { FileStorage } from "../src/storage/storage.js";
import { patternBytes } from "./helpers/multipart.js";
import { S3_CREDENTIALS, startTestS3, type TestS3 } from "./helpers/s3-server.js";

let s3: TestS3;
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "fap-storage-"));
  dirs.push(dir);
  return dir;
};

beforeAll(async () => {
  Object.assign(process.env, S3_CREDENTIALS);
  s3 = await startTestS3();
});
afterAll(async () => {
  await s3?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function text(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

async function sha256(stream: AsyncIterable<Uint8Array>): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of stream) hash.update(chunk);
  return hash.digest("hex");
}

/** A source that sends `good` bytes, then fails as a cut-off upload does. */
async function* failingAfter(good: number): AsyncIterable<Uint8Array> {
  yield* patternBytes(good);
  throw new Error("connection reset");
}

const backends: Array<{ name: string; make: () => Promise<FileStorage>; scratch?: () => string }> = [
  { name: "file", make: async () => new LocalFileStorage(tempDir()) },
  {
    name: "s3",
    make: async () => {
      const scratch = tempDir();
      backends[1].scratch = () => scratch;
      return new S3FileStorage({ bucket: s3.bucket, prefix: `contract/${Math.random().toString(36).slice(2)}`, endpoint: s3.endpoint, region: "us-east-1", forcePathStyle: true, scratchDir: scratch });
    },
  },
];

describe.each(backends)("the storage contract on the $name backend", (backend) => {
  let storage: FileStorage;
  beforeAll(async () => {
    storage = await backend.make();
    recordCommands(storage);
  });

  it("writes, reads whole and by range, sizes, moves and deletes", async () => {
    expect(await storage.write("files/aaaaaaaaaaaaaaaaaaaaaaaa", Readable.from([Buffer.from("hello "), Buffer.from("world")]))).toEqual({ size: 11 });
    expect(await text(storage.read("files/aaaaaaaaaaaaaaaaaaaaaaaa"))).toBe("hello world");
    expect(await text(storage.read("files/aaaaaaaaaaaaaaaaaaaaaaaa", { start: 6 }))).toBe("world");
    expect(await text(storage.read("files/aaaaaaaaaaaaaaaaaaaaaaaa", { start: 0, end: 4 }))).toBe("hello");
    expect(await storage.size("files/aaaaaaaaaaaaaaaaaaaaaaaa")).toBe(11);
    expect(await storage.size("files/missing")).toBeUndefined();
    await expect(text(storage.read("files/missing"))).rejects.toMatchObject({ code: "ENOENT" });

    await storage.move("files/aaaaaaaaaaaaaaaaaaaaaaaa", "files/bbbbbbbbbbbbbbbbbbbbbbbb");
    expect(await storage.size("files/aaaaaaaaaaaaaaaaaaaaaaaa")).toBeUndefined();
    expect(await text(storage.read("files/bbbbbbbbbbbbbbbbbbbbbbbb"))).toBe("hello world");
    await storage.delete("files/bbbbbbbbbbbbbbbbbbbbbbbb");
    expect(await storage.size("files/bbbbbbbbbbbbbbbbbbbbbbbb")).toBeUndefined();
    await storage.delete("files/bbbbbbbbbbbbbbbbbbbbbbbb");
  });

  it("writes and reads an empty file, a range of it too", async () => {
    expect(await storage.write("files/empty", Readable.from([]))).toEqual({ size: 0 });
    expect(await storage.size("files/empty")).toBe(0);
    expect(await text(storage.read("files/empty"))).toBe("");
    expect(await text(storage.read("files/empty", { start: 0, end: 65535 }))).toBe("");
  });

  it("streams a file larger than several upload parts, byte for byte", async () => {
    const size = 19 * 1024 * 1024 + 17;
    expect(await storage.write("file-results/cccccccccccccccccccccccc", Readable.from(patternBytes(size, 3)))).toEqual({ size });
    expect(await storage.size("file-results/cccccccccccccccccccccccc")).toBe(size);
    expect(await sha256(storage.read("file-results/cccccccccccccccccccccccc"))).toBe(await sha256(patternBytes(size, 3)));
    await storage.withLocalPath("file-results/cccccccccccccccccccccccc", async (path) => {
      expect(createHash("sha256").update(readFileSync(path)).digest("hex")).toBe(await sha256(patternBytes(size, 3)));
    });
    if (backend.scratch) expect(readdirSync(backend.scratch())).toEqual([]);
  });

  it("stops at the byte limit, throws the caller's error and leaves nothing, not even the old object replaced", async () => {
    await storage.write("files/dddddddddddddddddddddddd", Readable.from([Buffer.from("previous")]));
    sentCommands.get(storage)?.splice(0);
    const tooLarge = new Error("413 too large");
    // Past one 8 MiB part, so the S3 backend has a multipart upload to abort.
    await expect(storage.write("files/dddddddddddddddddddddddd", Readable.from(patternBytes(12 * 1024 * 1024)), { maxBytes: 10 * 1024 * 1024, tooLarge: () => tooLarge })).rejects.toBe(tooLarge);
    expect(await text(storage.read("files/dddddddddddddddddddddddd"))).toBe("previous");
    await expect(storage.write("files/eeeeeeeeeeeeeeeeeeeeeeee", Readable.from(patternBytes(1000)), { maxBytes: 999, tooLarge: () => tooLarge })).rejects.toBe(tooLarge);
    expect(await storage.size("files/eeeeeeeeeeeeeeeeeeeeeeee")).toBeUndefined();
    await expectNoUnfinishedUpload(storage);
  });

  it("a source failing mid-stream or an aborted write leaves nothing behind", async () => {
    sentCommands.get(storage)?.splice(0);
    await expect(storage.write("files/ffffffffffffffffffffffff", Readable.from(failingAfter(9 * 1024 * 1024)))).rejects.toThrow("connection reset");
    expect(await storage.size("files/ffffffffffffffffffffffff")).toBeUndefined();
    const controller = new AbortController();
    async function* slow() {
      yield* patternBytes(9 * 1024 * 1024);
      controller.abort();
      await new Promise((r) => setTimeout(r, 50));
      yield Buffer.from("late");
    }
    await expect(storage.write("files/gggggggggggggggggggggggg", Readable.from(slow()), { signal: controller.signal })).rejects.toThrow();
    expect(await storage.size("files/gggggggggggggggggggggggg")).toBeUndefined();
    await expectNoUnfinishedUpload(storage);
  });

  it("lists a prefix's files and directories and deletes a prefix", async () => {
    await storage.write("chunked/hhhhhhhhhhhhhhhhhhhhhhhh/0", Readable.from([Buffer.from("a")]));
    await storage.write("chunked/hhhhhhhhhhhhhhhhhhhhhhhh/1", Readable.from([Buffer.from("b")]));
    await storage.write("chunked/iiiiiiiiiiiiiiiiiiiiiiii/0", Readable.from([Buffer.from("c")]));
    const entries: Array<{ name: string; modifiedMs: number }> = [];
    for await (const entry of storage.list("chunked")) entries.push(entry);
    expect(entries.map((e) => e.name).sort()).toEqual(["hhhhhhhhhhhhhhhhhhhhhhhh", "iiiiiiiiiiiiiiiiiiiiiiii"]);
    for (const entry of entries) expect(Math.abs(entry.modifiedMs - Date.now())).toBeLessThan(60_000);
    await storage.deletePrefix("chunked/hhhhhhhhhhhhhhhhhhhhhhhh");
    expect(await storage.size("chunked/hhhhhhhhhhhhhhhhhhhhhhhh/0")).toBeUndefined();
    expect(await storage.size("chunked/iiiiiiiiiiiiiiiiiiiiiiii/0")).toBe(1);
    const after: string[] = [];
    for await (const entry of storage.list("chunked")) after.push(entry.name);
    expect(after).toEqual(["iiiiiiiiiiiiiiiiiiiiiiii"]);
  });

  it("refuses keys that are not storage keys", async () => {
    await expect(storage.write("../escape", Readable.from([Buffer.from("x")]))).rejects.toThrow(/Invalid storage key/);
    expect(() => storage.read("files/../../etc/passwd")).toThrow(/Invalid storage key/);
  });
});

/**
 * s3rver implements neither ListMultipartUploads nor AbortMultipartUpload, so what the server keeps
 * cannot be asked; what is checked is that every multipart upload the backend started was aborted
 * (the request sent) and none completed.
 */
const sentCommands = new WeakMap<FileStorage, string[]>();
function recordCommands(storage: FileStorage): void {
  if (!(storage instanceof S3FileStorage)) return;
  const sent: string[] = [];
  sentCommands.set(storage, sent);
  storage.client.middlewareStack.add((next, context) => async (args) => {
    sent.push(context.commandName as string);
    return next(args);
  }, { step: "initialize" });
}

async function expectNoUnfinishedUpload(storage: FileStorage): Promise<void> {
  const sent = sentCommands.get(storage);
  if (!sent) return;
  const started = sent.filter((c) => c === "CreateMultipartUploadCommand").length;
  expect(started).toBeGreaterThan(0);
  expect(sent.filter((c) => c === "AbortMultipartUploadCommand").length).toBeGreaterThanOrEqual(started);
  expect(sent).not.toContain("CompleteMultipartUploadCommand");
  sent.length = 0;
}

describe("S3 specifics", () => {
  it("STORAGE_URL chooses the backend; a bucket that does not exist stops the start naming it", async () => {
    const dataDir = tempDir();
    expect(loadConfig({ DATA_DIR: dataDir }).storage).toEqual({ kind: "file" });
    const local = await createStorage({ ...loadConfig({}), dataDir });
    await local.write("files/x", Readable.from([Buffer.from("x")]));
    expect(existsSync(join(dataDir, "files", "files", "x"))).toBe(true);
    await local.delete("files/x");
    expect(loadConfig({ STORAGE_URL: "s3://my-bucket/a/b/", S3_FORCE_PATH_STYLE: "true" }).storage).toMatchObject({ kind: "s3", bucket: "my-bucket", prefix: "a/b", forcePathStyle: true, region: "us-east-1" });
    expect(() => loadConfig({ STORAGE_URL: "s3:/nope" })).toThrow(/STORAGE_URL/);
    expect(() => loadConfig({ STORAGE_URL: "s3://bkt/x", S3_FORCE_PATH_STYLE: "yes" })).toThrow(/S3_FORCE_PATH_STYLE/);
    const good = await createStorage(loadConfig({ DATA_DIR: dataDir, ...s3.env("boot") }));
    expect(good).toBeInstanceOf(S3FileStorage);
    await expect(createStorage(loadConfig({ DATA_DIR: dataDir, ...s3.env("x"), STORAGE_URL: "s3://no-such-bucket/x" }))).rejects.toThrow(/no-such-bucket/);
  });
});
