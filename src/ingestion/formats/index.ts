import type { GroupedFormat } from "../types.js";
import type { Degrouper, GroupedFormatDefinition } from "./common.js";
import { MS_DYNAMICS_JOURNAL, QUICKBOOKS_JOURNAL_2024, SAGE50_TRANSACTIONS } from "./fill-down.js";
import { QUICKBOOKS_JOURNAL } from "./quickbooks-journal.js";
import { QUICKBOOKS_TRANSACTION_DETAIL_BY_ACCOUNT } from "./quickbooks-transaction-detail.js";
import { SAGE50_LEDGER } from "./sage50-ledger.js";
import { CCH_ACCOUNT_LIST, SAGE50_UK } from "./sections.js";

export type { Degrouper, FlatRow } from "./common.js";

/** Grouped layouts the engine detects and flattens: every value of the wire enum. */
export const GROUPED_FORMATS: readonly GroupedFormatDefinition[] = [
  SAGE50_LEDGER,
  SAGE50_TRANSACTIONS,
  SAGE50_UK,
  QUICKBOOKS_JOURNAL,
  QUICKBOOKS_JOURNAL_2024,
  QUICKBOOKS_TRANSACTION_DETAIL_BY_ACCOUNT,
  MS_DYNAMICS_JOURNAL,
  CCH_ACCOUNT_LIST,
];

export const SUPPORTED_GROUPED_FORMATS: readonly GroupedFormat[] = GROUPED_FORMATS.map((f) => f.format);

/** The grouped layout of a file from its header row and the records after it, or null. */
export function detectGroupedFormat(header: string[], rows: string[][]): GroupedFormat | null {
  let best: { format: GroupedFormat; confidence: number } | null = null;
  for (const definition of GROUPED_FORMATS) {
    const confidence = definition.detect(header, rows);
    if (confidence >= 0.6 && (!best || confidence > best.confidence)) best = { format: definition.format, confidence };
  }
  return best?.format ?? null;
}

export function createDegrouper(format: GroupedFormat, header: string[]): Degrouper {
  const definition = GROUPED_FORMATS.find((f) => f.format === format);
  if (!definition) throw new Error(`No degrouper for the grouped format ${format}`);
  return definition.create(header);
}
