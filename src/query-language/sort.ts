import { ValidationError } from "../core/errors.js";
import type { ColumnSet } from "./columns.js";
import { quoteIdent } from "./translate.js";

export interface SortOrder {
  field: string;
  direction: "ASC" | "DESC";
}

/**
 * Parses Spring-style sort parameters (`sort=name,desc`, repeatable) against the subject's
 * sortable columns.
 */
export function parseSort(raw: readonly string[] | undefined, columns: ColumnSet): SortOrder[] {
  if (!raw) return [];
  return raw.flatMap((entry, index) => {
    if (entry.trim() === "") return [];
    const [field, dir = "asc", ...rest] = entry.split(",").map((s) => s.trim());
    const direction = dir.toUpperCase();
    const column = columns.byField.get(field);
    const sortable = [...columns.byField.values()].filter((c) => c.sortable).map((c) => c.field);
    if (!column || !column.sortable) {
      throw new ValidationError(`${field} is not a sortable column of ${columns.subject}`, { identifier: `sort[${index}]`, values: [field], suggestedValues: sortable });
    }
    if (rest.length > 0 || (direction !== "ASC" && direction !== "DESC")) {
      throw new ValidationError(`Sort direction must be asc or desc`, { identifier: `sort[${index}]`, values: [entry], suggestedValues: ["ASC", "DESC"] });
    }
    return [{ field, direction: direction as "ASC" | "DESC" }];
  });
}

/** ORDER BY clause; `id` always ends it so paging is stable. */
export function orderByClause(orders: SortOrder[], columns: ColumnSet, alias?: string, tieBreaker = "id"): string {
  const prefix = alias ? `${alias}.` : "";
  const parts = orders.map((o) => {
    const column = columns.byField.get(o.field)!;
    // Strings sort case-insensitively; enumeration columns hold one canonical spelling per value,
    // so they sort as stored (a plain index on the column serves the order).
    const expr = column.type === "STRING" && !column.values ? `lower(${prefix}${quoteIdent(column.sql)})` : `${prefix}${quoteIdent(column.sql)}`;
    return `${expr} ${o.direction} NULLS LAST`;
  });
  if (!orders.some((o) => columns.byField.get(o.field)?.sql === tieBreaker)) parts.push(`${prefix}${quoteIdent(tieBreaker)} ASC`);
  return parts.join(", ");
}
