import type { ControlPointFamily, ControlPointSettings, CustomControlPoint } from "./control-points/index.js";

/** One parsed source the run reads (an analysis source's entries table, and its transactions table for journals). */
export interface EngineSource {
  id: string;
  /** `ingest.entries_<id>` */
  entries: string;
  /** `ingest.tx_<id>`, when the parse built one. */
  transactions: string | null;
  /** Columns of the entries table (`ParseResult.columns[].name`). */
  columns: string[];
}

/** A mapped account with its classification (account mapping -> engagement account group -> MAC group). */
export interface EngineAccount {
  account: string;
  /** The account mapping's description (typeahead display name). */
  description: string | null;
  fundId: string | null;
  /** The engagement account group the account maps to (null: unmapped). */
  groupCode: string | null;
  /** Codes from the level-1 engagement group down to the account's group. */
  groupHierarchy: string[];
  macCode: string | null;
  /** MAC codes from level 1 down to the account's MAC code (`1`, `1.1`, `1.1.1`, `1.1.1.2`). */
  macHierarchy: string[];
  /** Account tags of the engagement group and of its MAC group (lower case). */
  tags: string[];
}

export interface RiskBand {
  lowThreshold: number;
  highThreshold: number;
}

export interface RiskRangeBounds {
  low: RiskBand;
  medium: RiskBand;
  high: RiskBand;
}

export interface EngineRiskGroup {
  id: string;
  name: string;
  /** GENERAL, ASSETS, LIABILITIES_EQUITY, PROFIT_LOSS or a custom category. */
  category: string;
  /** The platform score: every entry, and the fallback of accounts no enabled assertion group covers. */
  general: boolean;
  disabled: boolean;
  /** Control point -> weight 0..100, as configured. */
  weights: Record<string, number>;
  /** Codes (engagement group codes, MAC codes, account ids) the group covers; empty: every account. */
  filter: string[];
  /** Bounds of the selected risk range (null: levels not assigned, every score reads UNSCORED). */
  riskRange: RiskRangeBounds | null;
}

export interface EnginePeriod {
  id: string;
  startDate: string;
  endDate: string;
}

/** Everything a run needs, gathered by the analysis results module; the engine reads no entity itself. */
export interface EngineSpec {
  resultId: string;
  family: ControlPointFamily;
  /** Journal (GL) or detail (AP/AR) sources, in period order. */
  sources: EngineSource[];
  /** AP/AR: vendor or customer list sources (their entries tables). */
  partyLists: EngineSource[];
  /** AP/AR: vendor or customer opening balance sources. */
  openingBalances: EngineSource[];
  /** AP/AR: open payables / receivables lists, the items outstanding when the analysis period starts (absent from specs stored before they were read). */
  openItems?: EngineSource[];
  /** AP/AR: closing payables / receivables lists, the client's items outstanding at the period end (same). */
  closingItems?: EngineSource[];
  accounts: EngineAccount[];
  periods: EnginePeriod[];
  /** Reporting periods (monthly entries of the reporting period configuration); empty: calendar months. */
  reportingPeriods: Array<{ startDate: string; endDate: string }>;
  riskGroups: EngineRiskGroup[];
  /** Effective settings (defaults merged with the configuration's overrides). */
  settings: ControlPointSettings;
  /** Published custom control points (GL only). */
  customControlPoints: CustomControlPoint[];
}
