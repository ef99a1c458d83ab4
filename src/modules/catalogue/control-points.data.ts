import { defaultWeights, type ControlPointFamily, type ControlPointSettings, type CustomControlPoint } from "../../engine/control-points/index.js";
import { ANALYSIS_TYPE_IDS, type AnalysisTypeKey } from "./ids.js";

export type RiskAssertionCategory = "GENERAL" | "ASSETS" | "LIABILITIES_EQUITY" | "PROFIT_LOSS";
export type LangText = Record<string, string>;

/** One risk group of an analysis type configuration (wire reference section 8). */
export interface RiskGroup {
  id: string;
  name: LangText;
  description: LangText;
  category: LangText;
  analysisTypeId: string;
  riskAssertionCategory: RiskAssertionCategory;
  system: boolean;
  disabled: boolean;
  controlPointBundleVersion: string;
  /** Control point -> weight (0..100); the keys are the analysis type's control points. */
  controlPointWeights: Record<string, number>;
  /** Account classification codes the group covers; empty = every account. */
  filter: { values: string[] };
  applicableRiskRanges: string[];
  selectedRiskRange: string | null;
}

export interface Configuration {
  riskGroups: RiskGroup[];
  /** Overrides of control point settings, per control point name (and `general`); absent keys take the defaults. */
  controlPointSettings?: ControlPointSettings;
  /** The library's custom control points (general ledger types only). */
  customControlPoints?: CustomControlPoint[];
}

/** Bumped when the control point list or its definitions change (configurations record it). */
export const CONTROL_POINT_BUNDLE_VERSION = "2026.2";
export const MAX_CONTROL_POINT_WEIGHT = 100;

/** Which control point list each analysis type uses (src/engine/control-points). */
export const CONTROL_POINT_FAMILY: Record<AnalysisTypeKey, ControlPointFamily> = {
  GENERAL_LEDGER: "GL",
  NOT_FOR_PROFIT_GENERAL_LEDGER: "GL_NFP",
  NOT_FOR_PROFIT_GENERAL_LEDGER_FUND: "GL_NFP_FUND",
  ACCOUNTS_PAYABLE_V2: "AP",
  ACCOUNTS_RECEIVABLE_V2: "AR",
};

/** Default weight of each control point of each analysis type (symbolic name -> 0..100). */
export const CONTROL_POINTS: Record<AnalysisTypeKey, Record<string, number>> = Object.fromEntries(
  Object.entries(CONTROL_POINT_FAMILY).map(([key, family]) => [key, defaultWeights(family)]),
) as Record<AnalysisTypeKey, Record<string, number>>;

export function controlPointFamilyOf(analysisTypeId: string): ControlPointFamily | undefined {
  const key = analysisTypeKeyOf(analysisTypeId);
  return key ? CONTROL_POINT_FAMILY[key] : undefined;
}

interface GroupSpec {
  category: RiskAssertionCategory;
  name: string;
  description: string;
  /** Top-level MAC codes of the system account grouping the group covers. */
  macCodes: string[];
}

const OVERALL: GroupSpec = { category: "GENERAL", name: "Overall", description: "The platform score: every entry, and the fallback group of accounts no other group covers", macCodes: [] };
const LEDGER_GROUPS: GroupSpec[] = [
  OVERALL,
  { category: "ASSETS", name: "Assets", description: "Entries touching asset accounts", macCodes: ["1"] },
  { category: "LIABILITIES_EQUITY", name: "Liabilities and equity", description: "Entries touching liability or equity accounts", macCodes: ["2", "3"] },
  { category: "PROFIT_LOSS", name: "Profit and loss", description: "Entries touching revenue or expense accounts", macCodes: ["4", "5"] },
];

const GROUPS: Record<AnalysisTypeKey, GroupSpec[]> = {
  GENERAL_LEDGER: LEDGER_GROUPS,
  NOT_FOR_PROFIT_GENERAL_LEDGER: LEDGER_GROUPS,
  NOT_FOR_PROFIT_GENERAL_LEDGER_FUND: LEDGER_GROUPS,
  ACCOUNTS_PAYABLE_V2: [OVERALL],
  ACCOUNTS_RECEIVABLE_V2: [OVERALL],
};

const TYPE_KEYS = Object.keys(ANALYSIS_TYPE_IDS) as AnalysisTypeKey[];

/** Stable risk group id: 4b8362d0, then the analysis type's and the group's position. */
function riskGroupId(typeKey: AnalysisTypeKey, index: number): string {
  return `4b8362d0${"0".repeat(14)}${TYPE_KEYS.indexOf(typeKey).toString(16)}${index.toString(16)}`;
}

/** The system default configuration of an analysis type, selecting `riskRangeId`. */
export function defaultConfiguration(typeKey: AnalysisTypeKey, riskRangeId: string | null): Configuration {
  return {
    riskGroups: GROUPS[typeKey].map((group, index) => ({
      id: riskGroupId(typeKey, index),
      name: { en: group.name },
      description: { en: group.description },
      category: { en: group.category === "GENERAL" ? "General" : "Financial statement area" },
      analysisTypeId: ANALYSIS_TYPE_IDS[typeKey],
      riskAssertionCategory: group.category,
      system: true,
      disabled: false,
      controlPointBundleVersion: CONTROL_POINT_BUNDLE_VERSION,
      controlPointWeights: { ...CONTROL_POINTS[typeKey] },
      filter: { values: [...group.macCodes] },
      applicableRiskRanges: riskRangeId ? [riskRangeId] : [],
      selectedRiskRange: riskRangeId,
    })),
    controlPointSettings: {},
    customControlPoints: [],
  };
}

export function analysisTypeKeyOf(id: string): AnalysisTypeKey | undefined {
  return TYPE_KEYS.find((key) => ANALYSIS_TYPE_IDS[key] === id);
}
