import { ValidationError } from "./errors.js";

/** One element of a top-level JSON array: its source text (not yet parsed) and its index. */
export interface ArrayElement {
  index: number;
  text: string;
}

function invalid(reason: string): ValidationError {
  return new ValidationError(`Request body is not valid JSON: ${reason}`, { problemType: "INCORRECT_DATA_TYPE", identifier: "body" });
}

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);

/**
 * Splits a byte stream holding one top-level JSON array into the source text of its elements, so
 * that a page of a million rows never exists as one string or one array of objects: only the
 * element being read is kept. The splitter checks the array's own syntax (brackets, commas,
 * nothing after the closing bracket); each element's syntax is left to the caller's JSON.parse.
 *
 * A body that does not start with `[` is not an array: `notArray(text)` receives the whole body
 * (whose size the caller has already bounded) so the caller can say what it is instead.
 */
export async function* jsonArrayElements(source: AsyncIterable<Buffer | Uint8Array>, notArray: (text: string) => never): AsyncGenerator<ArrayElement> {
  const decoder = new TextDecoder("utf-8");
  const iterator = source[Symbol.asyncIterator]();
  let buffer = "";
  let ended = false;
  /** Consumed text before `buffer`, for error positions. */
  let offset = 0;
  const more = async (): Promise<boolean> => {
    if (ended) return false;
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      buffer += decoder.decode();
      return false;
    }
    buffer += decoder.decode(next.value, { stream: true });
    return true;
  };

  // Leading whitespace, then the opening bracket.
  let i = 0;
  for (;;) {
    while (i < buffer.length && WS.has(buffer.charCodeAt(i))) i++;
    if (i < buffer.length || !(await more())) break;
  }
  if (i >= buffer.length || buffer.charCodeAt(i) !== 0x5b /* [ */) {
    while (await more());
    return notArray(buffer);
  }
  i++;

  // States between elements: expecting an element (or `]` right after `[`), or `,`/`]` after one.
  let index = 0;
  let afterElement = false;
  for (;;) {
    while (i < buffer.length && WS.has(buffer.charCodeAt(i))) i++;
    if (i >= buffer.length) {
      offset += buffer.length;
      buffer = "";
      i = 0;
      if (!(await more())) throw invalid("Unexpected end of JSON input");
      continue;
    }
    const c = buffer.charCodeAt(i);
    if (afterElement) {
      if (c === 0x2c /* , */) {
        afterElement = false;
        i++;
        continue;
      }
      if (c === 0x5d /* ] */) {
        i++;
        break;
      }
      throw invalid(`Expected ',' or ']' after array element ${index - 1} at position ${offset + i}`);
    }
    if (c === 0x5d && index === 0) {
      i++;
      break;
    }
    if (c === 0x5d || c === 0x2c) throw invalid(`Unexpected token '${String.fromCharCode(c)}' at position ${offset + i}, where array element ${index} should be`);

    // One element: scan to its end, keeping string and nesting state across chunk borders.
    let start = i;
    let depth = 0;
    let inString = false;
    let escaped = false;
    let done = false;
    const scalar = c !== 0x7b && c !== 0x5b && c !== 0x22;
    for (;;) {
      const n = buffer.length;
      while (i < n) {
        const ch = buffer.charCodeAt(i);
        if (inString) {
          if (escaped) escaped = false;
          else if (ch === 0x5c) escaped = true;
          else if (ch === 0x22) {
            inString = false;
            if (depth === 0) {
              i++;
              done = true;
              break;
            }
          }
        } else if (scalar) {
          if (ch === 0x2c || ch === 0x5d || WS.has(ch)) {
            done = true;
            break;
          }
        } else if (ch === 0x22) inString = true;
        else if (ch === 0x7b || ch === 0x5b) depth++;
        else if (ch === 0x7d || ch === 0x5d) {
          depth--;
          if (depth === 0) {
            i++;
            done = true;
            break;
          }
        }
        i++;
      }
      if (done) break;
      // The element continues in the next chunk: keep only its text.
      offset += start;
      buffer = buffer.slice(start);
      i -= start;
      start = 0;
      if (!(await more())) {
        if (scalar && i > 0) break;
        throw invalid("Unexpected end of JSON input");
      }
    }
    yield { index, text: buffer.slice(start, i) };
    index++;
    afterElement = true;
  }

  // Only whitespace may follow the closing bracket.
  for (;;) {
    while (i < buffer.length && WS.has(buffer.charCodeAt(i))) i++;
    if (i < buffer.length) throw invalid(`Unexpected non-whitespace character after JSON at position ${offset + i}`);
    offset += buffer.length;
    buffer = "";
    i = 0;
    if (!(await more())) return;
  }
}
