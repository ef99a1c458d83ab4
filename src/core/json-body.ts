import { ValidationError } from "./errors.js";

/**
 * Parses a JSON request body. JSON.parse silently keeps the last of two equal keys, but the
 * query language requires keys to be unique within an object (spec 4.2 rule 2), and a body that
 * says the same thing twice is ambiguous anywhere; so after JSON.parse has vouched for the syntax
 * a light scan rejects duplicate keys, naming the key.
 */
export function parseJsonBody(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ValidationError(`Request body is not valid JSON: ${(error as Error).message}`, { problemType: "INCORRECT_DATA_TYPE" });
  }
  const duplicate = findDuplicateKey(text);
  if (duplicate) {
    throw new ValidationError(`Key "${duplicate.key}" appears more than once in the same object; use $and, $or or a set operator to apply a column twice`, {
      identifier: duplicate.path,
      values: [duplicate.key],
    });
  }
  return value;
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
  const stack: Frame[] = [];
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
      const end = stringEnd(text, i);
      const top = stack[stack.length - 1];
      if (top?.keys && top.expectKey) {
        const raw = text.slice(i, end + 1);
        const key = raw.includes("\\") ? (JSON.parse(raw) as string) : raw.slice(1, -1);
        if (top.keys.has(key)) return { key, path: top.path ? `${top.path}.${key}` : key };
        top.keys.add(key);
        top.lastKey = key;
        top.expectKey = false;
      }
      i = end + 1;
    } else {
      i++;
    }
  }
  return undefined;
}

function childPath(parent: Frame | undefined): string {
  if (!parent) return "";
  if (!parent.keys) return `${parent.path}[${parent.index}]`;
  const key = parent.lastKey ?? "";
  return parent.path ? `${parent.path}.${key}` : key;
}

function stringEnd(text: string, start: number): number {
  let i = start + 1;
  for (;;) {
    const quote = text.indexOf('"', i);
    if (quote < 0) return text.length - 1;
    let backslashes = 0;
    for (let j = quote - 1; j > start && text.charCodeAt(j) === 0x5c; j--) backslashes++;
    if (backslashes % 2 === 0) return quote;
    i = quote + 1;
  }
}
