import { Transform, type Readable } from "node:stream";

export interface WriteOptions {
  /** Stop and leave nothing behind once more than this many bytes arrived; `tooLarge` is thrown. */
  maxBytes?: number;
  tooLarge?: (limit: number) => Error;
  signal?: AbortSignal;
}

/**
 * Where file bytes live. Keys are relative paths like `files/<id>`; nothing outside this interface
 * knows how bytes are kept (a local directory by default; an object store could implement it).
 * Every method streams: no implementation may hold a whole file in memory.
 */
export interface FileStorage {
  /** Streams `source` into `key`, replacing it atomically when complete; a failed write leaves no trace. */
  write(key: string, source: Readable | AsyncIterable<Uint8Array>, options?: WriteOptions): Promise<{ size: number }>;
  /** Streams the bytes of `key` (optionally a byte range, `end` inclusive). */
  read(key: string, range?: { start?: number; end?: number }): Readable;
  /** Size in bytes, or undefined when the key does not exist. */
  size(key: string): Promise<number | undefined>;
  /** Renames within the storage (cheap where the backend allows). */
  move(from: string, to: string): Promise<void>;
  delete(key: string): Promise<void>;
  /** Deletes every key under `prefix/`. */
  deletePrefix(prefix: string): Promise<void>;
  /** Removes temporary bytes older than `maxAgeMs`: writes and uploads a crashed process left behind. */
  removeStaleTemporaries(maxAgeMs: number): Promise<number>;
  /** The entries directly under `prefix/` (a file or a directory of keys) and when each last changed. */
  list(prefix: string): AsyncIterable<{ name: string; modifiedMs: number }>;
  /** Gives libraries that need random access (zip readers) a local file path for `key`. */
  withLocalPath<T>(key: string, work: (path: string) => Promise<T>): Promise<T>;
}

const KEY = /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_.-]+)*$/;

export function assertStorageKey(key: string): void {
  if (!KEY.test(key) || key.split("/").some((part) => part === "." || part === "..")) throw new Error(`Invalid storage key ${JSON.stringify(key)}`);
}

/** What a byte counter fails a write with past its limit (the store maps it to `WriteOptions.tooLarge`). */
export class TooLarge extends Error {}

/** A pass-through that counts the bytes of a write and fails it with TooLarge past `limit` (when given). */
export function byteCounter(limit: number | undefined): Transform & { readonly bytes: number } {
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length;
      if (limit !== undefined && bytes > limit) callback(new TooLarge());
      else callback(null, chunk);
    },
  });
  return Object.defineProperty(counter, "bytes", { get: () => bytes }) as Transform & { readonly bytes: number };
}
