import { CUSTOM_PREFIX, familyControlPoints, isGeneralLedger, resultControlPoints, type ControlPointDefinition, type RequiredField } from "./control-points/index.js";
import type { EngineSpec } from "./spec.js";
import { resultTables, type ResultTables } from "./tables.js";

/** A control point as one run sees it: its columns, whether it runs, and its bit in an entry's own mask. */
export interface PlannedPoint {
  definition: ControlPointDefinition;
  /** Position in the result's control point columns (also its bit in `own_mask`). */
  index: number;
  /** Whether the run computes it: its fields are mapped and it belongs to the analysis type. */
  available: boolean;
  /** Why it is not run, for the result summary. */
  skipped: string | null;
  /** Whether a score means failure at any level above 0 (rules-based, expert) or from the flag threshold (graded). */
  graded: boolean;
}

/** Entry fields each source mapping may provide, by the engine's normalized column name. */
const FIELD_COLUMNS: Record<RequiredField, string[]> = {
  entered_date: ["entry_date"],
  memo: ["memo"],
  type: ["source", "entry_type"],
  user_id: ["entered_by"],
  fund_id: ["fund_id"],
  invoice_id: ["invoice_id"],
  invoice_date: ["invoice_date"],
  party_id: ["vendor_id", "customer_id"],
  party_list: [],
  party_opening_balances: [],
};

export interface RunPlan {
  spec: EngineSpec;
  tables: ResultTables;
  /** Result columns: the family's control points, then published custom ones. */
  points: PlannedPoint[];
  /** Whether a normalized entry field is mapped in at least one source. */
  has(field: RequiredField): boolean;
  point(name: string): PlannedPoint;
  /** Whether the point is a column of this result at all (run or not). */
  planned(name: string): boolean;
  setting<T = unknown>(point: string, key: string): T;
  flagThreshold: number;
}

export function planRun(spec: EngineSpec): RunPlan {
  const mapped = new Set(spec.sources.flatMap((s) => s.columns));
  const has = (field: RequiredField): boolean => {
    if (field === "party_list") return spec.partyLists.length > 0;
    if (field === "party_opening_balances") return spec.openingBalances.length > 0;
    return FIELD_COLUMNS[field].some((c) => mapped.has(c));
  };
  const inFamily = new Set(familyControlPoints(spec.family).map((p) => p.name));
  const definitions: ControlPointDefinition[] = [...resultControlPoints(spec.family)];
  if (isGeneralLedger(spec.family)) {
    for (const custom of spec.customControlPoints) {
      definitions.push({
        name: custom.id,
        displayName: custom.name,
        kind: "EXPERT_RULES",
        level: "FLOW",
        defaultWeight: 0,
        platformName: false,
        requires: [],
        settings: {},
        summary: custom.description ?? "A flow named by the library's custom expert rules.",
      });
      inFamily.add(custom.id);
    }
  }
  const points = definitions.map((definition, index): PlannedPoint => {
    const missing = definition.requires.filter((f) => !has(f));
    let skipped: string | null = null;
    if (!inFamily.has(definition.name)) skipped = "not a control point of this analysis type's libraries";
    else if (missing.length > 0) skipped = `needs mapped ${missing.join(", ")}`;
    else if (definition.name === "journal_entry_weekend_post" && !has("entered_date") && spec.settings[definition.name]?.useEffectiveDate === false) skipped = "needs mapped entered_date";
    return { definition, index, available: skipped === null, skipped, graded: definition.kind === "STATISTICAL" || definition.kind === "MACHINE_LEARNING" };
  });
  const byName = new Map(points.map((p) => [p.definition.name, p]));
  return {
    spec,
    tables: resultTables(spec.resultId),
    points,
    has,
    point(name) {
      const found = byName.get(name);
      if (!found) throw new Error(`control point ${name} is not planned`);
      return found;
    },
    planned: (name) => byName.has(name),
    setting<T>(point: string, key: string): T {
      return spec.settings[point]?.[key] as T;
    },
    flagThreshold: Number(spec.settings.general?.flagThreshold ?? 5000),
  };
}

export function isCustom(name: string): boolean {
  return name.startsWith(CUSTOM_PREFIX);
}
