import { ANALYSIS_SOURCE_TYPE_IDS, type AnalysisSourceTypeKey } from "./ids.js";
import type { Feature } from "../../ingestion/workflow/features.js";

export { FEATURES, type Feature } from "../../ingestion/workflow/features.js";

/**
 * Column definition `type` (wire reference section 7: TEXT, NUMBER, DATE, UNKNOWN, FLOAT64).
 * The wire enum has no MONEY: monetary amounts are FLOAT64 (parsed into MONEY_100 data table
 * columns); NUMBER is a whole number such as a line number.
 */
export type ColumnDefinitionType = "TEXT" | "NUMBER" | "DATE" | "UNKNOWN" | "FLOAT64";

export interface ColumnDefinition {
  platformFieldName: string;
  platformFieldNameForNonMacGroupings: string;
  required: boolean;
  requiredForNonMacGroupings: boolean;
  /** Whether the source column may hold blank values; when false, blanks take `defaultValue`. */
  allowBlanks: boolean;
  /** Fields that, all mapped together, satisfy this field's `required`; this field may not be mapped alongside them. */
  alternativeMappings: string[];
  defaultValue: string | null;
  type: ColumnDefinitionType;
}

export interface AnalysisSourceTypeData {
  id: string;
  key: AnalysisSourceTypeKey;
  name: string;
  interimName: string;
  archived: boolean;
  features: Feature[];
  columnDefinitions: ColumnDefinition[];
}

/** One column definition; options override the common case (optional, blanks allowed, same name for non-MAC groupings). */
function col(name: string, type: ColumnDefinitionType, options: Partial<Omit<ColumnDefinition, "platformFieldName" | "type">> = {}): ColumnDefinition {
  const required = options.required ?? false;
  return {
    platformFieldName: name,
    platformFieldNameForNonMacGroupings: options.platformFieldNameForNonMacGroupings ?? name,
    required,
    requiredForNonMacGroupings: options.requiredForNonMacGroupings ?? required,
    allowBlanks: options.allowBlanks ?? !required,
    alternativeMappings: options.alternativeMappings ?? [],
    defaultValue: options.defaultValue ?? null,
    type,
  };
}

const req = { required: true } as const;

/** Journal lines: a signed `amount`, or a `debit`/`credit` pair, one of the two is required. */
const JOURNAL_COLUMNS: ColumnDefinition[] = [
  col("txid", "TEXT"),
  col("effective_date", "DATE", req),
  col("entry_date", "DATE"),
  col("account", "TEXT", req),
  col("account_description", "TEXT"),
  col("debit", "FLOAT64", { required: true, allowBlanks: false, defaultValue: "0", alternativeMappings: ["amount"] }),
  col("credit", "FLOAT64", { required: true, allowBlanks: false, defaultValue: "0", alternativeMappings: ["amount"] }),
  col("amount", "FLOAT64", { required: true, alternativeMappings: ["debit", "credit"] }),
  col("memo", "TEXT"),
  col("source", "TEXT"),
  col("entered_by", "TEXT"),
  col("approved_by", "TEXT"),
  col("currency", "TEXT"),
  col("line_number", "NUMBER"),
];

const FUND_ID = col("fund_id", "TEXT", req);
const withFund = (columns: ColumnDefinition[]) => [...columns, FUND_ID];

const balanceColumns = (balanceField: "opening_balance" | "closing_balance") => [
  col("account", "TEXT", req),
  col("account_description", "TEXT"),
  col(balanceField, "FLOAT64", { required: true, allowBlanks: false, defaultValue: "0" }),
  col("currency", "TEXT"),
];

/** With a non-MAC account grouping the classification column holds the grouping's own code. */
const CHART_OF_ACCOUNTS_COLUMNS: ColumnDefinition[] = [
  col("account", "TEXT", req),
  col("account_description", "TEXT"),
  col("account_type", "TEXT"),
  col("mac_code", "TEXT", { platformFieldNameForNonMacGroupings: "group_code" }),
];

const partyColumns = (party: "vendor" | "customer") => [
  col(`${party}_id`, "TEXT", req),
  col(`${party}_name`, "TEXT", req),
  col("address", "TEXT"),
  col("country", "TEXT"),
  col("tax_id", "TEXT"),
  col("payment_terms", "TEXT"),
  col("credit_limit", "FLOAT64"),
];

const detailColumns = (party: "vendor" | "customer") => [
  col("txid", "TEXT"),
  col("invoice_id", "TEXT", req),
  col(`${party}_id`, "TEXT", req),
  col(`${party}_name`, "TEXT"),
  col("entry_type", "TEXT"),
  col("invoice_date", "DATE"),
  col("effective_date", "DATE", req),
  col("due_date", "DATE"),
  col("amount", "FLOAT64", req),
  col("account", "TEXT"),
  col("memo", "TEXT"),
  col("entered_by", "TEXT"),
  col("currency", "TEXT"),
];

const openItemColumns = (party: "vendor" | "customer", balanceField: "opening_balance" | "outstanding_amount") => [
  col(`${party}_id`, "TEXT", req),
  col(`${party}_name`, "TEXT"),
  col("invoice_id", "TEXT", req),
  col("invoice_date", "DATE"),
  col("due_date", "DATE"),
  col(balanceField, "FLOAT64", req),
  col("currency", "TEXT"),
];

const ADDITIONAL_DATA_COLUMNS: ColumnDefinition[] = [col("txid", "TEXT", req)];

const JOURNAL_FEATURES: Feature[] = ["FORMAT_DETECTION", "DATA_VALIDATION", "COLUMN_MAPPING", "EFFECTIVE_DATE_METRICS", "TRANSACTION_ID_SELECTION", "PARSE", "CONFIRM_SETTINGS"];
const FUND_JOURNAL_FEATURES: Feature[] = [...JOURNAL_FEATURES, "REVIEW_FUNDS"];
const LIST_FEATURES: Feature[] = ["FORMAT_DETECTION", "DATA_VALIDATION", "COLUMN_MAPPING", "PARSE", "CONFIRM_SETTINGS"];
const DETAIL_FEATURES: Feature[] = ["FORMAT_DETECTION", "DATA_VALIDATION", "COLUMN_MAPPING", "EFFECTIVE_DATE_METRICS", "PARSE", "CONFIRM_SETTINGS"];

function sourceType(key: AnalysisSourceTypeKey, name: string, features: Feature[], columnDefinitions: ColumnDefinition[], interimName = name): AnalysisSourceTypeData {
  return { id: ANALYSIS_SOURCE_TYPE_IDS[key], key, name, interimName, archived: false, features, columnDefinitions };
}

export const ANALYSIS_SOURCE_TYPES: readonly AnalysisSourceTypeData[] = [
  sourceType("GENERAL_LEDGER_JOURNAL", "General ledger journal", JOURNAL_FEATURES, JOURNAL_COLUMNS),
  sourceType("GENERAL_LEDGER_JOURNAL_FUND", "General ledger journal with funds", FUND_JOURNAL_FEATURES, withFund(JOURNAL_COLUMNS)),
  sourceType("OPENING_BALANCE", "Opening balances", LIST_FEATURES, balanceColumns("opening_balance")),
  sourceType("CLOSING_BALANCE", "Closing balances", LIST_FEATURES, balanceColumns("closing_balance"), "Interim balances"),
  sourceType("CHART_OF_ACCOUNTS", "Chart of accounts", LIST_FEATURES, CHART_OF_ACCOUNTS_COLUMNS),
  sourceType("FUND_CHART_OF_ACCOUNTS", "Fund chart of accounts", LIST_FEATURES, withFund(CHART_OF_ACCOUNTS_COLUMNS)),
  sourceType("ACCOUNTS_PAYABLE_DETAIL", "Accounts payable detail", DETAIL_FEATURES, detailColumns("vendor")),
  sourceType("VENDOR_OPENING_BALANCES", "Vendor opening balances", LIST_FEATURES, openItemColumns("vendor", "opening_balance")),
  sourceType("VENDOR_LIST", "Vendor list", LIST_FEATURES, partyColumns("vendor")),
  sourceType("OPEN_PAYABLES_LIST", "Open payables list", LIST_FEATURES, openItemColumns("vendor", "outstanding_amount")),
  sourceType("CLOSING_PAYABLES_LIST", "Closing payables list", LIST_FEATURES, openItemColumns("vendor", "outstanding_amount"), "Interim payables list"),
  sourceType("ACCOUNTS_RECEIVABLE_DETAIL", "Accounts receivable detail", DETAIL_FEATURES, detailColumns("customer")),
  sourceType("CUSTOMER_OPENING_BALANCES", "Customer opening balances", LIST_FEATURES, openItemColumns("customer", "opening_balance")),
  sourceType("OPEN_RECEIVABLES_LIST", "Open receivables list", LIST_FEATURES, openItemColumns("customer", "outstanding_amount")),
  sourceType("CLOSING_RECEIVABLES_LIST", "Closing receivables list", LIST_FEATURES, openItemColumns("customer", "outstanding_amount"), "Interim receivables list"),
  sourceType("ADDITIONAL_ANALYSIS_DATA", "Additional analysis data", LIST_FEATURES, ADDITIONAL_DATA_COLUMNS),
  sourceType("ADJUSTING_ENTRIES", "Adjusting entries", JOURNAL_FEATURES, JOURNAL_COLUMNS),
  sourceType("RECLASSIFICATION_ENTRIES", "Reclassification entries", JOURNAL_FEATURES, JOURNAL_COLUMNS),
  sourceType("ELIMINATION_ENTRIES", "Elimination entries", JOURNAL_FEATURES, JOURNAL_COLUMNS),
  sourceType("FUND_ADJUSTING_ENTRIES", "Fund adjusting entries", FUND_JOURNAL_FEATURES, withFund(JOURNAL_COLUMNS)),
  sourceType("FUND_ELIMINATION_ENTRIES", "Fund elimination entries", FUND_JOURNAL_FEATURES, withFund(JOURNAL_COLUMNS)),
  sourceType("FUND_RECLASSIFICATION_ENTRIES", "Fund reclassification entries", FUND_JOURNAL_FEATURES, withFund(JOURNAL_COLUMNS)),
  sourceType("CUSTOMER_LIST", "Customer list", LIST_FEATURES, partyColumns("customer")),
  sourceType("NOT_FOR_PROFIT_GENERAL_LEDGER_JOURNAL", "Not-for-profit general ledger journal", JOURNAL_FEATURES, JOURNAL_COLUMNS),
  sourceType("NOT_FOR_PROFIT_OPENING_BALANCE", "Not-for-profit opening balances", LIST_FEATURES, balanceColumns("opening_balance")),
  sourceType("NOT_FOR_PROFIT_CLOSING_BALANCE", "Not-for-profit closing balances", LIST_FEATURES, balanceColumns("closing_balance"), "Not-for-profit interim balances"),
  sourceType("FUND_OPENING_BALANCE", "Fund opening balances", LIST_FEATURES, withFund(balanceColumns("opening_balance"))),
  sourceType("FUND_CLOSING_BALANCE", "Fund closing balances", LIST_FEATURES, withFund(balanceColumns("closing_balance")), "Fund interim balances"),
];

export function sourceTypeByKey(key: AnalysisSourceTypeKey): AnalysisSourceTypeData {
  const found = ANALYSIS_SOURCE_TYPES.find((t) => t.key === key);
  if (!found) throw new Error(`No analysis source type ${key}`);
  return found;
}
