import { ValidationError, type Problem } from "../core/errors.js";
import type { ColumnSet } from "./columns.js";
import { parseFilter } from "./parse.js";
import { SqlParams, translateFilter, type TranslateOptions } from "./translate.js";
import { validateFilter, type CheckedNode } from "./validate.js";

export { defineColumns, columnSetOf, AUDIT_COLUMNS, TEXT, ID, enumOf, FLAG, ID_LIST, type ColumnDef, type ColumnSet, type ColumnType } from "./columns.js";
export { SqlParams, quoteIdent } from "./translate.js";
export { parseSort, orderByClause, type SortOrder } from "./sort.js";
export { whereToFilter, combinedFilter } from "./where.js";
export { operatorsFor } from "./validate.js";

/** Parses and validates a filter; throws one 400 listing every problem found. */
export function checkFilter(filter: unknown, columns: ColumnSet, options: { populationsSupported?: boolean } = {}): CheckedNode {
  const problems: Problem[] = [];
  const parsed = parseFilter(filter, problems);
  const checked = validateFilter(parsed, columns, problems, options);
  if (problems.length > 0) throw ValidationError.of(problems);
  return checked;
}

/** A filter as a client writes it (spec 4.2) and as Json columns keep it: a JSON object. */
export type FilterJson = { [key: string]: unknown };

/** `checkFilter` for a filter about to be stored: the same 400, and the filter as the column keeps it. */
export function storableFilter(filter: unknown, columns: ColumnSet): FilterJson {
  checkFilter(filter, columns);
  return typeof filter === "object" && filter !== null && !Array.isArray(filter) ? { ...filter } : {};
}

/** Filter JSON → parameterized SQL condition over the subject's columns. */
export function compileFilter(
  filter: unknown,
  columns: ColumnSet,
  params: SqlParams = new SqlParams(),
  options: TranslateOptions = {},
): { sql: string; params: SqlParams } {
  const checked = checkFilter(filter, columns, { populationsSupported: Boolean(options.populationSql) });
  return { sql: translateFilter(checked, params, options), params };
}
