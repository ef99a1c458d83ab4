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
}

export const CONTROL_POINT_BUNDLE_VERSION = "2024.1";
export const MAX_CONTROL_POINT_WEIGHT = 100;

/** Default weight of each control point, per analysis type family. */
const LEDGER_CONTROL_POINTS: Record<string, number> = {
  RARE_FLOWS: 60,
  OUTLIER_ANOMALY: 70,
  UNUSUAL_AMOUNT: 50,
  ROUND_AMOUNT: 20,
  BENFORD_DIGITS: 20,
  WEEKEND_POSTING: 30,
  POST_CLOSE_ENTRY: 50,
  BACKDATED_ENTRY: 40,
  MANUAL_ENTRY: 30,
  SAME_PREPARER_APPROVER: 40,
  MEMO_KEYWORDS: 30,
  REVERSED_ENTRY: 20,
  DUPLICATE_ENTRY: 50,
  HIGH_MONETARY_VALUE: 60,
};

const FUND_CONTROL_POINTS: Record<string, number> = { ...LEDGER_CONTROL_POINTS, INTERFUND_TRANSFER: 40 };

const PAYABLES_CONTROL_POINTS: Record<string, number> = {
  DUPLICATE_INVOICE: 70,
  SPLIT_INVOICE: 50,
  NEW_VENDOR: 40,
  PAYMENT_BEFORE_INVOICE: 60,
  OVERDUE_PAYMENT: 30,
  ROUND_AMOUNT: 20,
  UNUSUAL_AMOUNT: 50,
  WEEKEND_POSTING: 30,
  BENFORD_DIGITS: 20,
};

const RECEIVABLES_CONTROL_POINTS: Record<string, number> = {
  DUPLICATE_INVOICE: 70,
  NEW_CUSTOMER: 40,
  CREDIT_LIMIT_EXCEEDED: 50,
  OVERDUE_RECEIVABLE: 40,
  CREDIT_NOTE_AFTER_PERIOD: 60,
  ROUND_AMOUNT: 20,
  UNUSUAL_AMOUNT: 50,
  WEEKEND_POSTING: 30,
  BENFORD_DIGITS: 20,
};

export const CONTROL_POINTS: Record<AnalysisTypeKey, Record<string, number>> = {
  GENERAL_LEDGER: LEDGER_CONTROL_POINTS,
  NOT_FOR_PROFIT_GENERAL_LEDGER: LEDGER_CONTROL_POINTS,
  NOT_FOR_PROFIT_GENERAL_LEDGER_FUND: FUND_CONTROL_POINTS,
  ACCOUNTS_PAYABLE_V2: PAYABLES_CONTROL_POINTS,
  ACCOUNTS_RECEIVABLE_V2: RECEIVABLES_CONTROL_POINTS,
};

interface GroupSpec {
  category: RiskAssertionCategory;
  name: string;
  description: string;
  /** Top-level MAC codes of the system account grouping the group covers. */
  macCodes: string[];
}

const OVERALL: GroupSpec = { category: "GENERAL", name: "Overall", description: "Every entry, whatever its accounts", macCodes: [] };
const LEDGER_GROUPS: GroupSpec[] = [
  OVERALL,
  { category: "ASSETS", name: "Assets", description: "Entries touching asset accounts", macCodes: ["1000"] },
  { category: "LIABILITIES_EQUITY", name: "Liabilities and equity", description: "Entries touching liability or equity accounts", macCodes: ["2000", "3000"] },
  { category: "PROFIT_LOSS", name: "Profit and loss", description: "Entries touching revenue or expense accounts", macCodes: ["4000", "5000"] },
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
  };
}

export function analysisTypeKeyOf(id: string): AnalysisTypeKey | undefined {
  return TYPE_KEYS.find((key) => ANALYSIS_TYPE_IDS[key] === id);
}
