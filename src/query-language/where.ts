/**
 * Typed GraphQL `where` inputs (`{ name: { iprefix: "acme" }, or: [{ version: { gt: 5 } }] }`),
 * compiled to the one query language (`{ name: { $iprefix: "acme" }, $or: [...] }`), so they are
 * validated and translated exactly like `filter` JSON. Keys are column names or `and`/`or`; the
 * operators are those of the query language without `$`.
 */
export function whereToFilter(where: unknown): Record<string, unknown> {
  if (where === null || where === undefined || typeof where !== "object") return {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(where as Record<string, unknown>)) {
    if (value === undefined || value === null) continue;
    if (key === "and" || key === "or") {
      out[`$${key}`] = (value as unknown[]).map(whereToFilter);
      continue;
    }
    const operators: Record<string, unknown> = {};
    for (const [op, operand] of Object.entries(value as Record<string, unknown>)) if (operand !== undefined) operators[`$${op}`] = operand;
    out[key] = operators;
  }
  return out;
}

/** Two filters that must both hold; an absent one matches all. */
export function bothFilters(a: unknown, b: unknown): unknown {
  if (a === undefined || a === null) return b ?? {};
  if (b === undefined || b === null) return a;
  return { $and: [a, b] };
}

/** `filter` JSON and a typed `where` together: both must hold. */
export function combinedFilter(filter: unknown, where: unknown): unknown {
  return bothFilters(filter, where === undefined || where === null ? undefined : whereToFilter(where));
}
