/**
 * Workflow features (wire reference section 7), in workflow order. The engine owns the list; the
 * catalogue gives each source type a subset of it.
 */
export const FEATURES = [
  "FORMAT_DETECTION",
  "DATA_VALIDATION",
  "COLUMN_MAPPING",
  "EFFECTIVE_DATE_METRICS",
  "TRANSACTION_ID_SELECTION",
  "PARSE",
  "CONFIRM_SETTINGS",
  "REVIEW_FUNDS",
] as const;
export type Feature = (typeof FEATURES)[number];
