import { FLAG_THRESHOLD_SETTING, GL_CONTROL_POINTS, NFP_FUND_POINTS, NFP_SPLIT_EXPENSE_POINTS } from "./general-ledger.js";
import { AP_CONTROL_POINTS, AR_CONTROL_POINTS } from "./subledger.js";
import type { ControlPointDefinition, ControlPointFamily, SettingDefinition } from "./types.js";

export * from "./types.js";
export { DEFAULT_EXPERT_RULES, FLAG_THRESHOLD_SETTING, GL_CONTROL_POINTS } from "./general-ledger.js";
export { AP_CONTROL_POINTS, AR_CONTROL_POINTS } from "./subledger.js";

/** The control point that for-profit libraries leave out although its column is in every GL result. */
export const NFP_ONLY = "journal_entry_nfp_expense_flurry";

/**
 * Result columns per family, in order: the 36 of the platform's export for every general ledger,
 * then the not-for-profit additions; payables and receivables their own lists.
 */
export function resultControlPoints(family: ControlPointFamily): readonly ControlPointDefinition[] {
  switch (family) {
    case "GL":
      return GL_CONTROL_POINTS;
    case "GL_NFP":
      return [...GL_CONTROL_POINTS, ...NFP_SPLIT_EXPENSE_POINTS];
    case "GL_NFP_FUND":
      return [...GL_CONTROL_POINTS, ...NFP_SPLIT_EXPENSE_POINTS, ...NFP_FUND_POINTS];
    case "AP":
      return AP_CONTROL_POINTS;
    case "AR":
      return AR_CONTROL_POINTS;
  }
}

/** The control points a family's libraries weigh (risk group `controlPointWeights` keys). */
export function familyControlPoints(family: ControlPointFamily): readonly ControlPointDefinition[] {
  const all = resultControlPoints(family);
  return family === "GL" ? all.filter((p) => p.name !== NFP_ONLY) : all;
}

export function defaultWeights(family: ControlPointFamily): Record<string, number> {
  return Object.fromEntries(familyControlPoints(family).map((p) => [p.name, p.defaultWeight]));
}

export function isGeneralLedger(family: ControlPointFamily): boolean {
  return family === "GL" || family === "GL_NFP" || family === "GL_NFP_FUND";
}

/** Settings that apply to every control point of a family (`controlPointSettings.general`). */
export const GENERAL_SETTINGS: Record<string, SettingDefinition> = { flagThreshold: FLAG_THRESHOLD_SETTING };

export type ControlPointSettings = Record<string, Record<string, unknown>>;

/** Stored overrides merged over the defaults: what a run uses (and records in its result). */
export function effectiveSettings(family: ControlPointFamily, overrides: ControlPointSettings | null | undefined): ControlPointSettings {
  const out: ControlPointSettings = { general: defaultsOf(GENERAL_SETTINGS, overrides?.general) };
  for (const point of resultControlPoints(family)) out[point.name] = defaultsOf(point.settings, overrides?.[point.name]);
  return out;
}

function defaultsOf(definitions: Record<string, SettingDefinition>, overrides: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, definition] of Object.entries(definitions)) out[key] = overrides && key in overrides ? overrides[key] : definition.default;
  return out;
}

export function findControlPoint(family: ControlPointFamily, name: string): ControlPointDefinition | undefined {
  return resultControlPoints(family).find((p) => p.name === name);
}
