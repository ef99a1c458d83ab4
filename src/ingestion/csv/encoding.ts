import { isUtf8 } from "node:buffer";
import { createReadStream } from "node:fs";
import { open } from "node:fs/promises";
import iconv from "iconv-lite";
import { utf8SequenceLength, type EncodingInfo, type FileEncoding } from "../../tabular/bytes.js";

// The byte sniffing lives in src/tabular/bytes.ts, shared with file inspection and the workbook readers.
export { detectEncoding, isValidUtf8, utf8SequenceLength, type EncodingInfo, type FileEncoding } from "../../tabular/bytes.js";

export const READ_CHUNK = 1 << 20;

/** Reads the first `bytes` of a file (the sample every detector works on). */
export async function readHead(path: string, bytes = READ_CHUNK): Promise<Buffer> {
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

const ICONV_NAMES: Record<Exclude<FileEncoding, "UTF-8">, string> = {
  "UTF-16LE": "utf16le",
  "UTF-16BE": "utf16be",
  "windows-1252": "win1252",
  "ISO-8859-1": "latin1",
};

/** Converts a decoded head sample to text (for sniffing) in the file's encoding, without a BOM. */
export function decodeHead(head: Uint8Array, info: EncodingInfo): string {
  if (info.encoding === "UTF-8") {
    const text = new TextDecoder("utf-8").decode(info.bom ? head.subarray(3) : head);
    return text.endsWith("\uFFFD") ? text.slice(0, -1) : text;
  }
  return iconv.decode(Buffer.from(head), ICONV_NAMES[info.encoding], { stripBOM: true });
}

/**
 * The file (a path, or its bytes as chunks) as a stream of UTF-8 chunks without BOM, transcoded when
 * needed. Memory stays at a few chunks whatever the file size.
 */
export async function* utf8Chunks(from: string | AsyncIterable<Uint8Array>, info: EncodingInfo, chunkSize = READ_CHUNK): AsyncGenerator<Uint8Array> {
  const stream = typeof from === "string" ? createReadStream(from, { highWaterMark: chunkSize }) : from;
  if (info.encoding === "UTF-8") {
    let first = true;
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (first && info.bom) {
        first = false;
        // A BOM split across chunks would need chunks under 3 bytes; read chunks are far larger.
        yield chunk.subarray(3);
        continue;
      }
      first = false;
      yield chunk;
    }
    return;
  }
  const decoder = iconv.getDecoder(ICONV_NAMES[info.encoding], { stripBOM: true });
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    const text = decoder.write(chunk);
    if (text.length > 0) yield Buffer.from(text, "utf8");
  }
  const rest = decoder.end();
  if (rest) yield Buffer.from(rest, "utf8");
}

/**
 * Counts invalid UTF-8 sequences across chunks (a sequence cut by a chunk end is completed by the
 * next), and NUL bytes, which PostgreSQL text cannot hold either.
 */
export class Utf8Validator {
  invalid = 0;
  private carry: Uint8Array | null = null;

  /** Checks the next chunk; returns the number of problems found in it. */
  check(chunk: Uint8Array): number {
    const before = this.invalid;
    this.scan(chunk);
    return this.invalid - before;
  }

  private scan(chunk: Uint8Array): void {
    // Fast path for the usual chunk (native check, no NUL, no sequence cut at its end): the byte
    // loop below costs about a millisecond per megabyte.
    if (!this.carry && isUtf8(chunk) && Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).indexOf(0) === -1) return;
    let data = chunk;
    if (this.carry) {
      data = new Uint8Array(this.carry.length + Math.min(chunk.length, 4));
      data.set(this.carry, 0);
      data.set(chunk.subarray(0, 4), this.carry.length);
      const len = utf8SequenceLength(data, 0, data.length);
      const skip = len > 0 ? len - this.carry.length : len === -2 ? chunk.length : 0;
      if (len === -1) this.invalid++;
      this.carry = null;
      data = chunk.subarray(Math.max(0, skip));
      if (len === -2) return;
    }
    const n = data.length;
    let i = 0;
    while (i < n) {
      const b = data[i];
      if (b < 0x80) {
        if (b === 0) this.invalid++;
        i++;
        continue;
      }
      const len = utf8SequenceLength(data, i, n);
      if (len === -2) {
        this.carry = data.slice(i);
        return;
      }
      if (len < 0) {
        this.invalid++;
        i++;
        continue;
      }
      i += len;
    }
  }

  /** Ends the input; returns 1 when it stopped inside a multi-byte sequence. */
  end(): number {
    const cut = this.carry ? 1 : 0;
    this.invalid += cut;
    this.carry = null;
    return cut;
  }
}
