/** Schema of every ledger-like table the engine creates (created by the ingestion migration). */
export const INGEST_SCHEMA = "ingest";

const NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * A table name the engine may create or read: `schema.table` or `table`, lower-case letters, digits
 * and underscores only. Names never come from user input unchecked; they are built from entity ids.
 */
export function qualifiedTable(name: string): string {
  const parts = name.split(".");
  if (parts.length > 2 || parts.some((p) => !NAME.test(p))) throw new Error(`Invalid table name ${JSON.stringify(name)}`);
  return parts.map((p) => `"${p}"`).join(".");
}

/** Quotes a column identifier produced by the engine (c0, extra, platform field names). */
export function column(name: string): string {
  if (!NAME.test(name)) throw new Error(`Invalid column name ${JSON.stringify(name)}`);
  return `"${name}"`;
}

/** Staging column of a physical file column. */
export function stagingColumn(position: number): string {
  return `c${position}`;
}

/**
 * The tables of one analysis source: staging (unlogged, recreated by staging), entries (typed) and
 * transactions (one row per txid of the entries, for journal sources), and the two built ahead of
 * the parse while the workflow passes through (`*Ahead`, renamed into place when the parse comes).
 */
export function ingestionTables(analysisSourceId: string): { staging: string; entries: string; transactions: string; entriesAhead: string; transactionsAhead: string } {
  const id = analysisSourceId.toLowerCase();
  if (!/^[a-z0-9]{1,40}$/.test(id)) throw new Error(`Invalid analysis source id ${JSON.stringify(analysisSourceId)}`);
  return {
    staging: `${INGEST_SCHEMA}.stg_${id}`,
    entries: `${INGEST_SCHEMA}.entries_${id}`,
    transactions: `${INGEST_SCHEMA}.tx_${id}`,
    entriesAhead: `${INGEST_SCHEMA}.entries_${id}_ahead`,
    transactionsAhead: `${INGEST_SCHEMA}.tx_${id}_ahead`,
  };
}

/** A SQL string literal (for values the engine itself controls, e.g. a delimiter in split_part). */
export function literal(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}
