import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { fastPush, streamsearchPush } from "./multipart-search.js";

const require = createRequire(import.meta.url);
const SBMH = require(require.resolve("streamsearch", { paths: [require.resolve("busboy")] })) as new (
  needle: Buffer,
  cb: (isMatch: boolean, data: Buffer | undefined, start: number, end: number, isSafeData: boolean) => void,
) => { maxMatches: number; push(chunk: Buffer, pos?: number): number };

/** Every callback of a search over `chunks` (the bytes it was given, copied at once), and each push's result. */
function trace(push: typeof streamsearchPush, needle: Buffer, chunks: Buffer[], maxMatches = Infinity): string[] {
  const out: string[] = [];
  const search = new SBMH(needle, (isMatch, data, start, end, isSafeData) => {
    out.push(`${isMatch} ${data ? data.subarray(start, end).toString("latin1") : "-"} ${isSafeData}`);
  });
  search.maxMatches = maxMatches;
  for (const chunk of chunks) out.push(`= ${push.call(search as never, chunk, 0)}`);
  return out;
}

/** A simple pseudo-random sequence (the same cases on every run). */
function random(seed: number) {
  let s = seed >>> 0;
  return (n: number) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s % n;
  };
}

describe("multipart boundary search by indexOf", () => {
  it("calls back exactly as streamsearch does: boundaries back to back, at a chunk's start or end, split across chunks", () => {
    const needle = Buffer.from("\r\n--b0a");
    const data = "x\r\n--b0a\r\n--b0a\r\n--b0ayy\r\n--b0\r\n--b0a\r\n-\r\n--b0a\r";
    for (let size = 1; size <= data.length; size++) {
      const chunks: Buffer[] = [];
      for (let at = 0; at < data.length; at += size) chunks.push(Buffer.from(data.slice(at, at + size), "latin1"));
      expect(trace(fastPush, needle, chunks)).toEqual(trace(streamsearchPush, needle, chunks));
    }
  });

  it("calls back exactly as streamsearch does, whatever the data, needle and chunking", () => {
    const next = random(15);
    for (let round = 0; round < 3000; round++) {
      // Small alphabets make partial matches, split boundaries and near misses frequent.
      const alphabet = round % 2 ? "\r\n-ab" : "\r\n-0123456789abcdef,\"";
      const needle = Buffer.from(`\r\n--${Array.from({ length: 1 + next(6) }, () => alphabet[next(alphabet.length)]).join("")}`, "latin1");
      const parts: string[] = [];
      for (let i = next(6); i > 0; i--) {
        parts.push(Array.from({ length: next(40) }, () => alphabet[next(alphabet.length)]).join(""));
        if (next(3) === 0) parts.push(needle.toString("latin1").slice(0, next(needle.length + 1)));
        else parts.push(needle.toString("latin1"));
      }
      const data = Buffer.from(parts.join(""), "latin1");
      const chunks: Buffer[] = [];
      for (let at = 0; at < data.length; ) {
        const size = 1 + next(Math.max(1, next(3) === 0 ? 3 : 30));
        chunks.push(data.subarray(at, at + size));
        at += size;
      }
      const maxMatches = next(5) === 0 ? 1 + next(3) : Infinity;
      expect(trace(fastPush, needle, chunks, maxMatches), `${JSON.stringify(data.toString("latin1"))} / ${JSON.stringify(needle.toString("latin1"))}`).toEqual(trace(streamsearchPush, needle, chunks, maxMatches));
    }
  });
});
