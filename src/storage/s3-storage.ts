import { createWriteStream } from "node:fs";
import { mkdir, readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { PassThrough, Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  S3Client,
  UploadPartCopyCommand,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { assertStorageKey, byteCounter, TooLarge, type FileStorage, type WriteOptions } from "./storage.js";


export interface S3StorageOptions {
  bucket: string;
  /** Keys are stored as `<prefix>/<key>` ("" for the bucket's root). */
  prefix: string;
  endpoint?: string;
  region: string;
  forcePathStyle: boolean;
  /** Local directory for `withLocalPath` downloads (removed after use, swept by `removeStaleTemporaries`). */
  scratchDir: string;
}

/** Parts of 8 MiB, two in flight: an upload holds ~24 MiB whatever the file's size. */
const PART_SIZE = 8 * 1024 * 1024;
const QUEUE_SIZE = 2;
/** CopyObject copies at most 5 GiB; larger objects are copied part by part. */
const SINGLE_COPY_LIMIT = 5 * 1024 * 1024 * 1024;
const COPY_PART_SIZE = 512 * 1024 * 1024;

function isNotFound(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === "NotFound" || e?.name === "NoSuchKey" || e?.$metadata?.httpStatusCode === 404;
}

/**
 * Files in an S3-compatible bucket (AWS S3, MinIO, Ceph), so processes on several machines share
 * them. An object becomes visible only when its upload completes (S3 PUT and multipart completion
 * are atomic), and a failed or cut-off write aborts its multipart upload, so, like the local
 * backend, a reader never sees a half-written object and a failure leaves none behind.
 */
export class S3FileStorage implements FileStorage {
  readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly scratch: string;

  constructor(options: S3StorageOptions) {
    this.client = new S3Client({ region: options.region, endpoint: options.endpoint, forcePathStyle: options.forcePathStyle });
    this.bucket = options.bucket;
    this.prefix = options.prefix === "" ? "" : `${options.prefix}/`;
    this.scratch = options.scratchDir;
  }

  async checkBucket(): Promise<void> {
    await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
  }

  private objectKey(key: string): string {
    assertStorageKey(key);
    return this.prefix + key;
  }

  async write(key: string, source: Readable | AsyncIterable<Uint8Array>, options: WriteOptions = {}): Promise<{ size: number }> {
    const objectKey = this.objectKey(key);
    const limit = options.maxBytes;
    const counter = byteCounter(limit);
    const body = new PassThrough({ highWaterMark: 1024 * 1024 });
    // leavePartsOnError: false makes lib-storage abort the multipart upload when a part fails.
    const upload = new Upload({ client: this.client, params: { Bucket: this.bucket, Key: objectKey, Body: body }, partSize: PART_SIZE, queueSize: QUEUE_SIZE, leavePartsOnError: false });
    const piping = pipeline(source, counter, body, { signal: options.signal });
    const uploading = upload.done();
    try {
      await Promise.all([piping, uploading]);
      return { size: counter.bytes };
    } catch (error) {
      // Whichever side failed first, stop the other. The body ends with an error, never cleanly
      // (a clean end would complete the upload with what arrived); lib-storage then aborts the
      // multipart upload, if it started one, before `done` settles, so no part stays behind.
      body.destroy(error as Error);
      await Promise.allSettled([piping, uploading]);
      const cause = await piping.then(() => error, (pipeError: unknown) => pipeError);
      if (cause instanceof TooLarge || error instanceof TooLarge) throw options.tooLarge?.(limit!) ?? new Error(`More than ${limit} bytes`);
      throw cause;
    }
  }

  read(key: string, range: { start?: number; end?: number } = {}): Readable {
    const objectKey = this.objectKey(key);
    const { client, bucket } = this;
    const size = (k: string) => this.size(k);
    // The request is sent when the stream is first read, as a file stream opens lazily.
    async function* bytes(): AsyncGenerator<Buffer> {
      let header: string | undefined;
      if (range.start !== undefined || range.end !== undefined) {
        // A range past the end reads nothing from a file; S3 servers answer 416 or worse, so clamp it.
        const total = await size(key);
        if (total === undefined) throw Object.assign(new Error(`ENOENT: no stored object ${key}`), { code: "ENOENT" });
        const start = range.start ?? 0;
        const end = Math.min(range.end ?? total - 1, total - 1);
        if (start > end) return;
        header = `bytes=${start}-${end}`;
      }
      let body: Readable;
      try {
        body = (await client.send(new GetObjectCommand({ Bucket: bucket, Key: objectKey, Range: header }))).Body as Readable;
      } catch (error) {
        if (isNotFound(error)) throw Object.assign(new Error(`ENOENT: no stored object ${key}`), { code: "ENOENT" });
        throw error;
      }
      yield* body;
    }
    return Readable.from(bytes(), { objectMode: false });
  }

  async size(key: string): Promise<number | undefined> {
    try {
      return (await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }))).ContentLength;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** S3 has no rename: a server-side copy (no bytes pass through this process), then a delete. */
  async move(from: string, to: string): Promise<void> {
    const source = this.objectKey(from);
    const target = this.objectKey(to);
    const size = await this.size(from);
    if (size === undefined) throw Object.assign(new Error(`ENOENT: no stored object ${from}`), { code: "ENOENT" });
    const copySource = `${this.bucket}/${source}`;
    if (size <= SINGLE_COPY_LIMIT) {
      await this.client.send(new CopyObjectCommand({ Bucket: this.bucket, Key: target, CopySource: copySource }));
    } else {
      const { UploadId } = await this.client.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: target }));
      try {
        const parts: Array<{ ETag?: string; PartNumber: number }> = [];
        for (let start = 0, n = 1; start < size; start += COPY_PART_SIZE, n++) {
          const end = Math.min(start + COPY_PART_SIZE, size) - 1;
          const part = await this.client.send(new UploadPartCopyCommand({ Bucket: this.bucket, Key: target, UploadId, PartNumber: n, CopySource: copySource, CopySourceRange: `bytes=${start}-${end}` }));
          parts.push({ ETag: part.CopyPartResult?.ETag, PartNumber: n });
        }
        await this.client.send(new CompleteMultipartUploadCommand({ Bucket: this.bucket, Key: target, UploadId, MultipartUpload: { Parts: parts } }));
      } catch (error) {
        await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: target, UploadId })).catch(() => undefined);
        throw error;
      }
    }
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: source }));
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
  }

  /** Every object at or under `prefix` (as `rm -rf` of a file or a directory). */
  async deletePrefix(prefix: string): Promise<void> {
    const base = this.objectKey(prefix);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: base }));
    let batch: string[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      await this.client.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }));
      batch = [];
    };
    for await (const object of this.objects(`${base}/`)) {
      if (!("key" in object)) continue;
      batch.push(object.key);
      if (batch.length === 1000) await flush();
    }
    await flush();
  }

  private async *objects(prefix: string, delimiter?: string): AsyncGenerator<{ key: string; modifiedMs: number } | { directory: string }> {
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, Delimiter: delimiter, ContinuationToken: token }));
      for (const o of page.Contents ?? []) if (o.Key) yield { key: o.Key, modifiedMs: o.LastModified?.getTime() ?? 0 };
      for (const p of page.CommonPrefixes ?? []) if (p.Prefix) yield { directory: p.Prefix };
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  /**
   * Multipart uploads a crashed process left unfinished (S3 keeps and bills their parts until they
   * are aborted), staged uploads, and `withLocalPath` downloads older than `maxAgeMs`. An upload
   * counts as stale by its newest part, so a long upload still sending parts is never cut off.
   */
  async removeStaleTemporaries(maxAgeMs: number): Promise<number> {
    const cutoff = Date.now() - maxAgeMs;
    let removed = 0;
    let keyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    do {
      const page = await this.client.send(new ListMultipartUploadsCommand({ Bucket: this.bucket, Prefix: this.prefix || undefined, KeyMarker: keyMarker, UploadIdMarker: uploadIdMarker })).catch((error: { name?: string }) => {
        // Servers without the call (s3rver) rely on the bucket's lifecycle rule alone.
        if (error.name === "NotImplemented") return { Uploads: [], IsTruncated: false, NextKeyMarker: undefined, NextUploadIdMarker: undefined };
        throw error;
      });
      for (const upload of page.Uploads ?? []) {
        if (!upload.Key || !upload.UploadId || (upload.Initiated?.getTime() ?? 0) >= cutoff) continue;
        const parts = await this.client.send(new ListPartsCommand({ Bucket: this.bucket, Key: upload.Key, UploadId: upload.UploadId })).catch(() => undefined);
        const newest = Math.max(upload.Initiated?.getTime() ?? 0, ...(parts?.Parts ?? []).map((p) => p.LastModified?.getTime() ?? 0));
        if (newest >= cutoff) continue;
        await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: upload.Key, UploadId: upload.UploadId }));
        removed++;
      }
      keyMarker = page.IsTruncated ? page.NextKeyMarker : undefined;
      uploadIdMarker = page.IsTruncated ? page.NextUploadIdMarker : undefined;
    } while (keyMarker);
    for await (const entry of this.list("uploads")) {
      if (entry.modifiedMs < cutoff) {
        await this.deletePrefix(`uploads/${entry.name}`);
        removed++;
      }
    }
    for (const name of await readdir(this.scratch).catch(() => [] as string[])) {
      const info = await stat(join(this.scratch, name)).catch(() => undefined);
      if (info && info.mtimeMs < cutoff) {
        await rm(join(this.scratch, name), { force: true, recursive: true });
        removed++;
      }
    }
    return removed;
  }

  /** A "directory" (keys under `name/`) changed when its newest object did. */
  async *list(prefix: string): AsyncIterable<{ name: string; modifiedMs: number }> {
    const base = `${this.objectKey(prefix)}/`;
    for await (const entry of this.objects(base, "/")) {
      if ("key" in entry) {
        yield { name: entry.key.slice(base.length), modifiedMs: entry.modifiedMs };
      } else {
        let newest = 0;
        for await (const inner of this.objects(entry.directory)) if ("key" in inner) newest = Math.max(newest, inner.modifiedMs);
        yield { name: entry.directory.slice(base.length, -1), modifiedMs: newest };
      }
    }
  }

  /** Downloads the object to a scratch file (streamed) for the duration of `work`. */
  async withLocalPath<T>(key: string, work: (path: string) => Promise<T>): Promise<T> {
    await mkdir(this.scratch, { recursive: true });
    const path = join(this.scratch, `${randomBytes(8).toString("hex")}-${key.split("/").pop()}`);
    try {
      await pipeline(this.read(key), createWriteStream(path));
      return await work(path);
    } finally {
      await rm(path, { force: true });
    }
  }
}
