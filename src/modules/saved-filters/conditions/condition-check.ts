import type { Problem } from "../../../core/errors.js";
import { isObjectId } from "../../../core/ids.js";

/**
 * The condition tree of saved filters and populations (spec 2.9), checked for its shape alone:
 * every type's required keys, enumerations and value forms, each problem naming its path
 * (`condition.conditions[1].value`). Whether a condition fits a data table is the compiler's job.
 */
export const CONDITION_TYPES = [
  "GROUP",
  "STRING",
  "STRING_ARRAY",
  "CONTROL_POINT",
  "ACCOUNT_NODE_ARRAY",
  "TYPEAHEAD_ENTRY",
  "POPULATIONS",
  "RISK_SCORE",
  "MONETARY_FLOW",
  "MONEY",
  "MATERIALITY",
  "NUMERICAL",
  "DATE",
] as const;
export type ConditionType = (typeof CONDITION_TYPES)[number];

export type Condition = Record<string, any> & { type: ConditionType };

const COMMON = ["type", "field", "fieldLabel", "negated", "fullConditionDescription"];
const AMOUNT_KEYS = ["value", "rangeStart", "rangeEnd"];

/** Keys each type accepts besides the common ones. */
const KEYS: Record<ConditionType, string[]> = {
  GROUP: ["operator", "conditions"],
  STRING: ["values"],
  STRING_ARRAY: ["values"],
  CONTROL_POINT: ["riskLevel", "controlPoints"],
  ACCOUNT_NODE_ARRAY: ["accountSelections"],
  TYPEAHEAD_ENTRY: ["values"],
  POPULATIONS: ["populationIds", "populationNames"],
  RISK_SCORE: ["riskScoreType", "riskScoreId", "riskScoreLabel", "values", "riskScorePercentType", ...AMOUNT_KEYS],
  MONETARY_FLOW: ["monetaryFlowType", "creditAccount", "debitAccount", "specificMonetaryFlowType", ...AMOUNT_KEYS],
  MONEY: ["monetaryValueType", ...AMOUNT_KEYS],
  MATERIALITY: ["materialityOption", "value"],
  NUMERICAL: ["numericalValueType", ...AMOUNT_KEYS],
  DATE: ["dateType", ...AMOUNT_KEYS],
};

export const STRING_FIELDS = { accountScoping: ["SIGNIFICANT", "INSIGNIFICANT", "UNSCOPED"], riskGroup: null } as const;
export const TYPEAHEAD_FIELDS = ["status", "memo", "entriesFundRestriction", "transactionsFundRestriction", "account_tags_increasing", "account_tags_decreasing"];
export const FUND_RESTRICTIONS: Record<string, string[]> = {
  entriesFundRestriction: ["restricted", "unrestricted", "none"],
  transactionsFundRestriction: ["restricted", "unrestricted", "both", "none"],
};
export const ACCOUNT_NODE_FIELDS = ["account_hierarchy_codes", "increasingCredits", "increasingDebits"];
export const RISK_LEVELS = ["HIGH_RISK", "MEDIUM_RISK", "LOW_RISK"];
export const HML_VALUES = ["HIGH", "MEDIUM", "LOW", "UNSCORED"];
const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

export interface CheckOptions {
  /** Populations: the population-only field rules of spec 2.9. */
  population?: boolean;
}

/** Fields a population condition may not use (spec 2.9, population-only rules). */
export const POPULATION_FORBIDDEN_FIELDS = ["population", "populations", "account_tags_decreasing", "account_tags_increasing", "status", "risk_range"];

class Checker {
  readonly problems: Problem[] = [];
  constructor(private readonly options: CheckOptions) {}

  fail(path: string, reason: string, values?: unknown[], suggestedValues?: readonly string[]) {
    this.problems.push({
      problemType: this.options.population ? "POPULATION_CONVERSION_FAILED" : "FILTER_CONVERSION_FAILED",
      severity: "ERROR",
      identifier: path,
      reason,
      ...(values ? { values: values.map((v) => (typeof v === "string" ? v : JSON.stringify(v))) } : {}),
      ...(suggestedValues ? { suggestedValues: [...suggestedValues] } : {}),
    });
  }

  nonBlank(c: Condition, key: string, path: string): boolean {
    const v = c[key];
    if (typeof v !== "string" || v.trim() === "") {
      this.fail(`${path}.${key}`, `${key} must be a non-blank string`, v === undefined ? undefined : [v]);
      return false;
    }
    return true;
  }

  oneOf(c: Condition, key: string, path: string, allowed: readonly string[]): string | undefined {
    const v = c[key];
    if (typeof v !== "string" || !allowed.includes(v)) {
      this.fail(`${path}.${key}`, `${key} must be one of ${allowed.join(", ")}`, v === undefined ? undefined : [v], allowed);
      return undefined;
    }
    return v;
  }

  list(c: Condition, key: string, path: string): unknown[] | undefined {
    const v = c[key];
    if (!Array.isArray(v) || v.length === 0) {
      this.fail(`${path}.${key}`, `${key} must be an array with at least one element`, v === undefined ? undefined : [v]);
      return undefined;
    }
    return v;
  }

  integer(c: Condition, key: string, path: string, min = -(2 ** 53 - 1), max = 2 ** 53 - 1): boolean {
    const v = c[key];
    if (typeof v !== "number" || !Number.isInteger(v)) {
      this.fail(`${path}.${key}`, `${key} must be an integer`, v === undefined ? undefined : [v]);
      return false;
    }
    if (v < min || v > max) {
      this.fail(`${path}.${key}`, `${key} must be from ${min} to ${max}`, [v]);
      return false;
    }
    return true;
  }

  number(c: Condition, key: string, path: string): boolean {
    const v = c[key];
    if (typeof v !== "number" || !Number.isFinite(v)) {
      this.fail(`${path}.${key}`, `${key} must be a number`, v === undefined ? undefined : [v]);
      return false;
    }
    return true;
  }

  date(c: Condition, key: string, path: string): boolean {
    const v = c[key];
    if (typeof v !== "string" || !DATE_PATTERN.test(v) || Number.isNaN(Date.parse(`${v}T00:00:00Z`)) || new Date(`${v}T00:00:00Z`).toISOString().slice(0, 10) !== v) {
      this.fail(`${path}.${key}`, `${key} must be an ISO date YYYY-MM-DD without time or zone`, v === undefined ? undefined : [v]);
      return false;
    }
    return true;
  }

  /** value, or rangeStart < rangeEnd for BETWEEN-like kinds; `check` validates one value. */
  amounts(c: Condition, path: string, between: boolean, check: (key: string) => boolean) {
    if (!between) {
      check("value");
      return;
    }
    const ok = check("rangeStart") && check("rangeEnd");
    if (ok && !(c.rangeStart <= c.rangeEnd)) this.fail(`${path}.rangeEnd`, "rangeEnd must not be before rangeStart", [c.rangeEnd]);
  }

  accountSelection(value: unknown, path: string, allowComplex: boolean) {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      this.fail(path, "An account selection is an object {name, code, useAccountId}", [value]);
      return;
    }
    const s = value as Record<string, unknown>;
    for (const key of Object.keys(s)) if (!["name", "code", "useAccountId"].includes(key)) this.fail(`${path}.${key}`, `${key} is not a property of an account selection`, [key], ["name", "code", "useAccountId"]);
    if (typeof s.code !== "string" || s.code.trim() === "") this.fail(`${path}.code`, "code must be a non-blank account group or account id", s.code === undefined ? undefined : [s.code]);
    else if (s.code === "complex" && !allowComplex) this.fail(`${path}.code`, "code complex is only meaningful in monetary flows", [s.code]);
    if (s.useAccountId !== undefined && typeof s.useAccountId !== "boolean") this.fail(`${path}.useAccountId`, "useAccountId must be true or false", [s.useAccountId]);
    if (s.name !== undefined && typeof s.name !== "string") this.fail(`${path}.name`, "name must be a string", [s.name]);
  }

  walk(value: unknown, path: string, depth: number): void {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      this.fail(path, "A condition must be an object with a type", value === undefined ? undefined : [value]);
      return;
    }
    if (depth > 20) {
      this.fail(path, "Conditions may nest at most 20 levels deep");
      return;
    }
    const c = value as Condition;
    if (!CONDITION_TYPES.includes(c.type)) {
      this.fail(`${path}.type`, `type must be one of ${CONDITION_TYPES.join(", ")}`, c.type === undefined ? undefined : [c.type], CONDITION_TYPES);
      return;
    }
    const allowed = [...COMMON, ...KEYS[c.type]];
    for (const key of Object.keys(c)) if (!allowed.includes(key)) this.fail(`${path}.${key}`, `${key} is not a property of a ${c.type} condition`, [key], allowed);
    if (c.negated !== undefined && typeof c.negated !== "boolean") this.fail(`${path}.negated`, "negated must be true or false", [c.negated]);
    if (c.fieldLabel !== undefined && typeof c.fieldLabel !== "string") this.fail(`${path}.fieldLabel`, "fieldLabel must be a string", [c.fieldLabel]);
    if (c.type === "GROUP") {
      if (c.field !== undefined) this.fail(`${path}.field`, "A GROUP condition has no field", [c.field]);
      this.oneOf(c, "operator", path, ["AND", "OR"]);
      const children = this.list(c, "conditions", path);
      children?.forEach((child, i) => this.walk(child, `${path}.conditions[${i}]`, depth + 1));
      return;
    }
    if (!this.nonBlank(c, "field", path)) return;
    if (this.options.population && POPULATION_FORBIDDEN_FIELDS.includes(c.field)) {
      this.fail(`${path}.field`, `${c.field} cannot be used in a population condition`, [c.field]);
      return;
    }
    this.typeRules(c, path);
  }

  typeRules(c: Condition, path: string) {
    switch (c.type) {
      case "STRING": {
        if (!(c.field in STRING_FIELDS)) {
          this.fail(`${path}.field`, "A STRING condition applies only to accountScoping or riskGroup", [c.field], Object.keys(STRING_FIELDS));
          return;
        }
        const values = this.list(c, "values", path);
        values?.forEach((v, i) => {
          if (typeof v !== "string" || v.trim() === "") this.fail(`${path}.values[${i}]`, "values must be non-blank strings", [v]);
          else if (c.field === "accountScoping" && !STRING_FIELDS.accountScoping.includes(v as never)) this.fail(`${path}.values[${i}]`, "accountScoping is SIGNIFICANT, INSIGNIFICANT or UNSCOPED", [v], STRING_FIELDS.accountScoping);
          else if (c.field === "riskGroup" && v.toUpperCase() === "GENERAL") this.fail(`${path}.values[${i}]`, "riskGroup cannot be GENERAL (the platform score group); use ASSETS, LIABILITIES_EQUITY, PROFIT_LOSS or a custom category", [v]);
        });
        return;
      }
      case "STRING_ARRAY": {
        const values = this.list(c, "values", path);
        values?.forEach((v, i) => {
          if (typeof v !== "string" || v.trim() === "") this.fail(`${path}.values[${i}]`, "values must be non-blank strings", [v]);
        });
        return;
      }
      case "CONTROL_POINT": {
        if (c.field !== "cp_failed") this.fail(`${path}.field`, "A CONTROL_POINT condition applies to the field cp_failed", [c.field], ["cp_failed"]);
        const level = this.oneOf(c, "riskLevel", path, RISK_LEVELS);
        const points = this.list(c, "controlPoints", path);
        points?.forEach((p, i) => {
          const at = `${path}.controlPoints[${i}]`;
          if (typeof p !== "object" || p === null || Array.isArray(p)) {
            this.fail(at, "A control point is an object {id, name, symbolicName, rulesBased}", [p]);
            return;
          }
          const point = p as Record<string, unknown>;
          for (const key of Object.keys(point)) if (!["id", "name", "symbolicName", "rulesBased"].includes(key)) this.fail(`${at}.${key}`, `${key} is not a property of a control point`, [key]);
          if (typeof point.id !== "string" || point.id.trim() === "") {
            this.fail(`${at}.id`, "id must be the control point's symbolic name, or custom_<id> for a custom one", point.id === undefined ? undefined : [point.id]);
            return;
          }
          if (point.id.startsWith("custom_") && (typeof point.symbolicName !== "string" || point.symbolicName.trim() === "")) {
            this.fail(`${at}.symbolicName`, "A custom control point needs the symbolic name of its underlying platform control point", point.symbolicName === undefined ? undefined : [point.symbolicName]);
          }
          if (point.rulesBased !== undefined && typeof point.rulesBased !== "boolean") this.fail(`${at}.rulesBased`, "rulesBased must be true or false", [point.rulesBased]);
          if (point.rulesBased === true && level === "MEDIUM_RISK") {
            this.fail(`${at}.rulesBased`, "A rules-based control point has only high and low values, so it cannot be used with MEDIUM_RISK", [String(point.id)]);
          }
        });
        return;
      }
      case "ACCOUNT_NODE_ARRAY": {
        if (!ACCOUNT_NODE_FIELDS.includes(c.field)) this.fail(`${path}.field`, "An ACCOUNT_NODE_ARRAY condition applies to account_hierarchy_codes, increasingCredits or increasingDebits", [c.field], ACCOUNT_NODE_FIELDS);
        this.list(c, "accountSelections", path)?.forEach((s, i) => this.accountSelection(s, `${path}.accountSelections[${i}]`, false));
        return;
      }
      case "TYPEAHEAD_ENTRY": {
        const values = this.list(c, "values", path);
        values?.forEach((v, i) => {
          const at = `${path}.values[${i}]`;
          if (typeof v !== "object" || v === null || Array.isArray(v)) {
            this.fail(at, "A typeahead value is an object {lookupId, displayName, hideLookupId}", [v]);
            return;
          }
          const item = v as Record<string, unknown>;
          for (const key of Object.keys(item)) if (!["lookupId", "displayName", "hideLookupId"].includes(key)) this.fail(`${at}.${key}`, `${key} is not a property of a typeahead value`, [key]);
          if (typeof item.lookupId !== "string" || item.lookupId === "") this.fail(`${at}.lookupId`, "lookupId must be a non-empty string", item.lookupId === undefined ? undefined : [item.lookupId]);
          if (item.hideLookupId !== undefined && typeof item.hideLookupId !== "boolean") this.fail(`${at}.hideLookupId`, "hideLookupId must be true or false", [item.hideLookupId]);
          const restrictions = FUND_RESTRICTIONS[c.field];
          if (restrictions && typeof item.lookupId === "string" && !restrictions.includes(item.lookupId)) this.fail(`${at}.lookupId`, `${c.field} is one of ${restrictions.join(", ")}`, [item.lookupId], restrictions);
        });
        return;
      }
      case "POPULATIONS": {
        if (c.field !== "population") this.fail(`${path}.field`, "A POPULATIONS condition applies to the field population", [c.field], ["population"]);
        this.list(c, "populationIds", path)?.forEach((id, i) => {
          if (!isObjectId(id)) this.fail(`${path}.populationIds[${i}]`, "A population id is 24 hexadecimal characters", [id]);
        });
        return;
      }
      case "RISK_SCORE": {
        if (!["riskScoresHml", "riskScoresPercentage"].includes(c.field)) this.fail(`${path}.field`, "A RISK_SCORE condition applies to riskScoresHml or riskScoresPercentage", [c.field], ["riskScoresHml", "riskScoresPercentage"]);
        const kind = this.oneOf(c, "riskScoreType", path, ["HML", "PERCENT"]);
        if (c.riskScoreId !== undefined) this.nonBlank(c, "riskScoreId", path);
        if (kind === "HML") {
          if (c.field === "riskScoresPercentage") this.fail(`${path}.riskScoreType`, "riskScoresPercentage takes riskScoreType PERCENT", [kind]);
          this.list(c, "values", path)?.forEach((v, i) => {
            if (typeof v !== "string" || !HML_VALUES.includes(v)) this.fail(`${path}.values[${i}]`, `values are a subset of ${HML_VALUES.join(", ")}`, [v], HML_VALUES);
          });
        } else if (kind === "PERCENT") {
          if (c.field === "riskScoresHml") this.fail(`${path}.riskScoreType`, "riskScoresHml takes riskScoreType HML", [kind]);
          const percent = this.oneOf(c, "riskScorePercentType", path, ["MORE_THAN", "LESS_THAN", "CUSTOM_RANGE", "BETWEEN", "UNSCORED"]);
          if (percent && percent !== "UNSCORED") this.amounts(c, path, percent === "CUSTOM_RANGE" || percent === "BETWEEN", (key) => this.integer(c, key, path, 0, 10000));
        }
        return;
      }
      case "MONETARY_FLOW": {
        if (c.field !== "monetarySpecificFlow") this.fail(`${path}.field`, "A MONETARY_FLOW condition applies to the field monetarySpecificFlow", [c.field], ["monetarySpecificFlow"]);
        const kind = this.oneOf(c, "monetaryFlowType", path, ["SIMPLE_FLOW", "COMPLEX_FLOW", "SPECIFIC_FLOW"]);
        if (kind !== "SPECIFIC_FLOW") return;
        for (const key of ["creditAccount", "debitAccount"]) {
          if (c[key] === undefined) this.fail(`${path}.${key}`, `${key} is required for SPECIFIC_FLOW`);
          else this.accountSelection(c[key], `${path}.${key}`, true);
        }
        const amount = this.oneOf(c, "specificMonetaryFlowType", path, ["SPECIFIC_VALUE", "MORE_THAN", "BETWEEN"]);
        if (amount) this.amounts(c, path, amount === "BETWEEN", (key) => this.integer(c, key, path));
        return;
      }
      case "MONEY": {
        const kind = this.oneOf(c, "monetaryValueType", path, ["MORE_THAN", "LESS_THAN", "SPECIFIC_VALUE", "BETWEEN"]);
        if (kind) this.amounts(c, path, kind === "BETWEEN", (key) => this.integer(c, key, path));
        return;
      }
      case "MATERIALITY": {
        if (c.field !== "materiality") this.fail(`${path}.field`, "A MATERIALITY condition applies to the field materiality", [c.field], ["materiality"]);
        const option = this.oneOf(c, "materialityOption", path, ["ABOVE", "BELOW", "PERCENTAGE"]);
        if (option === "PERCENTAGE" && this.number(c, "value", path) && c.value < 0) this.fail(`${path}.value`, "value is a percentage of materiality, at least 0", [c.value]);
        if (option && option !== "PERCENTAGE" && c.value !== undefined) this.fail(`${path}.value`, `${option} takes no value (it compares with the materiality itself)`, [c.value]);
        return;
      }
      case "NUMERICAL": {
        const kind = this.oneOf(c, "numericalValueType", path, ["MORE_THAN", "LESS_THAN", "SPECIFIC_VALUE", "BETWEEN"]);
        if (kind) this.amounts(c, path, kind === "BETWEEN", (key) => this.number(c, key, path));
        return;
      }
      case "DATE": {
        const kind = this.oneOf(c, "dateType", path, ["AFTER", "BEFORE", "SPECIFIC_VALUE", "BETWEEN"]);
        if (kind) this.amounts(c, path, kind === "BETWEEN", (key) => this.date(c, key, path));
        return;
      }
    }
  }
}

/** Problems of a condition tree; `topLevelGroup` for saved filters (their condition must be a GROUP). */
export function conditionProblems(condition: unknown, options: CheckOptions & { topLevelGroup?: boolean; path?: string } = {}): Problem[] {
  const checker = new Checker(options);
  const path = options.path ?? "condition";
  if (options.topLevelGroup && (typeof condition !== "object" || condition === null || (condition as Condition).type !== "GROUP")) {
    checker.fail(`${path}.type`, "The top-level condition of a saved filter must be a GROUP condition", [(condition as Condition | null)?.type ?? condition], ["GROUP"]);
    return checker.problems;
  }
  checker.walk(condition, path, 0);
  return checker.problems;
}

/**
 * The condition as stored (the `FilterCondition` column type): without the generated descriptions a
 * client may send back from a read. Only for a condition `conditionProblems` accepted.
 */
export function storedCondition(condition: unknown): Condition {
  if (typeof condition !== "object" || condition === null || Array.isArray(condition)) throw new Error("storedCondition: the condition was not checked");
  const { fullConditionDescription: _d, ...rest } = condition as Condition;
  if (Array.isArray(rest.conditions)) rest.conditions = rest.conditions.map(storedCondition);
  return rest as Condition;
}
