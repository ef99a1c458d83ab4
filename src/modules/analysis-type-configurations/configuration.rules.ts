import type { Problem } from "../../core/errors.js";
import { customControlPointProblems, effectiveSettings, normalizeCustom, settingsProblems, type ControlPointFamily, type ControlPointSettings } from "../../engine/index.js";
import { MAX_CONTROL_POINT_WEIGHT, type Configuration, type RiskGroup } from "../catalogue/control-points.data.js";

import type { RiskGroupUpdate } from "./configuration.inputs.js";

/** Which library permission guards each editable part of a risk group below library level. */
export type GuardedChange = "controlPointWeights" | "disabled" | "riskRanges" | "filter" | "controlPointSettings" | "customControlPoints";

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

/**
 * Control point settings and custom control points: settings merge into the stored overrides per
 * control point, and only values that differ from the defaults are kept (`null` for a setting
 * whose default is decided from the data restores that); `customControlPoints` replaces the list, and every risk
 * group gets a weight of 0 for a new custom point and loses the weight of a removed one.
 */
export function applyControlPointUpdates(
  stored: Configuration,
  family: ControlPointFamily,
  input: { controlPointSettings?: unknown; customControlPoints?: unknown },
): { configuration: Configuration; problems: Problem[]; changes: AppliedUpdate["changes"] } {
  const problems: Problem[] = [];
  const changes: AppliedUpdate["changes"] = [];
  let configuration: Configuration = { ...stored, controlPointSettings: { ...(stored.controlPointSettings ?? {}) }, customControlPoints: [...(stored.customControlPoints ?? [])] };
  if (input.customControlPoints != null) {
    const found = customControlPointProblems(family, input.customControlPoints);
    problems.push(...found);
    if (found.length === 0) {
      const custom = normalizeCustom(input.customControlPoints);
      if (!sameJson(custom, configuration.customControlPoints)) changes.push({ change: "customControlPoints", identifier: "configuration.customControlPoints" });
      const before = new Set((configuration.customControlPoints ?? []).map((c) => c.id));
      const after = new Set(custom.map((c) => c.id));
      configuration = {
        ...configuration,
        customControlPoints: custom,
        riskGroups: configuration.riskGroups.map((g) => {
          const weights = { ...g.controlPointWeights };
          for (const id of before) if (!after.has(id)) delete weights[id];
          for (const id of after) if (!(id in weights)) weights[id] = 0;
          return { ...g, controlPointWeights: weights };
        }),
      };
    }
  }
  if (input.controlPointSettings != null) {
    const found = settingsProblems(family, input.controlPointSettings, "configuration.controlPointSettings", (configuration.customControlPoints ?? []).map((c) => c.id));
    problems.push(...found);
    if (found.length === 0) {
      const merged: ControlPointSettings = { ...(configuration.controlPointSettings ?? {}) };
      for (const [point, values] of Object.entries(input.controlPointSettings as ControlPointSettings)) merged[point] = { ...(merged[point] ?? {}), ...values };
      // Only what differs from the defaults is stored: a read body sent back stores nothing new.
      const defaults = effectiveSettings(family, {});
      for (const [point, values] of Object.entries(merged)) {
        const kept = Object.fromEntries(Object.entries(values).filter(([key, value]) => !sameJson(value, defaults[point]?.[key])));
        if (Object.keys(kept).length === 0) delete merged[point];
        else merged[point] = kept;
      }
      if (!sameJson(effectiveSettings(family, merged), effectiveSettings(family, configuration.controlPointSettings))) changes.push({ change: "controlPointSettings", identifier: "configuration.controlPointSettings" });
      configuration = { ...configuration, controlPointSettings: merged };
    }
  }
  return { configuration, problems, changes };
}

/** The editable parts of the groups, reset to the system defaults (risk range choices are kept). */
export function resetToDefaults(stored: Configuration, defaults: Configuration): Configuration {
  return {
    ...stored,
    controlPointSettings: {},
    riskGroups: stored.riskGroups.map((group) => {
      const original = defaults.riskGroups.find((d) => d.id === group.id);
      return original ? { ...group, disabled: original.disabled, controlPointWeights: { ...original.controlPointWeights }, filter: { values: [...original.filter.values] } } : group;
    }),
  };
}

/** A configuration is `system` while its editable parts equal the system defaults. */
export function matchesDefaults(configuration: Configuration, defaults: Configuration): boolean {
  if ((configuration.customControlPoints ?? []).length > 0) return false;
  if (Object.values(configuration.controlPointSettings ?? {}).some((values) => Object.keys(values).length > 0)) return false;
  return configuration.riskGroups.every((group) => {
    const original = defaults.riskGroups.find((d) => d.id === group.id);
    return original !== undefined && group.disabled === original.disabled && sameJson(group.controlPointWeights, original.controlPointWeights) && sameJson(group.filter, original.filter);
  });
}
