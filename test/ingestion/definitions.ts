import type { ColumnDefinition } from "../../src/ingestion/types.js";
import { sourceTypeByKey } from "../../src/modules/catalogue/analysis-source-types.data.js";

/**
 * Column definitions of the general ledger journal source types, taken from the catalogue data the
 * seed migration is rendered from (so engine tests and benchmarks read the same definitions the
 * server loads from the database, and cannot drift from them).
 */
export const GENERAL_LEDGER_COLUMNS: ColumnDefinition[] = sourceTypeByKey("GENERAL_LEDGER_JOURNAL").columnDefinitions;

export const FUND_GENERAL_LEDGER_COLUMNS: ColumnDefinition[] = sourceTypeByKey("GENERAL_LEDGER_JOURNAL_FUND").columnDefinitions;
