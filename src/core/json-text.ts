/**
 * Reading JSON as text, without JSON.parse, where the parsed value would lose what the sender
 * wrote: JavaScript objects put integer-like keys ("2023") before all others whatever their place
 * in the text, and numbers become doubles (12345678901234567890 -> 12345678901234567000,
 * 1.10 -> 1.1). These helpers keep the source order of keys and every token as written.
 *
 * They expect syntactically valid JSON (callers check it first, e.g. with JSON.parse); on other
 * input they do not throw but their result is unspecified.
 */

/** What a member's value is; decides how `raw` is to be read. */
export const JsonKind = { String: 0, Number: 1, True: 2, False: 3, Null: 4, Object: 5, Array: 6 } as const;
export type JsonKind = (typeof JsonKind)[keyof typeof JsonKind];

function isWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** Index of the quote closing the string that opens at `start` (the last index when it is unterminated). */
export function closingQuote(text: string, start: number): number {
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

/** Index just past the value starting at `start` (a string, object, array, number or literal). */
function valueEnd(text: string, start: number): number {
  const c = text.charCodeAt(start);
  if (c === 0x22) return closingQuote(text, start) + 1;
  const n = text.length;
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    for (let i = start; i < n; i++) {
      const ch = text.charCodeAt(i);
      if (ch === 0x22) i = closingQuote(text, i);
      else if (ch === 0x7b || ch === 0x5b) depth++;
      else if ((ch === 0x7d || ch === 0x5d) && --depth === 0) return i + 1;
    }
    return n;
  }
  let i = start + 1;
  while (i < n) {
    const ch = text.charCodeAt(i);
    if (ch === 0x2c || ch === 0x7d || ch === 0x5d || isWhitespace(ch)) break;
    i++;
  }
  return i;
}

function kindOf(c: number): JsonKind {
  switch (c) {
    case 0x22:
      return JsonKind.String;
    case 0x7b:
      return JsonKind.Object;
    case 0x5b:
      return JsonKind.Array;
    case 0x74:
      return JsonKind.True;
    case 0x66:
      return JsonKind.False;
    case 0x6e:
      return JsonKind.Null;
    default:
      return JsonKind.Number;
  }
}

/** The content of a JSON string token (with its quotes). */
export function decodeJsonString(token: string): string {
  // Most strings hold no escape: slicing is much cheaper than JSON.parse.
  return token.indexOf("\\") < 0 ? token.slice(1, -1) : (JSON.parse(token) as string);
}

/**
 * The same JSON without whitespace between tokens (strings untouched), so it fits on one line.
 * Returns `text` itself when there is nothing to remove.
 */
export function compactJson(text: string): string {
  const n = text.length;
  let out = "";
  let copied = 0;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = closingQuote(text, i) + 1;
    } else if (isWhitespace(c)) {
      out += text.slice(copied, i);
      while (i < n && isWhitespace(text.charCodeAt(i))) i++;
      copied = i;
    } else {
      i++;
    }
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/**
 * Calls `visit` for each member of the JSON object `text`, in the order of the text: the decoded
 * key, the value's source text (`raw`, exactly as written) and its kind. Nested values are not
 * entered.
 */
export function forEachMember(text: string, visit: (key: string, raw: string, kind: JsonKind) => void): void {
  const n = text.length;
  let i = text.indexOf("{");
  if (i < 0) return;
  i++;
  while (i < n) {
    let c = text.charCodeAt(i);
    if (c !== 0x22) {
      if (c === 0x7d) return;
      i++; // whitespace or the comma between members
      continue;
    }
    const keyEnd = closingQuote(text, i) + 1;
    const key = decodeJsonString(text.slice(i, keyEnd));
    i = keyEnd;
    while (i < n && (c = text.charCodeAt(i)) !== 0x3a /* : */) i++;
    i++;
    while (i < n && isWhitespace(text.charCodeAt(i))) i++;
    const end = valueEnd(text, i);
    visit(key, text.slice(i, end), kindOf(text.charCodeAt(i)));
    i = end;
  }
}

/** The keys of the JSON object `text`, in the order of the text. */
export function objectKeys(text: string): string[] {
  const keys: string[] = [];
  forEachMember(text, (key) => keys.push(key));
  return keys;
}
