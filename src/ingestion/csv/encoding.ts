import { isUtf8 } from "node:buffer";
import { createReadStream } from "node:fs";
import { open } from "node:fs/promises";
import iconv from "iconv-lite";

/** Encodings the inspector reports; everything downstream of `utf8Chunks` is UTF-8. */
export type FileEncoding = "UTF-8" | "UTF-16LE" | "UTF-16BE" | "windows-1252" | "ISO-8859-1";

export interface EncodingInfo {
  encoding: FileEncoding;
  bom: boolean;
}

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

/**
 * Length of the valid UTF-8 prefix-check: returns false at the first invalid sequence. A sequence
 * cut by the end of the sample is not held against the file.
 */
export function isValidUtf8(bytes: Uint8Array): boolean {
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const b = bytes[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    const len = utf8SequenceLength(bytes, i, n);
    if (len === -2) return true; // truncated at the end of the sample
    if (len < 0) return false;
    i += len;
  }
  return true;
}

/**
 * Length of the UTF-8 sequence at `i` (2-4), -1 when invalid, -2 when cut off by `end`.
 * Overlong forms and surrogates are invalid, as PostgreSQL would refuse them.
 */
export function utf8SequenceLength(bytes: Uint8Array, i: number, end: number): number {
  const b = bytes[i];
  let len: number;
  let min: number;
  if (b >= 0xc2 && b <= 0xdf) {
    len = 2;
    min = 0x80;
  } else if (b >= 0xe0 && b <= 0xef) {
    len = 3;
    min = 0x800;
  } else if (b >= 0xf0 && b <= 0xf4) {
    len = 4;
    min = 0x10000;
  } else {
    return -1;
  }
  if (i + len > end) {
    for (let k = i + 1; k < end; k++) if ((bytes[k] & 0xc0) !== 0x80) return -1;
    return -2;
  }
  let cp = b & (len === 2 ? 0x1f : len === 3 ? 0x0f : 0x07);
  for (let k = 1; k < len; k++) {
    const c = bytes[i + k];
    if ((c & 0xc0) !== 0x80) return -1;
    cp = (cp << 6) | (c & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return -1;
  return len;
}

/** Zero bytes on one parity of most positions: UTF-16 without a byte order mark. */
function utf16WithoutBom(head: Uint8Array): FileEncoding | null {
  const n = Math.min(head.length, 4096) & ~1;
  if (n < 8) return null;
  let evenZeros = 0;
  let oddZeros = 0;
  for (let i = 0; i < n; i += 2) {
    if (head[i] === 0) evenZeros++;
    if (head[i + 1] === 0) oddZeros++;
  }
  const pairs = n / 2;
  if (oddZeros > pairs * 0.6 && evenZeros < pairs * 0.1) return "UTF-16LE";
  if (evenZeros > pairs * 0.6 && oddZeros < pairs * 0.1) return "UTF-16BE";
  return null;
}

/**
 * Byte order marks first; then UTF-16 by its zero bytes; then UTF-8 if the sample is valid UTF-8;
 * otherwise a single-byte Western encoding (Windows-1252 when it uses the 0x80-0x9F range, which
 * ISO-8859-1 reserves for control characters no export contains).
 */
export function detectEncoding(head: Uint8Array): EncodingInfo {
  if (head.length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return { encoding: "UTF-8", bom: true };
  if (head.length >= 2 && head[0] === 0xff && head[1] === 0xfe) return { encoding: "UTF-16LE", bom: true };
  if (head.length >= 2 && head[0] === 0xfe && head[1] === 0xff) return { encoding: "UTF-16BE", bom: true };
  const utf16 = utf16WithoutBom(head);
  if (utf16) return { encoding: utf16, bom: false };
  if (isValidUtf8(head)) return { encoding: "UTF-8", bom: false };
  for (const b of head) if (b >= 0x80 && b <= 0x9f) return { encoding: "windows-1252", bom: false };
  return { encoding: "ISO-8859-1", bom: false };
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
