import { isUtf8 } from "node:buffer";

/**
 * What the first bytes of a file say about it: its text encoding (byte order marks, UTF-16 zero
 * bytes, UTF-8 validity) and binary formats by their signatures. The ingestion engine, file
 * inspection, the workbook readers and the GDPdU unpacker all sniff through here.
 */

/** Encodings the inspector reports; everything downstream of `utf8Chunks` is UTF-8. */
export type FileEncoding = "UTF-8" | "UTF-16LE" | "UTF-16BE" | "windows-1252" | "ISO-8859-1";

export interface EncodingInfo {
  encoding: FileEncoding;
  bom: boolean;
}

/** A byte order mark at the start of `bytes`: the encoding it names and its length in bytes. */
export function byteOrderMark(bytes: Uint8Array): { encoding: "UTF-8" | "UTF-16LE" | "UTF-16BE"; length: number } | null {
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { encoding: "UTF-8", length: 3 };
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: "UTF-16LE", length: 2 };
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return { encoding: "UTF-16BE", length: 2 };
  return null;
}

/** Binary formats a tabular upload may turn out to be. */
export type BinaryFormat = "zip" | "ole" | "pdf" | "gzip";

const SIGNATURES: [BinaryFormat, number[]][] = [
  ["zip", [0x50, 0x4b, 0x03, 0x04]],
  ["ole", [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]],
  ["pdf", [0x25, 0x50, 0x44, 0x46]],
  ["gzip", [0x1f, 0x8b]],
];

/** The binary format whose signature `head` starts with (a ZIP: .xlsx, .docx, archives; OLE: .xls), or null. */
export function binaryFormat(head: Uint8Array): BinaryFormat | null {
  for (const [format, signature] of SIGNATURES) if (head.length >= signature.length && signature.every((b, i) => head[i] === b)) return format;
  return null;
}

/**
 * Length of the valid UTF-8 prefix-check: returns false at the first invalid sequence. A sequence
 * cut by the end of the sample is not held against the file.
 */
export function isValidUtf8(bytes: Uint8Array): boolean {
  // Node's check (the same rules: no overlong forms, surrogates or code points past U+10FFFF)
  // takes a 1 MiB head in well under a millisecond; the loop below, about 1.5 ms. It is left for
  // heads it refuses: one cut inside a sequence at its end, which is not held against the file.
  if (isUtf8(bytes)) return true;
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
  const bom = byteOrderMark(head);
  if (bom) return { encoding: bom.encoding, bom: true };
  const utf16 = utf16WithoutBom(head);
  if (utf16) return { encoding: utf16, bom: false };
  if (isValidUtf8(head)) return { encoding: "UTF-8", bom: false };
  for (const b of head) if (b >= 0x80 && b <= 0x9f) return { encoding: "windows-1252", bom: false };
  return { encoding: "ISO-8859-1", bom: false };
}
