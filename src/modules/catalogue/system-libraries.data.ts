import { defaultConfiguration, CONTROL_POINT_BUNDLE_VERSION, type Configuration } from "./control-points.data.js";
import { ANALYSIS_TYPE_IDS, SYSTEM_ACCOUNT_GROUPING_ID, SYSTEM_LIBRARY_IDS, type AnalysisTypeKey, type SystemLibraryKey } from "./ids.js";

export type RiskScoreDisplay = "HIGH_MEDIUM_LOW" | "PERCENTAGE";

export interface ThresholdBound {
  lowThreshold: number;
  highThreshold: number;
}

export interface RiskRangeBounds {
  low: ThresholdBound;
  medium: ThresholdBound;
  high: ThresholdBound;
}

export interface SystemLibraryData {
  id: string;
  key: SystemLibraryKey;
  name: string;
  analysisTypeKeys: AnalysisTypeKey[];
  accountGroupingId: string;
  defaultDelimiter: string;
  riskScoreDisplay: RiskScoreDisplay;
  controlPointSelectionPermission: boolean;
  controlPointSettingsPermission: boolean;
  controlPointWeightPermission: boolean;
  riskRangeEditPermission: boolean;
  riskScoreAndGroupsSelectionPermission: boolean;
}

export interface SystemRiskRangeData extends RiskRangeBounds {
  id: string;
  name: string;
  description: string;
  analysisTypeId: string;
  libraryId: string;
}

export interface SystemConfigurationData {
  id: string;
  libraryId: string;
  analysisTypeId: string;
  controlPointBundleVersion: string;
  configuration: Configuration;
}

/**
 * Thresholds are PERCENTAGE_FIXED_POINT (0..10000 = 0.00%..100.00%); bounds are half-open and touch.
 * The platform's documented defaults (control-points.md): low up to 29.99%, medium 30% to 49.99%,
 * high 50% and above.
 */
export const DEFAULT_RISK_RANGE: RiskRangeBounds = {
  low: { lowThreshold: 0, highThreshold: 3000 },
  medium: { lowThreshold: 3000, highThreshold: 5000 },
  high: { lowThreshold: 5000, highThreshold: 10000 },
};

/** Review engagements flag more: lower thresholds. */
const REVIEW_RISK_RANGE: RiskRangeBounds = {
  low: { lowThreshold: 0, highThreshold: 2500 },
  medium: { lowThreshold: 2500, highThreshold: 6000 },
  high: { lowThreshold: 6000, highThreshold: 10000 },
};

const ALL_PERMISSIONS = {
  controlPointSelectionPermission: true,
  controlPointSettingsPermission: true,
  controlPointWeightPermission: true,
  riskRangeEditPermission: true,
  riskScoreAndGroupsSelectionPermission: true,
} as const;

const common = { accountGroupingId: SYSTEM_ACCOUNT_GROUPING_ID, defaultDelimiter: "-", riskScoreDisplay: "HIGH_MEDIUM_LOW" as const, ...ALL_PERMISSIONS };

export const SYSTEM_LIBRARIES: readonly SystemLibraryData[] = [
  { id: SYSTEM_LIBRARY_IDS.PLATFORM_FOR_PROFIT, key: "PLATFORM_FOR_PROFIT", name: "Platform for-profit", analysisTypeKeys: ["GENERAL_LEDGER", "ACCOUNTS_PAYABLE_V2", "ACCOUNTS_RECEIVABLE_V2"], ...common },
  { id: SYSTEM_LIBRARY_IDS.PLATFORM_NOT_FOR_PROFIT, key: "PLATFORM_NOT_FOR_PROFIT", name: "Platform not-for-profit", analysisTypeKeys: ["NOT_FOR_PROFIT_GENERAL_LEDGER", "ACCOUNTS_PAYABLE_V2", "ACCOUNTS_RECEIVABLE_V2"], ...common },
  { id: SYSTEM_LIBRARY_IDS.PLATFORM_NOT_FOR_PROFIT_WITH_FUNDS, key: "PLATFORM_NOT_FOR_PROFIT_WITH_FUNDS", name: "Platform not-for-profit with funds", analysisTypeKeys: ["NOT_FOR_PROFIT_GENERAL_LEDGER_FUND", "ACCOUNTS_PAYABLE_V2", "ACCOUNTS_RECEIVABLE_V2"], ...common },
  { id: SYSTEM_LIBRARY_IDS.PLATFORM_REVIEW, key: "PLATFORM_REVIEW", name: "Platform review", analysisTypeKeys: ["GENERAL_LEDGER"], ...common, riskScoreDisplay: "PERCENTAGE" },
];

const LIBRARY_KEYS = Object.keys(SYSTEM_LIBRARY_IDS) as SystemLibraryKey[];
const TYPE_KEYS = Object.keys(ANALYSIS_TYPE_IDS) as AnalysisTypeKey[];

/** Stable seeded id: a prefix, then the library's and the analysis type's positions. */
function seededId(prefix: string, library: SystemLibraryKey, type: AnalysisTypeKey): string {
  return `${prefix}${"0".repeat(14)}${LIBRARY_KEYS.indexOf(library).toString(16)}${TYPE_KEYS.indexOf(type).toString(16)}`;
}

export const SYSTEM_RISK_RANGES: readonly SystemRiskRangeData[] = SYSTEM_LIBRARIES.flatMap((library) =>
  library.analysisTypeKeys.map((type) => ({
    id: seededId("4b8364d0", library.key, type),
    name: "Default",
    description: "System default risk range",
    analysisTypeId: ANALYSIS_TYPE_IDS[type],
    libraryId: library.id,
    ...(library.key === "PLATFORM_REVIEW" ? REVIEW_RISK_RANGE : DEFAULT_RISK_RANGE),
  })),
);

export const SYSTEM_CONFIGURATIONS: readonly SystemConfigurationData[] = SYSTEM_LIBRARIES.flatMap((library) =>
  library.analysisTypeKeys.map((type) => ({
    id: seededId("4b8363d0", library.key, type),
    libraryId: library.id,
    analysisTypeId: ANALYSIS_TYPE_IDS[type],
    controlPointBundleVersion: CONTROL_POINT_BUNDLE_VERSION,
    configuration: defaultConfiguration(type, seededId("4b8364d0", library.key, type)),
  })),
);
