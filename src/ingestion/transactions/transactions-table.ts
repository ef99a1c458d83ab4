import type pg from "pg";
import { WRITE_ONCE, WRITE_ONCE_SETTINGS, type EntryColumn } from "../parse/parse.js";
import { qualifiedTable } from "../sql/identifiers.js";
import { combinationKey, needsWindow, type TransactionIdSelection } from "../analysis/transaction-keys.js";
import { FIELDS, fence, field, signedAmountExpression, typedExpression, type ParsePlan, type ResolvedField } from "../sql/parse-plan.js";
import { dateStyleSetting, SERIAL_PASS_SETTINGS, withParseFallback } from "../sql/value-expressions.js";
import type { DateOrder } from "../profile/date-shape.js";
import { inPgTransaction } from "../../db/pg-transaction.js";

/** A column of the transactions table, described for data table definitions. */
export interface TransactionColumn {
  name: string;
  type: "STRING" | "DATE" | "MONEY_100" | "INT64" | "BOOLEAN";
  /** The platform field the column carries (txid; the first effective_date, entry_date), else null. */
  platformField: string | null;
  originalName: null;
}

export interface TransactionsTableOptions {
  /** The parsed entries table (`ingestionTables(id).entries`). */
  entries: string;
  /** Table to (re)create, e.g. `ingestionTables(id).transactions`. */
  target: string;
  /** The entries table's columns (`ParseResult.columns`): which optional summaries exist. */
  columns: EntryColumn[];
  /** Statistics target of the ANALYZE run on the new table (default 30, as the parse); null: none (as the parse's). */
  statisticsTarget?: number | null;
}

export interface TransactionsTableResult {
  table: string;
  rowCount: number;
  columns: TransactionColumn[];
}

/** Whether entries can be summarised per transaction: they have a txid and folded amounts. */
export function hasTransactions(columns: readonly Pick<EntryColumn, "name">[]): boolean {
  const names = new Set(columns.map((c) => c.name));
  return names.has(FIELDS.txid) && names.has(FIELDS.debit) && names.has(FIELDS.credit) && names.has(FIELDS.amount);
}

/**
 * The transactions table (spec 2.10 General Ledger Transactions): one row per txid of the entries,
 * built set-based from the entries table in one transaction that first drops the previous one (a
 * re-parse gives the same table). Entries without a txid form one row with a NULL txid, so entry
 * counts and totals add up to the entries'.
 *
 * `row_no` is the row number of the transaction's first entry: unique, stable, and the link to the
 * entries (rowid there). Transactions are not sorted here: sorting a quarter of a million txids
 * per million lines would add a third to this step on the workflow's critical path, while an
 * index built after commit (see the data tables' index job) serves the txid order at query time.
 * Measured on the 1M-line benchmark ledger: about 0.8 to 1 s (hash aggregation of 1M rows).
 */
export async function buildTransactionsTable(pool: pg.Pool, options: TransactionsTableOptions): Promise<TransactionsTableResult> {
  const types = new Map(options.columns.map((c) => [c.name, c.type]));
  const effectiveDate = types.get(FIELDS.effectiveDate) === "DATE";
  const entryDate = types.get(ENTRY_DATE) === "DATE";
  const dates = [...(effectiveDate ? [FIELDS.effectiveDate] : []), ...(entryDate ? [ENTRY_DATE] : [])].map((d) => `, ${d}`).join("");
  return createTransactionsTable(pool, options.target, options.statisticsTarget, {
    from: `(SELECT row_no, ${FIELDS.txid}, ${FIELDS.debit}, ${FIELDS.debit} - ${FIELDS.credit} AS ${NET}${dates} FROM ${qualifiedTable(options.entries)}) e`,
    effectiveDate,
    entryDate,
  });
}

export interface StagedTransactionsOptions {
  staging: string;
  target: string;
  plan: ParsePlan;
  /** The selection the entries are (being) parsed with; one that needs file order is refused. */
  transactionIdSelection: TransactionIdSelection | null;
  /** As `TransactionsTableOptions.statisticsTarget`. */
  statisticsTarget?: number | null;
}

/**
 * The same table as `buildTransactionsTable`, read from the staging table with the parse's own
 * expressions (txid, signed amount folded into debit and credit, typed dates) instead of from the
 * entries: it does not wait for the parse and runs beside it on another connection. Selections
 * that need file order (running totals) are not supported here: their txids exist only once the
 * parse has numbered them.
 */
export async function buildTransactionsFromStaging(pool: pg.Pool, options: StagedTransactionsOptions): Promise<TransactionsTableResult> {
  const { plan } = options;
  const selection = options.transactionIdSelection;
  if (selection && needsWindow(selection)) throw new Error("Transactions of a running-total selection are built from the entries");
  const txid = field(plan, FIELDS.txid);
  const effectiveDate = field(plan, FIELDS.effectiveDate);
  const entryDate = field(plan, ENTRY_DATE);
  const dated = (f: ResolvedField | undefined): f is ResolvedField => f !== undefined && f.storage === "DATE";
  return withParseFallback(async (guarded) => {
    const amount = signedAmountExpression(plan, guarded);
    if (amount === null) throw new Error("Transactions need mapped amounts");
    const key = selection ? combinationKey(selection, plan) : txid ? txid.text : "NULL::text";
    const rows = `SELECT row_no, ${key} AS ${FIELDS.txid}, ${amount} AS a,
                         ${dated(effectiveDate) ? typedExpression(effectiveDate, plan, guarded) : "NULL::date"} AS ${FIELDS.effectiveDate},
                         ${dated(entryDate) ? typedExpression(entryDate, plan, guarded) : "NULL::date"} AS ${ENTRY_DATE}
                    FROM ${qualifiedTable(options.staging)}${fence(plan, guarded)}`;
    const from = `(SELECT row_no, ${FIELDS.txid}, greatest(a, 0) AS ${FIELDS.debit}, a AS ${NET}, ${FIELDS.effectiveDate}, ${ENTRY_DATE} FROM (${rows}) s) e`;
    return createTransactionsTable(pool, options.target, options.statisticsTarget, { from, effectiveDate: dated(effectiveDate), entryDate: dated(entryDate), dateOrder: plan.dateOrder });
  }, plan.fields.some((f) => f.guarded));
}

export const ENTRY_DATE = "entry_date";

/**
 * sum(bigint) with a bigint state (migration 20261126090134_ingest_bigint_sum): the built-in one
 * keeps a 128-bit state per group and returns numeric, which made the two sums cost as much as
 * hashing the quarter of a million transactions itself (1M-line ledger, backend CPU at load 11:
 * the grouping 1.65 s with sum(), 1.17 s with this).
 */
export const BIGINT_SUM = "ingest.bigint_sum";

/**
 * The signed amount (debit minus credit) of an entry row. Credits are summed as debits minus the
 * signed amounts (greatest(a, 0) - greatest(-a, 0) = a for every row): the sum of `net` is the
 * balance at once, and one argument expression (a sign flip and a comparison per row, from staging)
 * less is evaluated. The same values, and "bigint out of range" in the same cases: a running sum
 * of `net` stays within the larger of the debit and credit sums, and credit_total = debit_total -
 * net overflows exactly when the credit total does (1M-line ledger, backend CPU of the CREATE
 * TABLE AS from staging: 822 -> 798 ms).
 */
const NET = "net";

interface TransactionsSource {
  /** A FROM item yielding row_no, txid, debit, net, effective_date and entry_date (those that exist). */
  from: string;
  effectiveDate: boolean;
  entryDate: boolean;
  /** The date order (DateStyle) the typed date expressions of `from` need. */
  dateOrder?: DateOrder;
}

const SQL_TYPES: Record<TransactionColumn["type"], string> = { STRING: "text", DATE: "date", MONEY_100: "bigint", INT64: "bigint", BOOLEAN: "boolean" };

/**
 * The columns of a transactions table (with or without the date columns) in order: how each is
 * aggregated over the entry rows (row_no, txid, debit, credit, effective_date, entry_date) or
 * derived from the aggregates (`outer`), and its SQL type.
 */
export function transactionSummaries(effectiveDate: boolean, entryDate: boolean) {
  const column = (name: string, type: TransactionColumn["type"], platformField: string | null, aggregate: string | null, outer = name) => ({ name, type, platformField, aggregate, outer, sqlType: SQL_TYPES[type] });
  return [
    column("row_no", "INT64", null, "min(row_no)"),
    column(FIELDS.txid, "STRING", FIELDS.txid, FIELDS.txid),
    column("entry_count", "INT64", null, "count(*)"),
    // Debits and credits are never negative: a bigint running sum overflows only when the total does.
    column("debit_total", "MONEY_100", null, `coalesce(${BIGINT_SUM}(${FIELDS.debit}), 0)`),
    // Debits minus credits (0 when balanced, else what it is off by): the sum of `net` (see NET).
    column("credit_total", "MONEY_100", null, null, `debit_total - ${NET} AS credit_total`),
    column("balance", "MONEY_100", null, null, `${NET} AS balance`),
    column("balanced", "BOOLEAN", null, null, `${NET} = 0 AS balanced`),
    ...(effectiveDate
      ? [column(FIELDS.effectiveDate, "DATE", FIELDS.effectiveDate, `min(${FIELDS.effectiveDate})`), column("last_effective_date", "DATE", null, `max(${FIELDS.effectiveDate})`)]
      : []),
    ...(entryDate ? [column(ENTRY_DATE, "DATE", ENTRY_DATE, `min(${ENTRY_DATE})`)] : []),
  ];
}

/** A transactions table's columns as data table definitions describe them. */
export function transactionColumns(summaries: ReturnType<typeof transactionSummaries>): TransactionColumn[] {
  return summaries.map((s) => ({ name: s.name, type: s.type, platformField: s.platformField, originalName: null }));
}

async function createTransactionsTable(pool: pg.Pool, targetName: string, statisticsTarget: number | null | undefined, source: TransactionsSource): Promise<TransactionsTableResult> {
  const target = qualifiedTable(targetName);
  const summaries = transactionSummaries(source.effectiveDate, source.entryDate);
  const inner = summaries.filter((s) => s.aggregate !== null).map((s) => (s.aggregate === s.name ? s.name : `${s.aggregate} AS ${s.name}`));
  // Aggregated only (credit_total, balance and balanced are derived from it), never a column.
  inner.push(`coalesce(${BIGINT_SUM}(${NET}), 0) AS ${NET}`);
  // One group per transaction, hashed in memory (a quarter of a million groups per million lines).
  const prelude = [...(source.dateOrder ? [dateStyleSetting(source.dateOrder)] : []), SERIAL_PASS_SETTINGS, WRITE_ONCE_SETTINGS, `DROP TABLE IF EXISTS ${target}`].join("; ");
  return inPgTransaction(pool, async (client) => {
    const result = await client.query(`CREATE TABLE ${target} ${WRITE_ONCE} AS SELECT ${summaries.map((s) => s.outer).join(", ")} FROM (SELECT ${inner.join(", ")} FROM ${source.from} GROUP BY ${FIELDS.txid}) t`);
    // Statistics for the data-table queries that follow at once, as the parse does for the entries.
    if (statisticsTarget !== null) {
      await client.query(`SET LOCAL default_statistics_target = ${statisticsTarget ?? 30}`);
      await client.query(`ANALYZE ${target}`);
    }
    return {
      table: targetName,
      rowCount: result.rowCount ?? 0,
      columns: transactionColumns(summaries),
    };
  }, prelude);
}
