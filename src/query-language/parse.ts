import type { Problem } from "../core/errors.js";
import { exactIntegerText } from "../core/exact-integers.js";

export const COMPARISON_OPERATORS = ["$eq", "$ne", "$gt", "$gte", "$lt", "$lte"] as const;
export const SET_OPERATORS = ["$in", "$nin"] as const;
export const COLUMN_OPERATORS = [
  ...COMPARISON_OPERATORS,
  ...SET_OPERATORS,
  "$contains",
  "$ncontains",
  "$flags",
  "$isubstr",
  "$iprefix",
  "$niprefix",
] as const;
export type ColumnOperator = (typeof COLUMN_OPERATORS)[number];

export const ROOT_OPERATORS = ["$and", "$or", "$keyword_prefix", "$keyword_prefix_not", "$population", "$not_population"] as const;

/** A filter after its JSON structure was checked; columns and values are checked in validate.ts. */
export type FilterNode =
  | { kind: "and"; terms: FilterNode[] }
  | { kind: "or"; terms: FilterNode[] }
  /** `exact`: the digits of an integer literal too large for a JS number (see core/exact-integers.ts). */
  | { kind: "column"; field: string; op: ColumnOperator; value: unknown; exact?: string; path: string }
  | { kind: "keyword"; negated: boolean; prefix: unknown; path: string }
  | { kind: "population"; negated: boolean; populationId: unknown; path: string };

/** How deep `$and`/`$or` groups may nest: every later step walks the tree recursively. */
export const MAX_FILTER_DEPTH = 32;

const columnOperators = new Set<string>(COLUMN_OPERATORS);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function filterProblem(identifier: string, reason: string, values?: unknown[], suggestedValues?: string[]): Problem {
  return {
    problemType: "FILTER_CONVERSION_FAILED",
    severity: "ERROR",
    identifier: identifier || "$",
    reason,
    ...(values ? { values: values.map((v) => (typeof v === "string" ? v : JSON.stringify(v))) } : {}),
    ...(suggestedValues ? { suggestedValues } : {}),
  };
}

/**
 * Parses the JSON filter of spec 4.2 into a tree. Structural mistakes (an array where a query
 * object belongs, an unknown `$` operator, an operator object mixed with plain keys) are collected
 * into `problems` with the path of the offending key, so one response names every mistake.
 */
export function parseFilter(input: unknown, problems: Problem[], path = "", depth = 0): FilterNode {
  if (input === undefined || input === null) return { kind: "and", terms: [] };
  if (!isPlainObject(input)) {
    problems.push(filterProblem(path, "A query must be a JSON object", [input]));
    return { kind: "and", terms: [] };
  }
  const terms: FilterNode[] = [];
  for (const [key, value] of Object.entries(input)) {
    const keyPath = path ? `${path}.${key}` : key;
    if (key === "$and" || key === "$or") {
      if (!Array.isArray(value)) {
        problems.push(filterProblem(keyPath, `${key} takes an array of query objects`, [value]));
        continue;
      }
      if (value.length === 0) {
        problems.push(filterProblem(keyPath, `${key} needs at least one query object`));
        continue;
      }
      if (depth >= MAX_FILTER_DEPTH) {
        problems.push(filterProblem(keyPath, `$and and $or groups may nest at most ${MAX_FILTER_DEPTH} levels deep`, [MAX_FILTER_DEPTH]));
        continue;
      }
      const children = value.map((item, index) => parseFilter(item, problems, `${keyPath}[${index}]`, depth + 1));
      terms.push({ kind: key === "$and" ? "and" : "or", terms: children });
    } else if (key === "$keyword_prefix" || key === "$keyword_prefix_not") {
      terms.push({ kind: "keyword", negated: key === "$keyword_prefix_not", prefix: value, path: keyPath });
    } else if (key === "$population" || key === "$not_population") {
      terms.push({ kind: "population", negated: key === "$not_population", populationId: value, path: keyPath });
    } else if (key.startsWith("$")) {
      const suggestion = columnOperators.has(key) ? ` (${key} applies to a column: {"<column>": {"${key}": ...}})` : "";
      problems.push(filterProblem(keyPath, `Unknown root operator ${key}${suggestion}`, [key], [...ROOT_OPERATORS]));
    } else {
      terms.push(...parseColumnTerm(key, value, exactIntegerText(input, key), keyPath, problems));
    }
  }
  return terms.length === 1 ? terms[0] : { kind: "and", terms };
}

function parseColumnTerm(field: string, value: unknown, exact: string | undefined, path: string, problems: Problem[]): FilterNode[] {
  if (!isPlainObject(value)) return [{ kind: "column", field, op: "$eq", value, exact, path }];
  const keys = Object.keys(value);
  if (keys.length === 0) {
    problems.push(filterProblem(path, `Column ${field} has an empty operator object`));
    return [];
  }
  const nodes: FilterNode[] = [];
  for (const op of keys) {
    const opPath = `${path}.${op}`;
    if (!op.startsWith("$")) {
      problems.push(filterProblem(opPath, `"${op}" is not an operator; an object value of column ${field} must contain only operators`, [op], [...COLUMN_OPERATORS]));
      continue;
    }
    if (!columnOperators.has(op)) {
      problems.push(filterProblem(opPath, `Unknown column operator ${op}`, [op], [...COLUMN_OPERATORS]));
      continue;
    }
    nodes.push({ kind: "column", field, op: op as ColumnOperator, value: value[op], exact: exactIntegerText(value, op), path: opPath });
  }
  return nodes;
}
