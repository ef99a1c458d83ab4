import { createReadStream } from "node:fs";
import { readHead, READ_CHUNK } from "./csv/encoding.js";

/**
 * The bytes the engine reads: a stored file (read as often as needed), or bytes arriving once (an
 * upload being received), which the engine reads while they arrive instead of after they are stored.
 */
export interface ByteSource {
  /** The first `bytes` of the content (all of it when shorter). */
  head(bytes?: number): Promise<Uint8Array>;
  /** The content from its first byte. A source that is not `rereadable` can be read once only. */
  chunks(): AsyncIterable<Uint8Array>;
  readonly rereadable: boolean;
  /** Total bytes when known in advance (arriving bytes: what the sender declared); a hint only. */
  readonly size?: number | null;
}

/** A file on disk. */
export function fileSource(path: string): ByteSource {
  return {
    head: (bytes = READ_CHUNK) => readHead(path, bytes),
    chunks: () => createReadStream(path, { highWaterMark: READ_CHUNK }) as AsyncIterable<Uint8Array>,
    rereadable: true,
  };
}

export function byteSource(from: string | ByteSource): ByteSource {
  return typeof from === "string" ? fileSource(from) : from;
}

/**
 * Bytes handed over as they arrive (`push`, then `end`), read once through `chunks()`. The pieces
 * (a network read is often 64 KiB) are copied into chunks of about `READ_CHUNK`, as the engine
 * reads files: the reader owns them (its tokenizer rewrites quoted fields in place, which must not
 * touch the bytes on their way to storage), and its per-chunk work stays the same. A
 * `push` resolves once its bytes are taken, so the sender goes at the reader's pace and no more
 * than about two chunks wait in memory. `fail` ends the reading with an error; `abandon` is the
 * reader's side: it stops reading, and later pushes are dropped.
 */
export class ArrivingBytes implements ByteSource {
  readonly rereadable = false;
  private readonly pieces: Uint8Array[] = [];
  private gathered = 0;
  /** Chunks ready for the reader. */
  private readonly ready: Uint8Array[] = [];
  private headBytes: Uint8Array | null = null;
  private ended = false;
  private failure: Error | null = null;
  private abandoned = false;
  private started = false;
  private wakeReader: (() => void) | null = null;
  private wakeWriter: (() => void) | null = null;
  /** Bytes pushed so far. */
  received = 0;

  constructor(
    private readonly chunkSize = READ_CHUNK,
    /** What the sender declared it will send (e.g. a request's length), if anything. */
    readonly size: number | null = null,
  ) {}

  async push(bytes: Uint8Array): Promise<void> {
    if (this.abandoned || this.ended) return;
    this.received += bytes.length;
    this.pieces.push(bytes);
    this.gathered += bytes.length;
    if (this.gathered >= this.chunkSize) this.seal();
    // Back-pressure: wait while the reader has a full chunk it has not taken yet.
    while (this.ready.length > 1 && !this.abandoned) await new Promise<void>((resolve) => (this.wakeWriter = resolve));
  }

  end(): void {
    if (this.ended) return;
    this.seal();
    this.ended = true;
    this.wake();
  }

  /** Ends the bytes with an error (no-op once they ended normally). */
  fail(error: Error): void {
    if (this.ended) return;
    this.failure = error;
    this.ended = true;
    this.wake();
  }

  abandon(): void {
    this.abandoned = true;
    this.pieces.length = 0;
    this.ready.length = 0;
    this.wakeWriter?.();
  }

  private seal(): void {
    if (this.gathered === 0) return;
    // Always a copy: the tokenizer rewrites quoted fields in place, and the pieces are the sender's
    // (an upload's bytes on their way to storage).
    const chunk = Buffer.concat(this.pieces, this.gathered);
    this.pieces.length = 0;
    this.gathered = 0;
    this.ready.push(chunk);
    this.wake();
  }

  private wake(): void {
    const reader = this.wakeReader;
    this.wakeReader = null;
    reader?.();
  }

  private async next(): Promise<Uint8Array | null> {
    for (;;) {
      if (this.failure) throw this.failure;
      const chunk = this.ready.shift();
      if (chunk) {
        const writer = this.wakeWriter;
        this.wakeWriter = null;
        writer?.();
        return chunk;
      }
      if (this.ended) return null;
      await new Promise<void>((resolve) => (this.wakeReader = resolve));
    }
  }

  /** The first chunk (at least `bytes` unless the content is shorter), kept for `chunks()`. */
  async head(bytes = this.chunkSize): Promise<Uint8Array> {
    if (this.started) throw new Error("The head of arriving bytes is read before them");
    const parts: Uint8Array[] = this.headBytes ? [this.headBytes] : [];
    let length = this.headBytes?.length ?? 0;
    while (length < bytes) {
      const chunk = await this.next();
      if (!chunk) break;
      parts.push(chunk);
      length += chunk.length;
    }
    this.headBytes = parts.length === 1 ? parts[0] : Buffer.concat(parts, length);
    return this.headBytes.subarray(0, Math.min(bytes, length));
  }

  async *chunks(): AsyncGenerator<Uint8Array> {
    if (this.started) throw new Error("Arriving bytes can be read once only");
    this.started = true;
    if (this.headBytes) {
      const head = this.headBytes;
      this.headBytes = null;
      yield head;
    }
    for (;;) {
      const chunk = await this.next();
      if (!chunk) return;
      yield chunk;
    }
  }
}
