// busboy finds the boundaries of a multipart body with streamsearch's Boyer-Moore-Horspool search,
// written in JavaScript. Its skip is short whenever the data holds the boundary's own characters,
// and boundaries end in hex digits or alphanumerics (curl, browsers, our clients) while ledgers are
// full of digits: for a 1M-line upload (108 MiB) the search costs 30-80 ms of the server's main
// thread, which Buffer.indexOf (native) does in about 10. This replaces the search where
// streamsearch itself does the most work, a chunk searched from an empty lookbehind: the first
// full match by indexOf, else the chunk's tail that could begin the boundary kept in the lookbehind
// exactly as streamsearch keeps it, with the same callbacks in the same order (the equivalence is
// tested on random data, chunkings and needles). A chunk that starts with bytes in the lookbehind
// (a boundary possibly split across chunks) goes through streamsearch's own code.
import { createRequire } from "node:module";

type Callback = (isMatch: boolean, data: Buffer | undefined, start: number, end: number, isSafeData: boolean) => void;

interface StreamSearch {
  maxMatches: number;
  matches: number;
  _cb: Callback;
  _lookbehindSize: number;
  _lookbehind: Buffer;
  _needle: Buffer;
  _bufPos: number;
  push(chunk: Buffer | string, pos?: number): number;
}

const require = createRequire(import.meta.url);
/** busboy's own copy: the one module instance it constructs its searches from. */
const SBMH = require(require.resolve("streamsearch", { paths: [require.resolve("busboy")] })) as { prototype: StreamSearch; patchedByIndexOf?: true };

/** streamsearch's push, for what the fast path leaves to it. */
export const streamsearchPush = SBMH.prototype.push;

/** One step of streamsearch's `feed` with an empty lookbehind, by indexOf. */
function feedEmpty(self: StreamSearch, data: Buffer): number {
  const needle = self._needle;
  const needleLen = needle.length;
  const len = data.length;
  const start = self._bufPos;
  const at = start <= len - needleLen ? data.indexOf(needle, start) : -1;
  if (at >= 0) {
    ++self.matches;
    if (at > 0) self._cb(true, data, start, at, true);
    else self._cb(true, undefined, 0, 0, true);
    return (self._bufPos = at + needleLen);
  }
  // No full match: the earliest position whose remaining bytes begin the needle (a window starting
  // earlier would be a full one) goes to the lookbehind, as streamsearch does.
  let pos = Math.max(start, len - needleLen + 1);
  const first = needle[0];
  while (pos < len) {
    if (data[pos] === first && needle.compare(data, pos, len, 0, len - pos) === 0) {
      data.copy(self._lookbehind, 0, pos, len);
      self._lookbehindSize = len - pos;
      break;
    }
    ++pos;
  }
  if (pos > 0) self._cb(false, data, start, pos < len ? pos : len, true);
  self._bufPos = len;
  return len;
}

function push(this: StreamSearch, chunk: Buffer | string, pos?: number): number {
  if (this._lookbehindSize !== 0 || !Buffer.isBuffer(chunk)) return streamsearchPush.call(this, chunk, pos);
  const chunkLen = chunk.length;
  this._bufPos = pos || 0;
  let result: number | undefined;
  // A step leaves bytes in the lookbehind only at the chunk's end (it then returns chunkLen).
  while (result !== chunkLen && this.matches < this.maxMatches) result = feedEmpty(this, chunk);
  return result!;
}

/** Installs the indexOf search into streamsearch (once; busboy's parsers then use it). */
export function installFastMultipartSearch(): void {
  if (SBMH.patchedByIndexOf) return;
  SBMH.prototype.push = push;
  SBMH.patchedByIndexOf = true;
}

/** The fast search's push, for the equivalence test (installed or not). */
export const fastPush = push;
