import type { ColumnDef } from "./columns.js";
import type { CheckedNode } from "./validate.js";
import { sqlTypeOf } from "./values.js";

/** Collects bound parameters; `add` returns the `$n` placeholder with an explicit cast. */
export class SqlParams {
  readonly values: unknown[] = [];
  add(value: unknown, cast?: string): string {
    this.values.push(value);
    return cast ? `$${this.values.length}::${cast}` : `$${this.values.length}`;
  }
}

export interface TranslateOptions {
  /** Table alias prefixed to column names. */
  alias?: string;
  /** SQL deciding membership of the current row in a population (evaluated when populations exist). */
  populationSql?: (populationId: string, params: SqlParams) => string;
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Translates a validated filter into a parameterized SQL boolean expression. */
export function translateFilter(node: CheckedNode, params: SqlParams, options: TranslateOptions = {}): string {
  const col = (column: ColumnDef) => (options.alias ? `${options.alias}.${quoteIdent(column.sql)}` : quoteIdent(column.sql));
  const walk = (n: CheckedNode): string => {
    switch (n.kind) {
      case "and":
        return n.terms.length === 0 ? "TRUE" : n.terms.length === 1 ? walk(n.terms[0]) : `(${n.terms.map(walk).join(" AND ")})`;
      case "or":
        return n.terms.length === 1 ? walk(n.terms[0]) : `(${n.terms.map(walk).join(" OR ")})`;
      case "keyword": {
        const pattern = params.add(`\\m${escapeRegex(n.prefix)}`, "text");
        const any = n.columns.length === 0 ? "FALSE" : `(${n.columns.map((c) => `coalesce(${col(c)} ~* ${pattern}, FALSE)`).join(" OR ")})`;
        return n.negated ? `(NOT ${any})` : any;
      }
      case "population": {
        if (!options.populationSql) return "FALSE";
        const member = options.populationSql(n.populationId, params);
        return n.negated ? `(NOT coalesce(${member}, FALSE))` : member;
      }
      case "column":
        return columnCondition(col(n.column), n.column, n.op, n.value, params);
    }
  };
  return walk(node);
}

function columnCondition(target: string, column: ColumnDef, op: string, value: unknown, params: SqlParams): string {
  // Case-insensitive comparison for strings: both sides lower-cased (values already are). Equality
  // on an enumeration column compares the column as stored with the canonical value validate.ts
  // bound instead, so a plain btree index on the column serves it.
  const asStored = column.values !== undefined && (op === "$eq" || op === "$ne" || op === "$in" || op === "$nin");
  const lhs = column.type === "STRING" && !asStored ? `lower(${target})` : target;
  const cast = sqlTypeOf(column.type);
  switch (op) {
    case "$eq":
      if (value === null) return `${target} IS NULL`;
      // A boolean literal (not a parameter), so a partial index WHERE the flag is set matches the plan.
      if (column.type === "BOOLEAN" && typeof value === "boolean") return `${target} = ${value ? "TRUE" : "FALSE"}`;
      return `${lhs} = ${params.add(value, cast)}`;
    case "$ne":
      return value === null ? `${target} IS NOT NULL` : `${lhs} IS DISTINCT FROM ${params.add(value, cast)}`;
    case "$gt":
      return `${lhs} > ${params.add(value, cast)}`;
    case "$gte":
      return `${lhs} >= ${params.add(value, cast)}`;
    case "$lt":
      return `${lhs} < ${params.add(value, cast)}`;
    case "$lte":
      return `${lhs} <= ${params.add(value, cast)}`;
    case "$in":
      return (value as unknown[]).length === 0 ? "FALSE" : `${lhs} = ANY(${params.add(value, `${cast}[]`)})`;
    case "$nin":
      return (value as unknown[]).length === 0 ? "TRUE" : `(${target} IS NULL OR NOT (${lhs} = ANY(${params.add(value, `${cast}[]`)})))`;
    case "$contains":
    case "$ncontains": {
      // Array containment (`@>`) so a GIN index can serve it. Case-insensitivity: the literal is
      // already lower-case; columns whose values are stored lower-case compare directly, the
      // others through lower_text_array() (migration 20261123191423_query_indexes), which has its own GIN index.
      // A NULL array contains nothing: $ncontains keeps it (coalesce), as for $nin and $niprefix.
      const contains =
        column.type === "ARRAY_INT64"
          ? `${target} @> ARRAY[${params.add(value, "bigint")}]`
          : column.storedLowerCase
            ? `${target} @> ARRAY[${params.add(value, "text")}]`
            : `lower_text_array(${target}) @> ARRAY[${params.add(value, "text")}]`;
      return op === "$contains" ? contains : `(NOT coalesce(${contains}, FALSE))`;
    }
    case "$flags": {
      const flags = Object.entries(value as Record<string, boolean>);
      if (column.flagColumns) {
        // Each flag is a BOOLEAN column of its own: `col` (served by a partial index) or NOT coalesce(col).
        const prefix = target.slice(0, target.length - quoteIdent(column.sql).length);
        return `(${flags.map(([flag, on]) => (on ? `${prefix}${quoteIdent(column.flagColumns![flag])}` : `NOT coalesce(${prefix}${quoteIdent(column.flagColumns![flag])}, FALSE)`)).join(" AND ")})`;
      }
      return `(${flags.map(([flag, on]) => `coalesce((${target} ->> ${params.add(flag, "text")})::boolean, FALSE) = ${on ? "TRUE" : "FALSE"}`).join(" AND ")})`;
    }
    case "$isubstr":
      return `${lhs} LIKE ${params.add(`%${escapeLike(value as string)}%`, "text")}`;
    case "$iprefix":
      return `${lhs} LIKE ${params.add(`${escapeLike(value as string)}%`, "text")}`;
    case "$niprefix":
      return `(${target} IS NULL OR ${lhs} NOT LIKE ${params.add(`${escapeLike(value as string)}%`, "text")})`;
    default:
      throw new Error(`untranslatable operator ${op}`);
  }
}
