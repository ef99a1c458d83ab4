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
 * case-insensitive alternations with word boundaries, and far slower still when some alternatives
 * are phrases (`\s+`): 375 us per memo for the 23 suspicious keywords. So a substring test guards
 * it (every match of a word contains its tokens in order: `%per%ceo%`), and behind the guard the
 * single words share one regex while each phrase has its own, with its own guard: the same matches,
 * at the cost of the substring tests for almost every text.
 */
export function wordsMatch(column: string, words: readonly string[]): string | null {
  const cleaned = [...new Set(words.map((w) => w.trim().toLowerCase()).filter((w) => w.length > 0))];
  if (cleaned.length === 0) return null;
  const guard = (word: string) => `%${word.split(/\s+/).map((t) => t.replace(/[\\%_]/g, "\\$&")).join("%")}%`;
  const single = cleaned.filter((w) => !/\s/.test(w));
  const checks = single.length === 0 ? [] : [`${column} ~* ${text(wordsPattern(single)!)}`];
  for (const phrase of cleaned.filter((w) => /\s/.test(w))) checks.push(`(lower(${column}) LIKE ${text(guard(phrase))} AND ${column} ~* ${text(wordsPattern([phrase])!)})`);
  const guards = [...new Set(cleaned.map(guard))];
  return `(lower(${column}) LIKE ANY (${textArray(guards)}) AND ${checks.length === 1 ? checks[0] : `(${checks.join(" OR ")})`})`;
}

/** Linear ramp of a deviation into a 0..10000 score: 0 at `from`, 10000 at `to` and beyond. */
export function ramp(expression: string, from: number, to: number): string {
  const span = Math.max(to - from, 1e-9);
  return `least(10000, greatest(0, round(((${expression}) - ${num(from)}) * 10000.0 / ${num(span)})))`;
}
