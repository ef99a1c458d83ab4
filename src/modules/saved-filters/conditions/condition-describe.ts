import type { Condition } from "./condition-check.js";

/**
 * `fullConditionDescription` (spec 2.9): a plain-English sentence for each condition, generated on
 * read from the stored condition (never stored, so it cannot go stale). Amounts are MONEY_100
 * integers shown as currency amounts; percentages of risk scores are PERCENTAGE_FIXED_POINT.
 */
export interface DescribeOptions {
  displayCurrencyCode?: string | null;
}

const SPECIAL_LABELS: Record<string, string> = {
  cp_failed: "Control points",
  riskScoresHml: "Risk score",
  riskScoresPercentage: "Risk score",
  monetarySpecificFlow: "Monetary flow",
  account_hierarchy_codes: "Account",
  increasingCredits: "Account increasing by credits",
  increasingDebits: "Account increasing by debits",
  population: "Population",
  accountScoping: "Account scoping",
  riskGroup: "Risk group",
};

function labelOf(c: Condition): string {
  if (typeof c.fieldLabel === "string" && c.fieldLabel.trim() !== "") return c.fieldLabel;
  const field = String(c.field ?? "");
  if (SPECIAL_LABELS[field]) return SPECIAL_LABELS[field];
  const words = field.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/_/g, " ").toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function money(value: unknown, options: DescribeOptions): string {
  const n = Number(value) / 100;
  const text = n.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  return options.displayCurrencyCode ? `${options.displayCurrencyCode} ${text}` : text;
}

const percent = (value: unknown) => `${(Number(value) / 100).toLocaleString("en-US", { maximumFractionDigits: 2 })}%`;
const list = (items: string[], word = "or") => (items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} ${word} ${items[items.length - 1]}`);
const quoted = (items: unknown[]) => items.map((v) => `"${String(v)}"`);

function compare(kind: string, c: Condition, show: (v: unknown) => string): string {
  switch (kind) {
    case "MORE_THAN":
      return `more than ${show(c.value)}`;
    case "LESS_THAN":
      return `less than ${show(c.value)}`;
    case "AFTER":
      return `after ${show(c.value)}`;
    case "BEFORE":
      return `before ${show(c.value)}`;
    case "SPECIFIC_VALUE":
      return `equal to ${show(c.value)}`;
    default:
      return `between ${show(c.rangeStart)} and ${show(c.rangeEnd)}`;
  }
}

function selection(s: { name?: string; code: string; useAccountId?: boolean }): string {
  if (s.code === "complex") return "a complex flow";
  const what = s.useAccountId ? "account" : "account group";
  return s.name ? `${what} ${s.code} (${s.name})` : `${what} ${s.code}`;
}

/** The sentence for one condition; groups join their members' sentences. */
export function describeCondition(c: Condition, options: DescribeOptions = {}, nested = false): string {
  if (c.type === "GROUP") {
    const parts = (c.conditions as Condition[]).map((child) => describeCondition(child, options, true));
    const text = parts.join(c.operator === "OR" ? " or " : " and ");
    const wrapped = nested && parts.length > 1 ? `(${text})` : text;
    return c.negated ? `not ${nested ? wrapped : `(${wrapped})`}` : wrapped;
  }
  const label = labelOf(c);
  const is = c.negated ? "is not" : "is";
  switch (c.type) {
    case "STRING":
      return `${label} ${is} ${list(quoted(c.values))}`;
    case "STRING_ARRAY":
      return `${label} ${c.negated ? "does not start" : "starts"} with ${list(quoted(c.values))}`;
    case "CONTROL_POINT": {
      const level = { HIGH_RISK: "high", MEDIUM_RISK: "medium", LOW_RISK: "low" }[c.riskLevel as string] ?? String(c.riskLevel).toLowerCase();
      const names = (c.controlPoints as Array<{ id: string; name?: string }>).map((p) => p.name ?? p.id);
      return `Control point ${list(names)} ${is} at ${level} risk`;
    }
    case "ACCOUNT_NODE_ARRAY":
      return `${label} ${is} ${list((c.accountSelections as Array<{ code: string }>).map(selection))}`;
    case "TYPEAHEAD_ENTRY":
      return `${label} ${is} ${list(quoted((c.values as Array<{ lookupId: string; displayName?: string; hideLookupId?: boolean }>).map((v) => (v.hideLookupId && v.displayName ? v.displayName : v.displayName ? `${v.lookupId} (${v.displayName})` : v.lookupId))))}`;
    case "POPULATIONS": {
      const names: string[] = Array.isArray(c.populationNames) && c.populationNames.length === c.populationIds.length ? c.populationNames : c.populationIds;
      return `Entry ${is} in population ${list(quoted(names))}`;
    }
    case "RISK_SCORE": {
      const score = c.riskScoreLabel ?? (c.riskScoreId && c.riskScoreId !== "risk" ? c.riskScoreId : "Risk score");
      if (c.riskScoreType === "HML") return `${score} ${is} ${list((c.values as string[]).map((v) => v.toLowerCase()))}`;
      if (c.riskScorePercentType === "UNSCORED") return `${score} ${is} unscored`;
      return `${score} ${is} ${compare(c.riskScorePercentType === "CUSTOM_RANGE" || c.riskScorePercentType === "BETWEEN" ? "BETWEEN" : c.riskScorePercentType, c, percent)}`;
    }
    case "MONETARY_FLOW":
      if (c.monetaryFlowType === "SIMPLE_FLOW") return `Transaction ${is} a simple monetary flow`;
      if (c.monetaryFlowType === "COMPLEX_FLOW") return `Transaction ${is} a complex monetary flow`;
      return `Monetary flow from ${selection(c.creditAccount)} to ${selection(c.debitAccount)} ${is} ${compare(c.specificMonetaryFlowType, c, (v) => money(v, options))}`;
    case "MONEY":
      return `${label} ${is} ${compare(c.monetaryValueType, c, (v) => money(v, options))}`;
    case "MATERIALITY":
      if (c.materialityOption === "ABOVE") return `Amount ${is} at or above materiality`;
      if (c.materialityOption === "BELOW") return `Amount ${is} below materiality`;
      return `Amount ${is} at least ${c.value}% of materiality`;
    case "NUMERICAL":
      return `${label} ${is} ${compare(c.numericalValueType, c, (v) => String(v))}`;
    case "DATE":
      return `${label} ${is} ${compare(c.dateType, c, (v) => String(v))}`;
  }
}

/** The condition with `fullConditionDescription` on it and on every member, as read models show it. */
export function withDescriptions(condition: unknown, options: DescribeOptions = {}): unknown {
  if (typeof condition !== "object" || condition === null) return condition;
  const c = condition as Condition;
  try {
    const out: Record<string, unknown> = { ...c, fullConditionDescription: describeCondition(c, options) };
    if (c.type === "GROUP" && Array.isArray(c.conditions)) out.conditions = c.conditions.map((child) => withDescriptions(child, options));
    return out;
  } catch {
    // A condition stored before a rule existed still reads; it just has no description.
    return c;
  }
}
