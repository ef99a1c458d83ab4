import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, open, readdir, rename, rm, stat, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { randomBytes } from "node:crypto";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { assertStorageKey, byteCounter, TooLarge, type FileStorage, type WriteOptions } from "./storage.js";


/** fsync of a file or a directory (a rename is durable once its directory is synced). */
async function sync(path: string): Promise<void> {
  const handle = await open(path, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Files in a directory (by default `$DATA_DIR/files`). A write goes to a temp file, which is synced
 * to disk, renamed into place and its directory synced, as PostgreSQL makes a file durable: once
 * `write` or `move` returns, the bytes survive a power cut as well as a kill -9, and a reader never
 * sees a half-written file.
 */
export class LocalFileStorage implements FileStorage {
  private readonly tmp: string;

  constructor(private readonly root: string) {
    this.tmp = join(root, ".tmp");
  }

  private path(key: string): string {
    assertStorageKey(key);
    return join(this.root, key);
  }

  async write(key: string, source: Readable | AsyncIterable<Uint8Array>, options: WriteOptions = {}): Promise<{ size: number }> {
    const target = this.path(key);
    await mkdir(this.tmp, { recursive: true });
    const temp = join(this.tmp, `${randomBytes(8).toString("hex")}.part`);
    const limit = options.maxBytes;
    const counter = byteCounter(limit);
    // Opened before the pipeline starts: a stream that opens its file lazily could create it after
    // a failure's unlink below, leaving a stray temporary behind.
    const handle = await open(temp, "w");
    try {
      await pipeline(source, counter, createWriteStream("", { fd: handle }), { signal: options.signal });
      await sync(temp);
      await mkdir(dirname(target), { recursive: true });
      await rename(temp, target);
      await sync(dirname(target));
      return { size: counter.bytes };
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      if (error instanceof TooLarge) throw options.tooLarge?.(limit!) ?? new Error(`More than ${limit} bytes`);
      throw error;
    }
  }

  read(key: string, range: { start?: number; end?: number } = {}): Readable {
    return createReadStream(this.path(key), range);
  }

  async size(key: string): Promise<number | undefined> {
    try {
      return (await stat(this.path(key))).size;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
  }

  async move(from: string, to: string): Promise<void> {
    const target = this.path(to);
    await mkdir(dirname(target), { recursive: true });
    await rename(this.path(from), target);
    await sync(dirname(target));
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }

  async deletePrefix(prefix: string): Promise<void> {
    await rm(this.path(prefix), { recursive: true, force: true });
  }

  async removeStaleTemporaries(maxAgeMs: number): Promise<number> {
    let removed = 0;
    for (const dir of [this.tmp, join(this.root, "uploads")]) {
      const names = await readdir(dir).catch(() => [] as string[]);
      for (const name of names) {
        const path = join(dir, name);
        const info = await stat(path).catch(() => undefined);
        if (info && Date.now() - info.mtimeMs > maxAgeMs) {
          await rm(path, { force: true, recursive: true });
          removed++;
        }
      }
    }
    return removed;
  }

  async *list(prefix: string): AsyncIterable<{ name: string; modifiedMs: number }> {
    const dir = this.path(prefix);
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names) {
      const info = await stat(join(dir, name)).catch(() => undefined);
      if (info) yield { name, modifiedMs: info.mtimeMs };
    }
  }

  async withLocalPath<T>(key: string, work: (path: string) => Promise<T>): Promise<T> {
    return work(this.path(key));
  }
}
