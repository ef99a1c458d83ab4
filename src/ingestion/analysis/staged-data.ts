import type pg from "pg";
import { qualifiedTable } from "../sql/identifiers.js";
import { DAY_ZERO, FIELDS, fence, field, signedAmountExpression, typedExpression, type ParsePlan } from "../sql/parse-plan.js";
import { serialPassPrelude, withParseFallback } from "../sql/value-expressions.js";
import type { EffectiveDateSummary } from "./effective-dates.js";
import type { DiscoveredAccount } from "../parse/parse.js";
import { aggregates, exampleRows, preview, previewTransactionIds, toStats, type TransactionIdPreview } from "./transaction-ids.js";
import { combinationKey, needsWindow, type TransactionIdSelection } from "./transaction-keys.js";
import { inPgTransaction } from "../../db/pg-transaction.js";
import { buildTransactionsFromStaging, type TransactionsTableResult } from "../transactions/transactions-table.js";

export interface StagedDataAnalysis {
  /** Entries per effective date (null when effective_date is not mapped). */
  effectiveDates: EffectiveDateSummary | null;
  /** Distinct accounts with their most frequent description and totals (null when account is not mapped). */
  accounts: DiscoveredAccount[] | null;
  /** Preview of the selection asked for (null when none was, or it needs file order). */
  transactionIdPreview: TransactionIdPreview | null;
  /** The highest row_no staged, when asked for (`AnalyzeOptions.lastRow`; null: no rows, or nothing grouped). */
  lastRow?: number | null;
}

/**
 * Everything the mapped data is checked for, with as few passes as possible: entries per effective
 * date (ANALYZING_EFFECTIVE_DATE_METRICS) and distinct accounts (account mappings) in ONE scan of
 * the staging table with GROUPING SETS, and the rating of one transaction id selection for
 * CHECKING_INTEGRITY to reuse, run concurrently on a second connection (or folded into the same
 * scan with `concurrent: false`).
 */
export interface AnalyzeOptions {
  /** Entries per effective date (default true). */
  effectiveDates?: boolean;
  /** Distinct accounts (default true). */
  accounts?: boolean;
  /**
   * A transaction id selection to rate as well (the proposed one, or the mapped txid column), for
   * CHECKING_INTEGRITY to reuse. Selections that need file order (running totals) are skipped.
   */
  selection?: TransactionIdSelection | null;
  /** Rate the selection on a second connection, beside the other pass (default true). */
  concurrent?: boolean;
  /** Also the highest row_no of the staging table (`lastRow`), from the same pass. */
  lastRow?: boolean;
}

export async function analyzeStagedData(pool: pg.Pool, staging: string, plan: ParsePlan, options: AnalyzeOptions = {}): Promise<StagedDataAnalysis> {
  // The transaction id rating is the heavy part (one group per transaction): on its own connection
  // it runs beside the date/account pass, on another core, instead of inside it.
  const selection = options.selection && !needsWindow(options.selection) ? options.selection : null;
  if (selection && options.concurrent !== false) {
    const [rest, previews] = await Promise.all([
      analyzeStagedData(pool, staging, plan, { ...options, selection: null }),
      previewTransactionIds(pool, staging, plan, [selection]),
    ]);
    return { ...rest, transactionIdPreview: previews[0] };
  }
  return analyzeInOnePass(pool, staging, plan, options);
}

async function analyzeInOnePass(pool: pg.Pool, staging: string, plan: ParsePlan, options: AnalyzeOptions): Promise<StagedDataAnalysis> {
  const date = options.effectiveDates === false ? undefined : field(plan, FIELDS.effectiveDate);
  const account = options.accounts === false ? undefined : field(plan, FIELDS.account);
  const description = field(plan, FIELDS.accountDescription);
  const fund = field(plan, FIELDS.fund);
  const selection = options.selection && !needsWindow(options.selection) ? options.selection : null;
  const table = qualifiedTable(staging);
  return withParseFallback(async (guarded) => {
    return inPgTransaction(pool, async (client) => {
      const amount = signedAmountExpression(plan, guarded) ?? "NULL::bigint";
      const dated = date !== undefined && date.storage === "DATE";
      // A staged date shadow is grouped as the integer it is, the date formed once per day group
      // (1M-line ledger, with the change below: 0.79-0.81 -> 0.75-0.77 CPU-s).
      const days = dated ? date.shadowDays : undefined;
      const d = dated ? (days ?? typedExpression(date, plan, guarded)) : "NULL::date";
      const day = days ? `${DAY_ZERO} + d` : "d";
      const sets: string[][] = [];
      if (dated) sets.push(["d"]);
      if (selection) sets.push(["k"]);
      // Unmapped fund or description: a NULL in every group, left out of the key (one column less to hash and compare per row).
      if (account) sets.push([...(fund ? ["fund"] : []), "acct", ...(description ? ["descr"] : [])]);
      if (sets.length === 0) {
        return { effectiveDates: null, accounts: null, transactionIdPreview: null, ...(options.lastRow ? { lastRow: null } : {}) };
      }
      const base = `SELECT row_no, ${d} AS d, ${amount} AS a, ${selection ? `hashtextextended(${combinationKey(selection, plan)}, 0)` : "NULL::bigint"} AS k,
                           ${account ? account.text : "NULL::text"} AS acct, ${description ? description.text : "NULL::text"} AS descr,
                           ${fund ? fund.text : "NULL::text"} AS fund
                      FROM ${table}${fence(plan, guarded)}`;
      // GROUPING() over the grouped columns: bit i (from the right) is set when column i is not grouped.
      const columns = sets.flat();
      const bit = (name: string) => (columns.includes(name) ? 1 << (columns.length - 1 - columns.indexOf(name)) : 0);
      const all = (1 << columns.length) - 1;
      const dayGid = all - bit("d");
      const keyGid = all - bit("k");
      const accountGid = all - bit("fund") - bit("acct") - bit("descr");
      const types: Record<string, string> = { d: days ? "integer" : "date", k: "bigint", acct: "text", descr: "text", fund: "text" };
      const outputs = Object.keys(types).map((c) => (columns.includes(c) ? c : `NULL::${types[c]} AS ${c}`));
      // Every aggregate is computed for every grouping set: those only the key's rating reads are left
      // out when there is no key (1M-line ledger, backend CPU at load 16: 0.78 s with them, 0.56 s without).
      const keyAggregates = selection ? ", sum(coalesce(a, 0)) AS bal, min(d) <> max(d) AS dates" : "";
      // Each grouping set covers every row (a NULL key is a group too): the highest row_no of any
      // set's groups is the table's, one more transition per row and set instead of a scan of its own.
      const lastRow = options.lastRow ? ", max(row_no) AS hi" : "";
      const { rows } = await client.query(
        `WITH g AS MATERIALIZED (
           SELECT GROUPING(${columns.join(", ")}) AS gid, ${outputs.join(", ")}, count(*) AS n,
                  count(*) FILTER (WHERE a > 0) AS dn, count(*) FILTER (WHERE a < 0) AS cn,
                  coalesce(sum(a) FILTER (WHERE a > 0), 0) AS ds, coalesce(-sum(a) FILTER (WHERE a < 0), 0) AS cs,
                  min(row_no) AS lo${keyAggregates}${lastRow}
             FROM (${base}) b GROUP BY GROUPING SETS (${sets.map((set) => `(${set.join(", ")})`).join(", ")}))
         SELECT 'day' AS kind, jsonb_build_object('d', to_char(${day}, 'YYYY-MM-DD'), 'n', n, 'dn', dn, 'cn', cn, 'ds', ds, 'cs', cs, 'lo', lo) AS v FROM g WHERE gid = ${dayGid}
         UNION ALL
         SELECT 'account', jsonb_build_object('fund', fund, 'acct', acct, 'descr', descr, 'n', n, 'ds', ds, 'cs', cs) FROM g WHERE gid = ${accountGid} AND acct IS NOT NULL
         ${selection ? `UNION ALL SELECT 'key', to_jsonb(t) FROM (SELECT ${aggregates("k")} FROM g WHERE gid = ${keyGid} HAVING count(*) > 0) t` : ""}
         ${lastRow ? "UNION ALL SELECT 'last', to_jsonb(max(hi)) FROM g" : ""}`,
      );
      const effectiveDates = dated ? daySummary(rows.filter((r) => r.kind === "day").map((r) => r.v)) : null;
      const accounts = account ? mergeAccounts(rows.filter((r) => r.kind === "account").map((r) => r.v), !!fund) : null;
      let transactionIdPreview: TransactionIdPreview | null = null;
      const keyRow = rows.find((r) => r.kind === "key");
      if (selection && keyRow) {
        const stats = toStats(keyRow.v);
        const examples = await exampleRows(client, table, plan, [selection], new Map([[0, stats]]), amount);
        transactionIdPreview = preview(selection, stats, examples.get(0) ?? [], signedAmountExpression(plan, false) !== null);
      }
      const last = rows.find((r) => r.kind === "last")?.v;
      return { effectiveDates, accounts, transactionIdPreview, ...(lastRow ? { lastRow: last === null || last === undefined ? null : Number(last) } : {}) };
    }, serialPassPrelude(plan.dateOrder));
  }, plan.fields.some((f) => f.guarded));
}

/** The daily summary from the day groups (`d`, `n`, `dn`, `cn`, `ds`, `cs`, `lo`), undated last. */
function daySummary(days: Record<string, unknown>[]): EffectiveDateSummary {
  return {
    days: days
      .map((v) => ({
        date: v.d as string | null,
        entries: Number(v.n),
        debitEntries: Number(v.dn),
        creditEntries: Number(v.cn),
        debits: Number(v.ds),
        credits: Number(v.cs),
        firstRow: Number(v.lo),
      }))
      .sort((a, b) => (a.date === null ? 1 : b.date === null ? -1 : a.date.localeCompare(b.date))),
  };
}

export interface TransactionsAndSummaries {
  transactions: TransactionsTableResult;
  /** As `analyzeStagedData` gives them. */
  effectiveDates: EffectiveDateSummary | null;
  accounts: DiscoveredAccount[] | null;
}

/**
 * The transactions table of a selection (as `buildTransactionsFromStaging` builds it), the entries
 * per effective date and the accounts (as `analyzeStagedData` finds them), on two connections side
 * by side: the transactions by one grouping of the staging table (CREATE TABLE AS, one hash table),
 * the days and accounts by a second, narrow one (`summarizeStagedRows`). One scan with GROUPING
 * SETS over the three was measured slower than the two scans: every aggregate is computed for every
 * set, and the quarter of a million transactions went in through INSERT ... RETURNING from a
 * materialized CTE instead of a bulk CREATE TABLE AS (1M-line ledger, backend CPU at load 12:
 * 2.6-4.2 s for the one scan, 1.4-1.5 s + 0.6 s for the two).
 * Selections that need file order (running totals) are refused, as by buildTransactionsFromStaging.
 */
export async function summarizeWithTransactions(
  pool: pg.Pool,
  options: { staging: string; target: string; plan: ParsePlan; transactionIdSelection: TransactionIdSelection | null; statisticsTarget?: number },
): Promise<TransactionsAndSummaries> {
  const [transactions, { effectiveDates, accounts }] = await settleBoth(buildTransactionsFromStaging(pool, options), summarizeStagedRows(pool, options.staging, options.plan));
  return { transactions, effectiveDates, accounts };
}

/**
 * Entries per effective date and the accounts, as `analyzeStagedData` finds them, without a
 * transaction id rating; with `lastRow`, also the highest row_no (for `previewFromTransactions`).
 */
export async function summarizeStagedRows(pool: pg.Pool, staging: string, plan: ParsePlan, options: { lastRow?: boolean } = {}): Promise<Omit<StagedDataAnalysis, "transactionIdPreview">> {
  const { effectiveDates, accounts, lastRow } = await analyzeInOnePass(pool, staging, plan, { selection: null, lastRow: options.lastRow });
  return { effectiveDates, accounts, ...(options.lastRow ? { lastRow: lastRow ?? null } : {}) };
}

/** Both results, or the first failure once neither is still running (nothing left half-done behind the caller's back). */
export async function settleBoth<A, B>(a: Promise<A>, b: Promise<B>): Promise<[A, B]> {
  const [x, y] = await Promise.allSettled([a, b]);
  if (x.status === "rejected") throw x.reason;
  if (y.status === "rejected") throw y.reason;
  return [x.value, y.value];
}

/** Per (fund, account): totals summed over descriptions, the most frequent description kept. */
function mergeAccounts(rows: { fund: string | null; acct: string; descr: string | null; n: number; ds: number; cs: number }[], withFunds: boolean): DiscoveredAccount[] {
  const byAccount = new Map<string, { account: DiscoveredAccount; best: number }>();
  for (const r of rows) {
    const key = `${r.fund ?? ""}\u0000${r.acct}`;
    let entry = byAccount.get(key);
    if (!entry) {
      entry = { account: { account: r.acct, accountDescription: null, ...(withFunds ? { fundId: r.fund } : {}), entries: 0, debits: 0, credits: 0 }, best: -1 };
      byAccount.set(key, entry);
    }
    const n = Number(r.n);
    entry.account.entries += n;
    entry.account.debits += Number(r.ds);
    entry.account.credits += Number(r.cs);
    if (r.descr !== null && (n > entry.best || (n === entry.best && r.descr < (entry.account.accountDescription ?? "")))) {
      entry.best = n;
      entry.account.accountDescription = r.descr;
    }
  }
  return [...byAccount.values()]
    .map((e) => e.account)
    .sort((a, b) => (a.fundId ?? "").localeCompare(b.fundId ?? "") || (a.account < b.account ? -1 : a.account > b.account ? 1 : 0));
}
