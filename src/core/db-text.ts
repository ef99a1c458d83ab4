/**
 * PostgreSQL `text` cannot hold U+0000 ("invalid byte sequence for encoding UTF8: 0x00") and
 * `jsonb` refuses the `\u0000` escape (22P05 "unsupported Unicode escape sequence"). Text read from
 * files reaches the database in many shapes (first line, snippets, samples, column names, error
 * messages), so NUL characters are removed where values are bound for the database: every Prisma
 * write (see `app-services.ts`) and the job runtime's error messages. The staging COPY drops NUL
 * bytes the same way (`CopyRowEncoder`), so what is stored about a file matches its staged rows.
 */

/** `text` without NUL characters (the same string when it has none). */
export function textWithoutNul(text: string): string {
  return text.includes("\0") ? text.replaceAll("\0", "") : text;
}

/**
 * A value with every string (and object key) inside plain objects and arrays freed of NUL
 * characters. Copy on write: the same value comes back when nothing had to change, so the usual
 * write costs one walk and no allocation. Class instances (Date, Decimal, Buffer, Prisma's null
 * markers) are left as they are.
 */
export function withoutNul<T>(value: T): T {
  if (typeof value === "string") return textWithoutNul(value) as T;
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const cleaned = withoutNul(value[i]);
      if (cleaned !== value[i]) {
        copy ??= value.slice();
        copy[i] = cleaned;
      }
    }
    return (copy ?? value) as T;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return value;
  const source = value as Record<string, unknown>;
  let copy: Record<string, unknown> | null = null;
  for (const key of Object.keys(source)) {
    const cleaned = withoutNul(source[key]);
    const cleanKey = textWithoutNul(key);
    if (cleaned === source[key] && cleanKey === key) continue;
    if (!copy) {
      // Rebuilt in the original key order (JSON columns keep it).
      copy = {};
      for (const k of Object.keys(source)) copy[textWithoutNul(k)] = source[k];
    }
    copy[cleanKey] = cleaned;
  }
  return (copy ?? value) as T;
}
