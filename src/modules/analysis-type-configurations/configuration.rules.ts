import type { Problem } from "../../core/errors.js";
import { MAX_CONTROL_POINT_WEIGHT, type Configuration, type RiskGroup } from "../catalogue/control-points.data.js";

export interface RiskGroupUpdate {
  id: string;
  disabled?: boolean | null;
  controlPointWeights?: unknown;
  filter?: { values?: string[] | null } | null;
  applicableRiskRanges?: string[] | null;
  selectedRiskRange?: string | null;
}

/** Which library permission guards each editable part of a risk group below library level. */
export type GuardedChange = "controlPointWeights" | "disabled" | "riskRanges" | "filter";

export interface AppliedUpdate {
  configuration: Configuration;
  problems: Problem[];
  changes: Array<{ change: GuardedChange; identifier: string }>;
}

/** Key order differs between JSON written here and jsonb read back, so compare canonically. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === "object" && value !== null) return Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]));
  return value;
}
const sameJson = (a: unknown, b: unknown) => JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));

function weightProblems(value: unknown, group: RiskGroup, at: string): Problem[] {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return [{ problemType: "INCORRECT_DATA_TYPE", severity: "ERROR", identifier: at, reason: `${at} must be an object of control point -> integer weight` }];
  }
  const problems: Problem[] = [];
  for (const [point, weight] of Object.entries(value)) {
    const id = `${at}.${point}`;
    if (!(point in group.controlPointWeights)) {
      problems.push({ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier: id, reason: `${point} is not a control point of this analysis type`, values: [point], suggestedValues: Object.keys(group.controlPointWeights) });
    } else if (typeof weight !== "number" || !Number.isInteger(weight)) {
      problems.push({ problemType: "INCORRECT_DATA_TYPE", severity: "ERROR", identifier: id, reason: `${id} must be an integer`, values: [String(weight)] });
    } else if (weight < 0) {
      problems.push({ problemType: "GREATER_VALUE_REQUIRED", severity: "ERROR", identifier: id, reason: `${id} must be at least 0`, values: [String(weight)] });
    } else if (weight > MAX_CONTROL_POINT_WEIGHT) {
      problems.push({ problemType: "LESS_VALUE_REQUIRED", severity: "ERROR", identifier: id, reason: `${id} must be at most ${MAX_CONTROL_POINT_WEIGHT}`, values: [String(weight)] });
    }
  }
  return problems;
}

/**
 * Applies risk group edits to a stored configuration. Groups are identified by id and cannot be
 * added or removed; weights merge into the existing ones. Risk range ids are checked by the caller
 * (they depend on the scope); `knownRiskRanges` lists the ones allowed here.
 */
export function applyRiskGroupUpdates(stored: Configuration, updates: readonly RiskGroupUpdate[], knownRiskRanges: ReadonlySet<string>): AppliedUpdate {
  const problems: Problem[] = [];
  const changes: AppliedUpdate["changes"] = [];
  const groups = stored.riskGroups.map((g) => ({ ...g, controlPointWeights: { ...g.controlPointWeights }, filter: { values: [...g.filter.values] } }));
  updates.forEach((update, index) => {
    const at = `configuration.riskGroups[${index}]`;
    const group = groups.find((g) => g.id === update.id);
    if (!group) {
      problems.push({ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier: `${at}.id`, reason: `${update.id} is not a risk group of this configuration`, values: [update.id], suggestedValues: groups.map((g) => g.id) });
      return;
    }
    if (update.disabled != null && update.disabled !== group.disabled) {
      group.disabled = update.disabled;
      changes.push({ change: "disabled", identifier: `${at}.disabled` });
    }
    if (update.controlPointWeights != null) {
      const found = weightProblems(update.controlPointWeights, group, `${at}.controlPointWeights`);
      problems.push(...found);
      if (found.length === 0) {
        const merged = { ...group.controlPointWeights, ...(update.controlPointWeights as Record<string, number>) };
        if (!sameJson(merged, group.controlPointWeights)) changes.push({ change: "controlPointWeights", identifier: `${at}.controlPointWeights` });
        group.controlPointWeights = merged;
      }
    }
    if (update.filter?.values != null && !sameJson(update.filter.values, group.filter.values)) {
      group.filter = { values: [...update.filter.values] };
      changes.push({ change: "filter", identifier: `${at}.filter` });
    }
    const applicable = update.applicableRiskRanges ?? group.applicableRiskRanges;
    update.applicableRiskRanges?.forEach((id, j) => {
      if (!knownRiskRanges.has(id)) problems.push({ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier: `${at}.applicableRiskRanges[${j}]`, reason: `${id} is not a risk range of this analysis type in this library or engagement`, values: [id] });
    });
    const selected = update.selectedRiskRange !== undefined ? update.selectedRiskRange : group.selectedRiskRange;
    if (selected != null && !applicable.includes(selected)) {
      problems.push({ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier: `${at}.selectedRiskRange`, reason: `selectedRiskRange ${selected} must be one of applicableRiskRanges`, values: [selected], suggestedValues: applicable });
    }
    if (!sameJson(applicable, group.applicableRiskRanges) || selected !== group.selectedRiskRange) {
      changes.push({ change: "riskRanges", identifier: `${at}.${update.selectedRiskRange !== undefined ? "selectedRiskRange" : "applicableRiskRanges"}` });
      group.applicableRiskRanges = [...applicable];
      group.selectedRiskRange = selected ?? null;
    }
  });
  return { configuration: { ...stored, riskGroups: groups }, problems, changes };
}

/** The editable parts of the groups, reset to the system defaults (risk range choices are kept). */
export function resetToDefaults(stored: Configuration, defaults: Configuration): Configuration {
  return {
    ...stored,
    riskGroups: stored.riskGroups.map((group) => {
      const original = defaults.riskGroups.find((d) => d.id === group.id);
      return original ? { ...group, disabled: original.disabled, controlPointWeights: { ...original.controlPointWeights }, filter: { values: [...original.filter.values] } } : group;
    }),
  };
}

/** A configuration is `system` while its editable parts equal the system defaults. */
export function matchesDefaults(configuration: Configuration, defaults: Configuration): boolean {
  return configuration.riskGroups.every((group) => {
    const original = defaults.riskGroups.find((d) => d.id === group.id);
    return original !== undefined && group.disabled === original.disabled && sameJson(group.controlPointWeights, original.controlPointWeights) && sameJson(group.filter, original.filter);
  });
}
