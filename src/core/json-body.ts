import { ValidationError } from "./errors.js";
import { noteExactInteger } from "./exact-integers.js";
import { closingQuote } from "./json-text.js";

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * A body's bytes as text. JSON is UTF-8 (RFC 8259); bytes that are not would become U+FFFD and be
 * stored as such without a word, so they are refused. A leading BOM is dropped, as JSON.parse
 * would refuse it.
 */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new ValidationError("Request body is not valid UTF-8", { problemType: "INCORRECT_DATA_TYPE", identifier: "body" });
  }
}

/**
 * Parses a JSON request body. JSON.parse silently keeps the last of two equal keys, but the
 * query language requires keys to be unique within an object (spec 4.2 rule 2), and a body that
 * says the same thing twice is ambiguous anywhere; so after JSON.parse has vouched for the syntax
 * a light scan rejects duplicate keys, naming the key.
 *
 * The same scan notes integer literals beyond ±(2^53 - 1), which JSON.parse rounds: their exact
 * digits are recorded beside the parsed value (`exact-integers.ts`), so the query language can
 * compare INT64 and MONEY_100 columns with the value the client wrote. Everything else still sees
 * the ordinary (rounded) number, exactly as before.
 *
 * `name` names JSON that is not the whole body (a query parameter such as `variables`): it starts
 * the identifiers of problems, as the parameter's key does in a JSON body.
 */
export function parseJsonBody(text: string, name?: string): unknown {
  assertJsonDepth(text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ValidationError(`${name ?? "Request body"} is not valid JSON: ${(error as Error).message}`, { problemType: "INCORRECT_DATA_TYPE", identifier: name ?? "body" });
  }
  const scan = scanJson(text, true);
  if (scan.duplicate) {
    const { key, path } = scan.duplicate;
    throw new ValidationError(`Key "${key}" appears more than once in the same object; use $and, $or or a set operator to apply a column twice`, {
      identifier: name ? `${name}.${path}` : path,
      values: [key],
    });
  }
  for (const literal of scan.unsafeIntegers) {
    let parent: unknown = value;
    for (const step of literal.path.slice(0, -1)) parent = (parent as Record<string | number, unknown>)[step];
    if (typeof parent === "object" && parent !== null) noteExactInteger(parent, literal.path[literal.path.length - 1], literal.text);
  }
  return value;
}

/**
 * The deepest nesting of objects and arrays a JSON body may have. Every reader after the parser
 * (input coercion, the query language, response writers) walks values recursively: a body of
 * 100,000 nested arrays overflowed the stack there. No body of this API comes near the limit
 * (a filter of 32 nested $and groups is 65 levels).
 */
export const MAX_JSON_DEPTH = 128;

/**
 * Refuses text nested deeper than MAX_JSON_DEPTH, naming the top-level key it sits under. Runs
 * before JSON.parse, so a deep body costs one linear scan and nothing more; strings are skipped,
 * and anything that is not JSON is left for JSON.parse to describe.
 */
export function assertJsonDepth(text: string, limit = MAX_JSON_DEPTH): void {
  let depth = 0;
  let rootIsObject = false;
  let expectKey = false;
  let topKey: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const end = closingQuote(text, i);
      if (expectKey) topKey = text.slice(i + 1, end);
      expectKey = false;
      i = end;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > limit) {
        const where = topKey ?? "body";
        throw new ValidationError(`${where} nests objects and arrays deeper than ${limit} levels, the limit of a JSON body`, {
          identifier: where,
          problemType: "ILLEGAL_ARGUMENT",
          values: [String(limit)],
        });
      }
      if (depth === 1) expectKey = rootIsObject = c === 0x7b;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
    } else if (c === 0x2c /* , */ && depth === 1 && rootIsObject) {
      expectKey = true;
    }
  }
}

interface Frame {
  keys: Set<string> | null; // null for arrays
  path: string;
  expectKey: boolean;
  lastKey?: string;
  index: number;
}

/** Scans syntactically valid JSON; returns the first key repeated within one object. */
export function findDuplicateKey(text: string): { key: string; path: string } | undefined {
  return scanJson(text, false).duplicate;
}

/** An integer literal JSON.parse cannot represent exactly, and where it sits (keys and indexes). */
interface UnsafeInteger {
  path: Array<string | number>;
  text: string;
}

const isNumberStart = (c: number) => c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39);
const isNumberChar = (c: number) => isNumberStart(c) || c === 0x2b /* + */ || c === 0x2e /* . */ || c === 0x65 /* e */ || c === 0x45; /* E */

/**
 * One pass over syntactically valid JSON: the first repeated key (scanning stops there) and,
 * when `integers` is set, every integer literal beyond Number.MAX_SAFE_INTEGER in magnitude.
 */
function scanJson(text: string, integers: boolean): { duplicate?: { key: string; path: string }; unsafeIntegers: UnsafeInteger[] } {
  const stack: Frame[] = [];
  const unsafeIntegers: UnsafeInteger[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x7b /* { */) {
      const parent = stack[stack.length - 1];
      stack.push({ keys: new Set(), path: childPath(parent), expectKey: true, index: 0 });
      i++;
    } else if (c === 0x5b /* [ */) {
      const parent = stack[stack.length - 1];
      stack.push({ keys: null, path: childPath(parent), expectKey: false, index: 0 });
      i++;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
      i++;
    } else if (c === 0x2c /* , */) {
      const top = stack[stack.length - 1];
      if (top?.keys) top.expectKey = true;
      else if (top) top.index++;
      i++;
    } else if (c === 0x22 /* " */) {
      const end = closingQuote(text, i);
      const top = stack[stack.length - 1];
      if (top?.keys && top.expectKey) {
        const raw = text.slice(i, end + 1);
        const key = raw.includes("\\") ? (JSON.parse(raw) as string) : raw.slice(1, -1);
        if (top.keys.has(key)) return { duplicate: { key, path: top.path ? `${top.path}.${key}` : key }, unsafeIntegers };
        top.keys.add(key);
        top.lastKey = key;
        top.expectKey = false;
      }
      i = end + 1;
    } else if (integers && isNumberStart(c)) {
      let end = i + 1;
      while (end < n && isNumberChar(text.charCodeAt(end))) end++;
      // 2^53 has 16 digits: shorter literals are exact; longer integer ones are checked.
      if (end - i >= 16) {
        const literal = text.slice(i, end);
        if (/^-?\d+$/.test(literal) && !Number.isSafeInteger(Number(literal))) unsafeIntegers.push({ path: stackPath(stack), text: literal });
      }
      i = end;
    } else {
      i++;
    }
  }
  return { unsafeIntegers };
}

/** Keys and indexes from the root to the value being scanned (the last one names it in its parent). */
function stackPath(stack: Frame[]): Array<string | number> {
  return stack.map((frame) => (frame.keys ? (frame.lastKey ?? "") : frame.index));
}

function childPath(parent: Frame | undefined): string {
  if (!parent) return "";
  if (!parent.keys) return `${parent.path}[${parent.index}]`;
  const key = parent.lastKey ?? "";
  return parent.path ? `${parent.path}.${key}` : key;
}

