/**
 * Exact digits of integer literals that a JavaScript number cannot hold (beyond ±(2^53 - 1)).
 *
 * JSON.parse rounds 9223372036854775807 to 9223372036854775808. Turning such literals into BigInt
 * would break every consumer that expects numbers (GraphQL Int/Float coercion, JSON.stringify of
 * free-form settings), so parsed values stay ordinary numbers and the exact text is kept beside
 * them, keyed by the containing object or array and the key or index. Only the query language
 * asks (`exactIntegerText`), for INT64 and MONEY_100 comparisons. Values reach it as the very
 * objects the parser built (REST bodies and GraphQL JSON-scalar variables keep object identity;
 * documents with such literals inline skip graphql-jit, which would re-create them from JSON, see
 * graphql/documents.ts), and entries disappear with those objects.
 */
const registry = new WeakMap<object, Map<string | number, string>>();

export function noteExactInteger(parent: object, key: string | number, text: string): void {
  let entries = registry.get(parent);
  if (!entries) registry.set(parent, (entries = new Map()));
  entries.set(Array.isArray(parent) ? Number(key) : String(key), text);
}

/** The literal's exact decimal digits when `parent[key]` was parsed from one too large to be exact. */
export function exactIntegerText(parent: unknown, key: string | number): string | undefined {
  if (typeof parent !== "object" || parent === null) return undefined;
  return registry.get(parent)?.get(Array.isArray(parent) ? Number(key) : String(key));
}
