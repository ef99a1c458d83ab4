import type { ColumnDefinition } from "../../src/ingestion/types.js";

/**
 * Column definitions of the general ledger journal source type, as the catalogue seeds them
 * (platform field names of the brief; debit/credit pair and signed amount are alternatives).
 */
export const GENERAL_LEDGER_COLUMNS: ColumnDefinition[] = [
  { platformFieldName: "txid", type: "TEXT", required: false },
  { platformFieldName: "effective_date", type: "DATE", required: true },
  { platformFieldName: "entry_date", type: "DATE", required: false },
  { platformFieldName: "account", type: "TEXT", required: true },
  { platformFieldName: "account_description", type: "TEXT", required: false },
  { platformFieldName: "debit", type: "FLOAT64", required: true, alternativeMappings: ["amount"] },
  { platformFieldName: "credit", type: "FLOAT64", required: true, alternativeMappings: ["amount"] },
  { platformFieldName: "amount", type: "FLOAT64", required: true, alternativeMappings: ["debit", "credit"] },
  { platformFieldName: "memo", type: "TEXT", required: false },
  { platformFieldName: "source", type: "TEXT", required: false },
  { platformFieldName: "entered_by", type: "TEXT", required: false },
  { platformFieldName: "approved_by", type: "TEXT", required: false },
  { platformFieldName: "currency", type: "TEXT", required: false },
  { platformFieldName: "line_number", type: "TEXT", required: false },
];

export const FUND_GENERAL_LEDGER_COLUMNS: ColumnDefinition[] = [...GENERAL_LEDGER_COLUMNS, { platformFieldName: "fund_id", type: "TEXT", required: true }];
