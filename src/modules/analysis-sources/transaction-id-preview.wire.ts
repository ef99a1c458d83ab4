import type { EntryPreview, Indicator } from "../../ingestion/index.js";

/** Indicators as the engine rates them and the previews store them: a count and its facts. */
export type StoredIndicators = Record<string, Indicator>;

export interface WireIndicator {
  rating: Indicator["rating"];
  /** The indicator's facts: `count` (the engine's value) and its details (share, reason, ...). */
  value: Record<string, unknown>;
  /** The previewed transactions the indicator is about: always a list of preview rows. */
  data: EntryPreview[];
}

/**
 * Which of the preview's example transactions (its entryPreviews: first and last unbalanced, first
 * and last balanced) bear out an indicator; indicators the examples cannot show get an empty list.
 */
const EVIDENCE: Record<string, (row: EntryPreview) => boolean> = {
  UNBALANCED_TRANSACTIONS: (row) => row.balance !== 0,
  SINGLE_ENTRY_TRANSACTIONS: (row) => row.entryCount === 1,
  BLANK_TRANSACTION_IDS: (row) => row.transactionId === null || row.transactionId === "",
};

/**
 * Wire reference 8: `indicators{name: {rating, value, data[{transactionId, entryCount, balance,
 * detailRows}]}}` with `data` always a list of preview rows; the other facts go in `value`.
 */
export function wireIndicators(indicators: StoredIndicators, entryPreviews: EntryPreview[] | null): Record<string, WireIndicator> {
  const rows = entryPreviews ?? [];
  return Object.fromEntries(
    Object.entries(indicators).map(([name, indicator]) => {
      const facts = indicator.data && typeof indicator.data === "object" && !Array.isArray(indicator.data) ? indicator.data : {};
      const evidence = EVIDENCE[name];
      const data = evidence ? rows.filter(evidence) : [];
      return [name, { rating: indicator.rating, value: { count: indicator.value, ...facts }, data }];
    }),
  );
}
