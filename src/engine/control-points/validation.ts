import type { Problem } from "../../core/errors.js";
import { GENERAL_SETTINGS, isGeneralLedger, resultControlPoints } from "./index.js";
import { CUSTOM_PREFIX, EXPERT_SCORES, MAX_CUSTOM_CONTROL_POINTS, type ControlPointFamily, type CustomControlPoint, type SettingDefinition } from "./types.js";

const problem = (identifier: string, reason: string, values: unknown[] = [], problemType: Problem["problemType"] = "ILLEGAL_ARGUMENT", suggestedValues?: string[]): Problem => ({
  problemType,
  severity: "ERROR",
  identifier,
  reason,
  values: values.map((v) => (typeof v === "string" ? v : JSON.stringify(v))),
  ...(suggestedValues ? { suggestedValues } : {}),
});

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const RATINGS = Object.keys(EXPERT_SCORES);

function valueProblems(definition: SettingDefinition, value: unknown, at: string): Problem[] {
  if (value === null) return definition.default === null ? [] : [problem(at, `${at} cannot be null`, [value])];
  const bounds = (n: number): Problem[] => {
    if (definition.min !== undefined && n < definition.min) return [problem(at, `${at} must be at least ${definition.min}`, [n], "GREATER_VALUE_REQUIRED")];
    if (definition.max !== undefined && n > definition.max) return [problem(at, `${at} must be at most ${definition.max}`, [n], "LESS_VALUE_REQUIRED")];
    return [];
  };
  switch (definition.type) {
    case "INTEGER":
    case "MONEY":
      return typeof value === "number" && Number.isSafeInteger(value) ? bounds(value) : [problem(at, `${at} must be a whole number${definition.type === "MONEY" ? " (MONEY_100)" : ""}`, [value], "INCORRECT_DATA_TYPE")];
    case "NUMBER":
      return typeof value === "number" && Number.isFinite(value) ? bounds(value) : [problem(at, `${at} must be a number`, [value], "INCORRECT_DATA_TYPE")];
    case "BOOLEAN":
      return typeof value === "boolean" ? [] : [problem(at, `${at} must be true or false`, [value], "INCORRECT_DATA_TYPE")];
    case "STRING":
      return typeof value === "string" ? [] : [problem(at, `${at} must be a string`, [value], "INCORRECT_DATA_TYPE")];
    case "STRING_LIST":
      return Array.isArray(value) && value.every((v) => typeof v === "string" && v.trim() !== "" && !v.includes("\0"))
        ? []
        : [problem(at, `${at} must be a list of non-blank strings`, [value], "INCORRECT_DATA_TYPE")];
    case "INTEGER_LIST":
      return Array.isArray(value) && value.every((v) => Number.isSafeInteger(v)) ? value.flatMap((v: number) => (v < 1 || v > 7 ? [problem(at, `${at}: days of the week are 1 (Monday) to 7 (Sunday)`, [v])] : [])) : [problem(at, `${at} must be a list of whole numbers`, [value], "INCORRECT_DATA_TYPE")];
    case "EXPERT_RULES":
      return rulesProblems(value, at);
  }
}

function rulesProblems(value: unknown, at: string): Problem[] {
  if (!Array.isArray(value)) return [problem(at, `${at} must be a list of {debit, credit, rating}`, [value], "INCORRECT_DATA_TYPE")];
  return value.flatMap((rule, i) => {
    const where = `${at}[${i}]`;
    if (!isObject(rule)) return [problem(where, `${where} must be an object {debit, credit, rating}`, [rule], "INCORRECT_DATA_TYPE")];
    const out: Problem[] = [];
    for (const key of Object.keys(rule)) if (!["debit", "credit", "rating"].includes(key)) out.push(problem(`${where}.${key}`, `${key} is not a key of an expert rule (debit, credit, rating)`, [key]));
    for (const side of ["debit", "credit"] as const) {
      if (typeof rule[side] !== "string" || (rule[side] as string).trim() === "") out.push(problem(`${where}.${side}`, `${side} must be an account id, group code, MAC code or *`, [rule[side]]));
    }
    if (!RATINGS.includes(String(rule.rating))) out.push(problem(`${where}.rating`, "rating must be LOW, MEDIUM or HIGH", [rule.rating], "ILLEGAL_ARGUMENT", RATINGS));
    return out;
  });
}

/** Problems of a `controlPointSettings` edit: known control points and settings, values of the right type and range. */
export function settingsProblems(family: ControlPointFamily, settings: unknown, at = "configuration.controlPointSettings", customIds: readonly string[] = []): Problem[] {
  if (!isObject(settings)) return [problem(at, `${at} must be an object of control point name -> {setting: value}`, [settings], "INCORRECT_DATA_TYPE")];
  const points = new Map(resultControlPoints(family).map((p) => [p.name, p.settings]));
  points.set("general", GENERAL_SETTINGS);
  for (const id of customIds) points.set(id, {});
  const out: Problem[] = [];
  for (const [name, values] of Object.entries(settings)) {
    const where = `${at}.${name}`;
    const definitions = points.get(name);
    if (!definitions) {
      out.push(problem(where, `${name} is not a control point of this analysis type (or general)`, [name], "ILLEGAL_ARGUMENT", [...points.keys()]));
      continue;
    }
    if (!isObject(values)) {
      out.push(problem(where, `${where} must be an object of setting -> value`, [values], "INCORRECT_DATA_TYPE"));
      continue;
    }
    for (const [key, value] of Object.entries(values)) {
      const definition = definitions[key];
      if (!definition) out.push(problem(`${where}.${key}`, `${key} is not a setting of ${name}`, [key], "ILLEGAL_ARGUMENT", Object.keys(definitions)));
      else out.push(...valueProblems(definition, value, `${where}.${key}`));
    }
  }
  return out;
}

const CUSTOM_ID = /^custom_[a-z0-9_]{1,40}$/;

/** Problems of a `customControlPoints` list (spec 2.9, control-points.md: GL only, at most 20, `custom_` ids). */
export function customControlPointProblems(family: ControlPointFamily, list: unknown, at = "configuration.customControlPoints"): Problem[] {
  if (!Array.isArray(list)) return [problem(at, `${at} must be a list`, [list], "INCORRECT_DATA_TYPE")];
  if (list.length > 0 && !isGeneralLedger(family)) return [problem(at, "custom control points exist for general ledger analysis types only", [list.length])];
  if (list.length > MAX_CUSTOM_CONTROL_POINTS) return [problem(at, `at most ${MAX_CUSTOM_CONTROL_POINTS} custom control points per library`, [list.length], "LESS_VALUE_REQUIRED")];
  const seen = new Set<string>();
  return list.flatMap((item, i) => {
    const where = `${at}[${i}]`;
    if (!isObject(item)) return [problem(where, `${where} must be an object`, [item], "INCORRECT_DATA_TYPE")];
    const out: Problem[] = [];
    for (const key of Object.keys(item)) if (!["id", "name", "description", "status", "rules", "unexpectedFlowRating"].includes(key)) out.push(problem(`${where}.${key}`, `${key} is not a key of a custom control point`, [key]));
    if (typeof item.id !== "string" || !CUSTOM_ID.test(item.id)) out.push(problem(`${where}.id`, `id must start with ${CUSTOM_PREFIX} followed by 1 to 40 lower-case letters, digits or underscores`, [item.id]));
    else if (seen.has(item.id)) out.push(problem(`${where}.id`, `${item.id} is used twice`, [item.id], "NON_UNIQUE_VALUE"));
    else seen.add(item.id);
    if (typeof item.name !== "string" || item.name.trim() === "") out.push(problem(`${where}.name`, "name must be a non-blank string", [item.name]));
    if (item.status !== "DRAFT" && item.status !== "PUBLISHED") out.push(problem(`${where}.status`, "status must be DRAFT or PUBLISHED", [item.status], "ILLEGAL_ARGUMENT", ["DRAFT", "PUBLISHED"]));
    out.push(...rulesProblems(item.rules, `${where}.rules`));
    if (item.unexpectedFlowRating != null && !RATINGS.includes(String(item.unexpectedFlowRating))) out.push(problem(`${where}.unexpectedFlowRating`, "unexpectedFlowRating must be LOW, MEDIUM, HIGH or null", [item.unexpectedFlowRating]));
    return out;
  });
}

export function normalizeCustom(list: unknown): CustomControlPoint[] {
  return (list as CustomControlPoint[]).map((c) => ({
    id: c.id,
    name: c.name,
    description: c.description ?? null,
    status: c.status,
    rules: c.rules.map((r) => ({ debit: r.debit, credit: r.credit, rating: r.rating })),
    unexpectedFlowRating: c.unexpectedFlowRating ?? null,
  }));
}
