import { ANALYSIS_SOURCE_TYPE_IDS, ANALYSIS_TYPE_IDS, type AnalysisSourceTypeKey, type AnalysisTypeKey } from "./ids.js";

export type SourceScope = "CURRENT_PERIOD" | "PRIOR_PERIOD" | "ANALYSIS";

/** Which source types an analysis of a type takes, and how (wire reference section 8). */
export interface SourceConfiguration {
  sourceTypeId: string;
  /** CURRENT_PERIOD: one set per analysis period; ANALYSIS: once for the whole analysis. */
  sourceScope: SourceScope;
  required: boolean;
  allowMultiple: boolean;
  allowMultipleForPeriodic: boolean;
  /** Source type ids any one of which satisfies `required` in place of this one. */
  alternativeRequiredSourceTypes: string[];
  disableForInterim: boolean;
  interimOnly: boolean;
  /** Added after the analysis has run (adjustments), not needed to run it. */
  postAnalysis: boolean;
  tracksAdditionalDataEntries: boolean;
}

export interface AnalysisTypeData {
  id: string;
  key: AnalysisTypeKey;
  name: string;
  description: string;
  archived: boolean;
  interimName: string;
  interimSupported: boolean;
  periodicSupported: boolean;
  fundSupported: boolean;
  accountMappingRequired: boolean;
  /** Most analysis periods a periodic analysis of this type may have. */
  maxPeriod: number;
  sourceConfigurations: SourceConfiguration[];
}

function source(key: AnalysisSourceTypeKey, options: Partial<Omit<SourceConfiguration, "sourceTypeId">> = {}): SourceConfiguration {
  return {
    sourceTypeId: ANALYSIS_SOURCE_TYPE_IDS[key],
    sourceScope: options.sourceScope ?? "CURRENT_PERIOD",
    required: options.required ?? false,
    allowMultiple: options.allowMultiple ?? false,
    allowMultipleForPeriodic: options.allowMultipleForPeriodic ?? options.allowMultiple ?? false,
    alternativeRequiredSourceTypes: options.alternativeRequiredSourceTypes ?? [],
    disableForInterim: options.disableForInterim ?? false,
    interimOnly: options.interimOnly ?? false,
    postAnalysis: options.postAnalysis ?? false,
    tracksAdditionalDataEntries: options.tracksAdditionalDataEntries ?? false,
  };
}

const JOURNAL = { required: true, allowMultiple: true } as const;
const ADJUSTMENT = { allowMultiple: true, postAnalysis: true } as const;
const ADDITIONAL_DATA = source("ADDITIONAL_ANALYSIS_DATA", { sourceScope: "ANALYSIS", allowMultiple: true, tracksAdditionalDataEntries: true });

function ledgerSources(journal: AnalysisSourceTypeKey, opening: AnalysisSourceTypeKey, closing: AnalysisSourceTypeKey, chart: AnalysisSourceTypeKey, adjustments: AnalysisSourceTypeKey[]): SourceConfiguration[] {
  return [
    source(journal, JOURNAL),
    source(opening),
    source(closing, { disableForInterim: true }),
    source(chart, { sourceScope: "ANALYSIS" }),
    ...adjustments.map((key) => source(key, ADJUSTMENT)),
    ADDITIONAL_DATA,
  ];
}

export const ANALYSIS_TYPES: readonly AnalysisTypeData[] = [
  {
    id: ANALYSIS_TYPE_IDS.GENERAL_LEDGER,
    key: "GENERAL_LEDGER",
    name: "General ledger",
    description: "Risk scoring of every general ledger journal entry and transaction of a for-profit entity",
    archived: false,
    interimName: "General ledger (interim)",
    interimSupported: true,
    periodicSupported: true,
    fundSupported: false,
    accountMappingRequired: true,
    maxPeriod: 13,
    sourceConfigurations: ledgerSources("GENERAL_LEDGER_JOURNAL", "OPENING_BALANCE", "CLOSING_BALANCE", "CHART_OF_ACCOUNTS", ["ADJUSTING_ENTRIES", "RECLASSIFICATION_ENTRIES", "ELIMINATION_ENTRIES"]),
  },
  {
    id: ANALYSIS_TYPE_IDS.NOT_FOR_PROFIT_GENERAL_LEDGER,
    key: "NOT_FOR_PROFIT_GENERAL_LEDGER",
    name: "Not-for-profit general ledger",
    description: "Risk scoring of the general ledger of a not-for-profit entity",
    archived: false,
    interimName: "Not-for-profit general ledger (interim)",
    interimSupported: true,
    periodicSupported: true,
    fundSupported: false,
    accountMappingRequired: true,
    maxPeriod: 13,
    sourceConfigurations: ledgerSources("NOT_FOR_PROFIT_GENERAL_LEDGER_JOURNAL", "NOT_FOR_PROFIT_OPENING_BALANCE", "NOT_FOR_PROFIT_CLOSING_BALANCE", "CHART_OF_ACCOUNTS", ["ADJUSTING_ENTRIES", "RECLASSIFICATION_ENTRIES", "ELIMINATION_ENTRIES"]),
  },
  {
    id: ANALYSIS_TYPE_IDS.NOT_FOR_PROFIT_GENERAL_LEDGER_FUND,
    key: "NOT_FOR_PROFIT_GENERAL_LEDGER_FUND",
    name: "Not-for-profit general ledger with funds",
    description: "Risk scoring of the general ledger of a not-for-profit entity that accounts by fund",
    archived: false,
    interimName: "Not-for-profit general ledger with funds (interim)",
    interimSupported: true,
    periodicSupported: true,
    fundSupported: true,
    accountMappingRequired: true,
    maxPeriod: 13,
    sourceConfigurations: ledgerSources("GENERAL_LEDGER_JOURNAL_FUND", "FUND_OPENING_BALANCE", "FUND_CLOSING_BALANCE", "FUND_CHART_OF_ACCOUNTS", ["FUND_ADJUSTING_ENTRIES", "FUND_RECLASSIFICATION_ENTRIES", "FUND_ELIMINATION_ENTRIES"]),
  },
  {
    id: ANALYSIS_TYPE_IDS.ACCOUNTS_PAYABLE_V2,
    key: "ACCOUNTS_PAYABLE_V2",
    name: "Accounts payable",
    description: "Risk scoring of accounts payable activity: invoices, payments and vendors",
    archived: false,
    interimName: "Accounts payable (interim)",
    interimSupported: true,
    periodicSupported: false,
    fundSupported: false,
    accountMappingRequired: false,
    maxPeriod: 1,
    sourceConfigurations: [
      source("ACCOUNTS_PAYABLE_DETAIL", JOURNAL),
      source("VENDOR_OPENING_BALANCES"),
      source("VENDOR_LIST", { sourceScope: "ANALYSIS" }),
      source("OPEN_PAYABLES_LIST"),
      source("CLOSING_PAYABLES_LIST", { disableForInterim: true }),
      ADDITIONAL_DATA,
    ],
  },
  {
    id: ANALYSIS_TYPE_IDS.ACCOUNTS_RECEIVABLE_V2,
    key: "ACCOUNTS_RECEIVABLE_V2",
    name: "Accounts receivable",
    description: "Risk scoring of accounts receivable activity: invoices, receipts and customers",
    archived: false,
    interimName: "Accounts receivable (interim)",
    interimSupported: true,
    periodicSupported: false,
    fundSupported: false,
    accountMappingRequired: false,
    maxPeriod: 1,
    sourceConfigurations: [
      source("ACCOUNTS_RECEIVABLE_DETAIL", JOURNAL),
      source("CUSTOMER_OPENING_BALANCES"),
      source("CUSTOMER_LIST", { sourceScope: "ANALYSIS" }),
      source("OPEN_RECEIVABLES_LIST"),
      source("CLOSING_RECEIVABLES_LIST", { disableForInterim: true }),
      ADDITIONAL_DATA,
    ],
  },
];

export function analysisTypeById(id: string): AnalysisTypeData | undefined {
  return ANALYSIS_TYPES.find((t) => t.id === id);
}
