/**
 * Literals for the engine's generated SQL. CREATE TABLE AS cannot take bind parameters, so the few
 * values a statement needs (settings, dates, weights) are written into it: numbers checked finite,
 * strings quoted, identifiers only from the engine's own names.
 */

export function num(value: unknown): string {
  const n = Number(value);
  if (!Number.isFinite(n)) throw new Error(`not a finite number: ${String(value)}`);
  return String(n);
}

export function int(value: unknown): string {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new Error(`not an integer: ${String(value)}`);
  return String(n);
}

export function text(value: string): string {
  if (value.includes("\0")) throw new Error("NUL in a SQL literal");
  return `'${value.replace(/'/g, "''")}'`;
}

export function textArray(values: readonly string[]): string {
  return values.length === 0 ? "'{}'::text[]" : `ARRAY[${values.map(text).join(", ")}]::text[]`;
}

export function date(value: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) throw new Error(`not a date: ${value}`);
  return `date '${value}'`;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

export function ident(name: string): string {
  if (!NAME.test(name)) throw new Error(`not an engine identifier: ${name}`);
  return `"${name}"`;
}

/** `schema.table` quoted; names come from ids the engine checked. */
export function table(name: string): string {
  return name.split(".").map(ident).join(".");
}

/** A case-insensitive whole-word regular expression matching any of the words (for `~*`). */
export function wordsPattern(words: readonly string[]): string | null {
  const cleaned = words.map((w) => w.trim().toLowerCase()).filter((w) => w.length > 0);
  if (cleaned.length === 0) return null;
  const escaped = cleaned.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/\s+/g, "\\s+"));
  return `\\m(${escaped.join("|")})\\M`;
}

/**
 * SQL condition: `column` contains any of the words as whole words, any case (`~*` of
 * `wordsPattern`), or null when there are no words. PostgreSQL's regex engine is slow on
 * case-insensitive alternations with word boundaries (40 s for 23 keywords over 200,000 memos on a
 * loaded machine), so a substring test on the first token of each word guards it: the regex runs
 * only on the few texts that contain one (every match contains its word's first token).
 */
export function wordsMatch(column: string, words: readonly string[]): string | null {
  const pattern = wordsPattern(words);
  if (!pattern) return null;
  const tokens = [...new Set(words.map((w) => w.trim().toLowerCase().split(/\s+/)[0]).filter((w) => w.length > 0))];
  const likes = tokens.map((t) => `%${t.replace(/[\\%_]/g, "\\$&")}%`);
  return `(lower(${column}) LIKE ANY (${textArray(likes)}) AND ${column} ~* ${text(pattern)})`;
}

/** Linear ramp of a deviation into a 0..10000 score: 0 at `from`, 10000 at `to` and beyond. */
export function ramp(expression: string, from: number, to: number): string {
  const span = Math.max(to - from, 1e-9);
  return `least(10000, greatest(0, round(((${expression}) - ${num(from)}) * 10000.0 / ${num(span)})))`;
}
