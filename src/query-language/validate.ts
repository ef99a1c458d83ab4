import type { Problem } from "../core/errors.js";
import { exactIntegerText } from "../core/exact-integers.js";
import { isObjectId } from "../core/ids.js";
import type { ColumnDef, ColumnSet, ColumnType, SearchFlags } from "./columns.js";
import type { ColumnOperator, FilterNode } from "./parse.js";
import { checkValue, NUL_REASON } from "./values.js";

export type CheckedNode =
  | { kind: "and"; terms: CheckedNode[] }
  | { kind: "or"; terms: CheckedNode[] }
  | { kind: "column"; column: ColumnDef; op: ColumnOperator; value: unknown }
  | { kind: "keyword"; negated: boolean; prefix: string; columns: ColumnDef[] }
  | { kind: "population"; negated: boolean; populationId: string };

const COMPARABLE: ColumnType[] = [
  "STRING",
  "DATE_TIME",
  "DATE",
  "INT16",
  "INT32",
  "INT64",
  "FLOAT32",
  "FLOAT64",
  "DECIMAL",
  "MONEY_100",
  "PERCENTAGE_FIXED_POINT",
  "OBJECTID",
];

interface OperatorRule {
  types: ColumnType[];
  flag?: keyof SearchFlags;
}

/** Spec 4.2's operator table: which column types each operator applies to and which flag it needs. */
const RULES: Record<ColumnOperator, OperatorRule> = {
  $eq: { types: [...COMPARABLE, "BOOLEAN"], flag: "equalitySearch" },
  $ne: { types: [...COMPARABLE, "BOOLEAN"], flag: "equalitySearch" },
  $in: { types: [...COMPARABLE, "BOOLEAN"], flag: "equalitySearch" },
  $nin: { types: [...COMPARABLE, "BOOLEAN"], flag: "equalitySearch" },
  $gt: { types: COMPARABLE, flag: "rangeSearch" },
  $gte: { types: COMPARABLE, flag: "rangeSearch" },
  $lt: { types: COMPARABLE, flag: "rangeSearch" },
  $lte: { types: COMPARABLE, flag: "rangeSearch" },
  $contains: { types: ["ARRAY_STRINGS", "ARRAY_INT64"], flag: "containsSearch" },
  $ncontains: { types: ["ARRAY_STRINGS", "ARRAY_INT64"], flag: "containsSearch" },
  $flags: { types: ["BOOLEAN_FLAGS"] },
  $isubstr: { types: ["STRING"], flag: "allowCaseInsensitiveSubstringSearch" },
  $iprefix: { types: ["STRING"], flag: "caseInsensitivePrefixSearch" },
  $niprefix: { types: ["STRING"], flag: "caseInsensitivePrefixSearch" },
};

/** The column operators a column allows: those of its type whose search flag it sets (what GraphQL `where` inputs offer). */
export function operatorsFor(column: ColumnDef): ColumnOperator[] {
  return (Object.entries(RULES) as Array<[ColumnOperator, OperatorRule]>).filter(([, rule]) => rule.types.includes(column.type) && (!rule.flag || column[rule.flag])).map(([op]) => op);
}

export interface ValidateOptions {
  /** Whether `$population`/`$not_population` can be evaluated for this subject. */
  populationsSupported?: boolean;
}

function problem(identifier: string, reason: string, problemType: Problem["problemType"] = "FILTER_CONVERSION_FAILED", values?: unknown[], suggestedValues?: string[]): Problem {
  return {
    problemType,
    severity: "ERROR",
    // The empty key is a key too: name it as JSON writes it.
    identifier: identifier || '""',
    reason,
    ...(values ? { values: values.map((v) => (typeof v === "string" ? v : JSON.stringify(v))) } : {}),
    ...(suggestedValues ? { suggestedValues } : {}),
  };
}

/** Checks a parsed filter against the subject's column metadata; every problem names its key. */
export function validateFilter(node: FilterNode, columns: ColumnSet, problems: Problem[], options: ValidateOptions = {}): CheckedNode {
  switch (node.kind) {
    case "and":
    case "or":
      return { kind: node.kind, terms: node.terms.map((term) => validateFilter(term, columns, problems, options)) };
    case "keyword":
      return validateKeyword(node, columns, problems);
    case "population":
      if (!isObjectId(node.populationId)) {
        problems.push(problem(node.path, "expects a population id (24 hexadecimal characters)", "POPULATION_CONVERSION_FAILED", [node.populationId]));
      } else if (!options.populationsSupported) {
        problems.push(problem(node.path, `Populations cannot be used to filter ${columns.subject}`, "POPULATION_CONVERSION_FAILED", [node.populationId]));
      }
      return { kind: "population", negated: node.negated, populationId: String(node.populationId) };
    case "column":
      return validateColumn(node, columns, problems);
  }
}

function validateKeyword(node: Extract<FilterNode, { kind: "keyword" }>, columns: ColumnSet, problems: Problem[]): CheckedNode {
  const keywordColumns = [...columns.byField.values()].filter((c) => c.keywordSearch);
  if (typeof node.prefix !== "string" || node.prefix.trim() === "" || node.prefix.includes("\0")) {
    problems.push(problem(node.path, typeof node.prefix === "string" && node.prefix.includes("\0") ? NUL_REASON : "expects a non-blank string", "INCORRECT_DATA_TYPE", [node.prefix]));
  } else if (keywordColumns.length === 0) {
    problems.push(problem(node.path, `${columns.subject} has no column with keywordSearch`));
  }
  return { kind: "keyword", negated: node.negated, prefix: String(node.prefix ?? "").trim().toLowerCase(), columns: keywordColumns };
}

function validateColumn(node: Extract<FilterNode, { kind: "column" }>, columns: ColumnSet, problems: Problem[]): CheckedNode {
  const column = columns.byField.get(node.field);
  const invalid: CheckedNode = { kind: "and", terms: [] };
  if (!column) {
    const queryable = [...columns.byField.values()].filter(isQueryable).map((c) => c.field);
    problems.push(problem(node.path.split(".$")[0], `${node.field} is not a queryable column of ${columns.subject}`, "FILTER_CONVERSION_FAILED", [node.field], queryable));
    return invalid;
  }
  const rule = RULES[node.op];
  if (!rule.types.includes(column.type)) {
    const allowed = (Object.keys(RULES) as ColumnOperator[]).filter((op) => RULES[op].types.includes(column.type) && (!RULES[op].flag || column[RULES[op].flag!]));
    problems.push(problem(node.path, `${node.op} does not apply to ${node.field}, a ${column.type} column`, "FILTER_CONVERSION_FAILED", [node.op], allowed));
    return invalid;
  }
  if (rule.flag && !column[rule.flag]) {
    problems.push(problem(node.path, `${node.field} does not allow ${node.op} (the column's ${rule.flag} flag is off)`, "FILTER_CONVERSION_FAILED", [node.op]));
    return invalid;
  }
  const value = checkOperand(node, column, problems);
  return value === INVALID ? invalid : { kind: "column", column, op: node.op, value };
}

const INVALID: unique symbol = Symbol("invalid");

function checkOperand(node: Extract<FilterNode, { kind: "column" }>, column: ColumnDef, problems: Problem[]): unknown {
  const fail = (reason: string, value: unknown, suggestedValues?: string[]): typeof INVALID => {
    problems.push(problem(node.path, `${node.field}: ${reason}`, "INCORRECT_DATA_TYPE", [value], suggestedValues));
    return INVALID;
  };
  // Equality on an enumeration column: one of its values, in its canonical spelling.
  const equal = (item: unknown, itemExact: string | undefined) => (column.values ? enumValue(column.values, item, fail) : single(column.type, item, itemExact, fail));
  const { op, value, exact } = node;
  switch (op) {
    case "$eq":
    case "$ne":
      if (value === null) return null;
      return equal(value, exact);
    case "$gt":
    case "$gte":
    case "$lt":
    case "$lte":
      return single(column.type, value, exact, fail);
    case "$in":
    case "$nin": {
      if (!Array.isArray(value)) return fail(`${op} expects an array of literals`, value);
      const out: unknown[] = [];
      for (const [index, item] of value.entries()) {
        const checked = equal(item, exactIntegerText(value, index));
        if (checked === INVALID) return INVALID;
        out.push(checked);
      }
      return out;
    }
    case "$contains":
    case "$ncontains":
      return single(column.type === "ARRAY_INT64" ? "INT64" : "STRING", value, exact, fail);
    case "$flags": {
      if (typeof value !== "object" || value === null || Array.isArray(value) || Object.keys(value).length === 0) {
        return fail("$flags expects an object of flag names with boolean values", value);
      }
      for (const [flag, on] of Object.entries(value)) {
        if (typeof on !== "boolean") return fail(`flag ${flag} must be true or false`, on);
        if (column.flagColumns && !(flag in column.flagColumns)) return fail(`${flag} is not a flag of ${node.field}`, flag, Object.keys(column.flagColumns));
      }
      return value;
    }
    case "$isubstr":
    case "$iprefix":
    case "$niprefix":
      if (typeof value !== "string" || value === "") return fail(`${op} expects a non-empty string`, value);
      if (value.includes("\0")) return fail(NUL_REASON, value);
      return value.toLowerCase();
  }
}

/**
 * A value of an enumeration column: accepted whatever its case and returned as the canonical
 * (stored) value, so the translator compares the column as stored; anything else is refused with
 * the allowed values suggested.
 */
function enumValue(values: readonly string[], value: unknown, fail: (reason: string, value: unknown, suggestedValues?: string[]) => typeof INVALID): unknown {
  if (typeof value === "string") {
    const lower = value.toLowerCase();
    const canonical = values.find((v) => v.toLowerCase() === lower);
    if (canonical !== undefined) return canonical;
  }
  return fail(`expects one of ${values.join(", ")}`, value, [...values]);
}

function single(type: ColumnType, value: unknown, exact: string | undefined, fail: (reason: string, value: unknown) => typeof INVALID): unknown {
  const checked = checkValue(type, value, exact);
  return checked.ok ? checked.value : fail(checked.reason, exact ?? value);
}

function isQueryable(column: ColumnDef): boolean {
  return Boolean(
    column.equalitySearch || column.rangeSearch || column.containsSearch || column.allowCaseInsensitiveSubstringSearch || column.caseInsensitivePrefixSearch || column.type === "BOOLEAN_FLAGS",
  );
}
