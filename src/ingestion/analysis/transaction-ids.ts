import type pg from "pg";
import type { ColumnSummary } from "../mapping/columns.js";
import { FIELDS, fence, field, signedAmountExpression, sqlColumn, typedExpression, type ParsePlan } from "../sql/parse-plan.js";
import { qualifiedTable } from "../sql/identifiers.js";
import { ensureRowIndex } from "../staging/stage.js";
import { serialPassPrelude, withParseFallback } from "../sql/value-expressions.js";
import { combinationKey, needsWindow, normalizeSelection, sameSelection, windowedKeys, type TransactionIdSelection } from "./transaction-keys.js";
import { inPgTransaction } from "../../db/pg-transaction.js";

/** Preview ratings (wire reference 7), worst first. */
export const RATINGS = ["BLOCK", "FAIL", "POOR", "NEUTRAL", "GOOD"] as const;
export type Rating = (typeof RATINGS)[number];
const RATING_ORDER: readonly Rating[] = RATINGS;

export interface Indicator {
  rating: Rating;
  value: number;
  data?: Record<string, unknown>;
}

export interface EntryPreview {
  transactionId: string | null;
  entryCount: number;
  /** Sum of the signed amounts in MONEY_100 (0 when the transaction balances). */
  balance: number;
  /** The entries (row_no and the mapped fields as staged text), at most 20. */
  detailRows: Record<string, string | number | null>[];
}

/** The wire's transaction id preview (without the entity's ids and audit, which the caller adds). */
export interface TransactionIdPreview {
  type: TransactionIdSelection["type"];
  columnSelection: number[];
  virtualColumnSelection: number[];
  smartSplitter: boolean;
  overallRating: Rating;
  indicators: Record<string, Indicator>;
  entryPreviews: EntryPreview[];
}

export interface Stats {
  transactions: number;
  unbalanced: number;
  unbalancedAmount: number;
  singles: number;
  largest: number;
  multiDate: number;
  blankRows: number;
  rows: number;
  /** First row_no of each example transaction (first and last unbalanced, first and last balanced). */
  examples: number[];
  /** Ids of windowed selections' examples, by first row_no. */
  windowedIds: Map<number, string>;
}



const DETAIL_ROWS = 20;

export function worst(ratings: Rating[]): Rating {
  return ratings.reduce((w, r) => (RATING_ORDER.indexOf(r) < RATING_ORDER.indexOf(w) ? r : w), "GOOD" as Rating);
}

/** Header words of columns that number documents or postings ("Reference", "Doc No", "Voucher", "Beleg"). */
const ID_WORDS = /\b(ref|reference|refno|doc|document|docno|voucher|entry|transaction|trans|txn|batch|num|number|no|nr|id|piece|beleg\w*|asiento|comprobante|je)\b/;
/** Words of headers that describe or classify rather than number ("Account ID", "Trans Description", "Entry Type"). */
const NOT_ID_WORDS = /\b(account|acct|description|desc|name|memo|text|comment|comments|narrative|type|date|amount|balance)\b/;

/** Whether a header reads like a transaction reference (camel case and punctuation split into words). */
export function idLikeHeader(name: string): boolean {
  const words = name
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ");
  return ID_WORDS.test(words) && !NOT_ID_WORDS.test(words);
}

/** Platform fields whose column identifies something a transaction spans (never its id). */
const ACCOUNT_FIELDS = new Set<string>([FIELDS.account, FIELDS.accountDescription]);

/**
 * Candidate selections when none is proposed: the mapped txid column, then txid with the effective
 * date; otherwise up to three unmapped-or-text columns whose values repeat like transaction ids
 * (a few lines per value), alone and with the effective date; and running-total splitting when no
 * column is mapped as txid.
 *
 * The columns are taken in order of likelihood: unmapped columns whose header reads like a
 * reference (Reference, Doc No, Voucher), other unmapped columns, columns mapped to other text
 * fields (memo, source), and last columns mapped to the account or its description (an account
 * spans many transactions); within each, the closest to four lines per value, then file order.
 * The first candidate is rated alone and ends the search when it rates GOOD, so putting the likely
 * one first also spares the others' scan.
 */
export function transactionIdCandidates(plan: ParsePlan, columns: ColumnSummary[], rowCount: number): TransactionIdSelection[] {
  const candidates: TransactionIdSelection[] = [];
  const txid = field(plan, FIELDS.txid);
  const date = field(plan, FIELDS.effectiveDate);
  const physical = (p: number) => p < plan.physicalCount;
  const combination = (positions: number[]): TransactionIdSelection => ({
    type: "COMBINATION",
    columnSelection: positions.filter(physical),
    virtualColumnSelection: positions.filter((p) => !physical(p)).map((p) => plan.virtualColumns.findIndex((v) => v.position === p)),
    applySmartSplitter: false,
  });
  if (txid) {
    candidates.push(combination([txid.position]));
    if (date) candidates.push(combination([txid.position, date.position]));
    return candidates;
  }
  const amountPositions = new Set(plan.fields.filter((f) => f.storage !== "TEXT").map((f) => f.position));
  const mappedTo = new Map(plan.fields.map((f) => [f.position, f.platformField]));
  const likelihood = (c: ColumnSummary) => {
    const field = mappedTo.get(c.position);
    if (field === undefined) return idLikeHeader(c.name) ? 0 : 1;
    return ACCOUNT_FIELDS.has(field) ? 3 : 2;
  };
  const spread = (c: ColumnSummary) => Math.abs(Math.log(rowCount / c.distinct / 4));
  const looksLikeIds = columns
    .filter((c) => !amountPositions.has(c.position) && c.type !== "DATE" && c.nonBlank > 0)
    .filter((c) => c.blank <= rowCount * 0.05 && c.distinct >= rowCount / 100 && c.distinct <= rowCount / 1.3)
    .sort((a, b) => likelihood(a) - likelihood(b) || spread(a) - spread(b) || a.position - b.position)
    .slice(0, 3);
  for (const c of looksLikeIds) {
    candidates.push(combination([c.position]));
    if (date) candidates.push(combination([c.position, date.position]));
  }
  candidates.push({ type: "RUNNING_TOTAL", columnSelection: [], virtualColumnSelection: [], applySmartSplitter: false });
  return candidates;
}

/**
 * Rates selections by how their transactions balance, in as few passes as possible: every plain
 * combination in one GROUPING SETS scan of the staging table, each running-total or smart-split
 * selection in one windowed scan; then one scan fetches the example transactions.
 */
export async function previewTransactionIds(pool: pg.Pool, staging: string, plan: ParsePlan, selections: TransactionIdSelection[]): Promise<TransactionIdPreview[]> {
  const date = field(plan, FIELDS.effectiveDate);
  const forceGuard = plan.fields.some((f) => f.guarded);
  return withParseFallback(async (guarded) => {
    return inPgTransaction(pool, async (client) => {
      const amount = signedAmountExpression(plan, guarded) ?? "NULL::bigint";
      const d = date ? typedExpression(date, plan, guarded) : "NULL::date";
      const table = qualifiedTable(staging);
      const stats = new Map<number, Stats>();
      const plain = selections.map((s, i) => [s, i] as const).filter(([s]) => !needsWindow(s));
      if (plain.length > 0) {
        // Grouping by a 64-bit hash of the key is faster than by the text; the text of the example
        // transactions is read back from their rows.
        const keys = plain.map(([s], j) => `hashtextextended(${combinationKey(s, plan)}, 0) AS k${j}`);
        const base = `SELECT row_no, ${d} AS d, ${amount} AS a, ${keys.join(", ")} FROM ${table}${fence(plan, guarded)}`;
        const sets = plain.map((_, j) => `(k${j})`).join(", ");
        const keyColumns = plain.map((_, j) => `k${j}`).join(", ");
        const key = `CASE ${plain.map((_, j) => `WHEN gid = ${(1 << plain.length) - 1 - (1 << (plain.length - 1 - j))} THEN k${j}`).join(" ")} END`;
        const { rows } = await client.query(
          `SELECT gid, ${aggregates("key")}
             FROM (SELECT GROUPING(${keyColumns}) AS gid, ${keyColumns}, count(*) AS n, sum(coalesce(a, 0)) AS bal, min(d) <> max(d) AS dates,
                          min(row_no) AS lo
                     FROM (${base}) b GROUP BY GROUPING SETS (${sets})) g
            CROSS JOIN LATERAL (SELECT ${key} AS key) kk
            GROUP BY gid`,
        );
        for (const row of rows) {
          const bits = Number(row.gid);
          const j = plain.findIndex((_, x) => bits === (1 << plain.length) - 1 - (1 << (plain.length - 1 - x)));
          if (j >= 0) stats.set(plain[j][1], toStats(row));
        }
      }
      for (const [i, selection] of selections.entries()) {
        if (!needsWindow(selection)) continue;
        const key = normalizeSelection(selection).type === "RUNNING_TOTAL" ? "NULL::text" : combinationKey(selection, plan);
        const base = `SELECT row_no, ${d} AS d, ${amount} AS a, ${key} AS key FROM ${table}`;
        const { rows } = await client.query(
          `SELECT ${aggregates("k", true)}
             FROM (SELECT k, count(*) AS n, sum(coalesce(a, 0)) AS bal, min(d) <> max(d) AS dates, min(row_no) AS lo
                     FROM (${windowedKeys(selection, base)}) w GROUP BY k) g`,
        );
        stats.set(i, toStats(rows[0]));
      }
      const details = await exampleRows(client, table, plan, selections, stats, amount);
      // No rows (nothing staged): GROUPING SETS yields no group at all, the selection rates as empty.
      return selections.map((selection, i) => preview(selection, stats.get(i) ?? toStats({}), details.get(i) ?? [], !!signedAmountExpression(plan, false)));
    }, serialPassPrelude(plan.dateOrder));
  }, forceGuard);
}

/**
 * The preview of a selection whose transactions table already exists (built with it, see
 * `buildTransactionsFromStaging`): the groups are that table's rows, so rating them reads a
 * quarter of a million summaries instead of grouping a million staged rows again. The same
 * figures as `previewTransactionIds`; example rows still come from the staging table.
 */
export async function previewFromTransactions(
  pool: pg.Pool,
  options: {
    staging: string;
    transactions: string;
    plan: ParsePlan;
    selection: TransactionIdSelection;
    /**
     * The staging table's highest row_no (`summarizeStagedRows` with `lastRow`, which may still be
     * running; null: unknown): the example rows are then looked up without the row index when that
     * lookup can prove it found them all (`exampleRows`).
     */
    lastRow?: Promise<number | null>;
  },
): Promise<TransactionIdPreview> {
  const { plan, selection } = options;
  if (needsWindow(selection)) throw new Error("A running-total selection is rated from the staged rows");
  const dated = field(plan, FIELDS.effectiveDate)?.storage === "DATE";
  return withParseFallback(async (guarded) => {
    return inPgTransaction(pool, async (client) => {
      // Rated beside the parse and the day grouping, which keep both cores busy: workers would only
      // add processes (and gather work) to the quarter of a million rows of a 1M-line ledger (the
      // prelude's SERIAL_PASS_SETTINGS).
      const { rows } = await client.query(
        `SELECT ${aggregates(FIELDS.txid)}
           FROM (SELECT ${FIELDS.txid}, entry_count AS n, balance AS bal, ${dated ? `${FIELDS.effectiveDate} <> last_effective_date` : "NULL::boolean"} AS dates, row_no AS lo
                   FROM ${qualifiedTable(options.transactions)}) g`,
      );
      const stats = toStats(rows[0]);
      const amount = signedAmountExpression(plan, guarded) ?? "NULL::bigint";
      const lastRow = options.lastRow ? await options.lastRow : null;
      const details = await exampleRows(client, qualifiedTable(options.staging), plan, [selection], new Map([[0, stats]]), amount, lastRow);
      return preview(selection, stats, details.get(0) ?? [], !!signedAmountExpression(plan, false));
    }, serialPassPrelude(plan.dateOrder));
  }, plan.fields.some((f) => f.guarded));
}

/** Select list rating the groups of one selection (columns n, bal, dates, lo, hi per group). */
export function aggregates(key: string, withKeys = false): string {
  // Ids computed by a window are only known here: carried as "<lo padded>|<id>" so min/max pick the same groups.
  const keyed = (name: string, fn: string, filter: string) => `, ${fn}(lpad(lo::text, 20, '0') || '|' || ${key}) FILTER (WHERE ${filter} AND ${key} IS NOT NULL) AS ${name}`;
  const keys = withKeys
    ? keyed("key_unbalanced_1", "min", "bal <> 0") + keyed("key_unbalanced_2", "max", "bal <> 0") + keyed("key_balanced_1", "min", "bal = 0 AND n > 1") + keyed("key_balanced_2", "max", "bal = 0 AND n > 1")
    : "";
  return `count(*) AS transactions,
          count(*) FILTER (WHERE bal <> 0 AND ${key} IS NOT NULL) AS unbalanced,
          coalesce(sum(abs(bal)) FILTER (WHERE ${key} IS NOT NULL), 0) AS unbalanced_amount,
          count(*) FILTER (WHERE n = 1 AND ${key} IS NOT NULL) AS singles,
          max(n) FILTER (WHERE ${key} IS NOT NULL) AS largest,
          count(*) FILTER (WHERE dates AND ${key} IS NOT NULL) AS multi_date,
          coalesce(sum(n) FILTER (WHERE ${key} IS NULL), 0) AS blank_rows,
          coalesce(sum(n), 0) AS rows,
          count(*) FILTER (WHERE ${key} IS NULL) AS blank_groups,
          min(lo) FILTER (WHERE bal <> 0 AND ${key} IS NOT NULL) AS ex_unbalanced_1,
          max(lo) FILTER (WHERE bal <> 0 AND ${key} IS NOT NULL) AS ex_unbalanced_2,
          min(lo) FILTER (WHERE bal = 0 AND n > 1 AND ${key} IS NOT NULL) AS ex_balanced_1,
          max(lo) FILTER (WHERE bal = 0 AND n > 1 AND ${key} IS NOT NULL) AS ex_balanced_2${keys}`;
}

export function toStats(row: Record<string, unknown>): Stats {
  const blankGroups = Number(row.blank_groups ?? 0);
  const examples: number[] = [];
  for (const value of [row.ex_unbalanced_1, row.ex_unbalanced_2, row.ex_balanced_1, row.ex_balanced_2]) {
    if (value === null || value === undefined) continue;
    const lo = Number(value);
    if (!examples.includes(lo)) examples.push(lo);
  }
  const windowedIds = new Map<number, string>();
  for (const value of [row.key_unbalanced_1, row.key_unbalanced_2, row.key_balanced_1, row.key_balanced_2]) {
    if (typeof value !== "string") continue;
    windowedIds.set(Number(value.slice(0, 20)), value.slice(21));
  }
  return {
    windowedIds,
    transactions: Number(row.transactions ?? 0) - blankGroups,
    unbalanced: Number(row.unbalanced ?? 0),
    unbalancedAmount: Number(row.unbalanced_amount ?? 0),
    singles: Number(row.singles ?? 0),
    largest: Number(row.largest ?? 0),
    multiDate: Number(row.multi_date ?? 0),
    blankRows: Number(row.blank_rows ?? 0),
    rows: Number(row.rows ?? 0),
    examples,
  };
}

/** How far past its first row an example transaction's entries are looked for (its count and balance cover these). */
const EXAMPLE_SPAN = 5000;

/**
 * Detail rows of the example transactions: each example is known by its first row_no, so its rows
 * are read through the staging table's BRIN index on row_no (a few pages from there), keeping the
 * rows whose key equals the key of the first row (for running totals, the rows up to where the
 * running total returns to zero).
 */
export async function exampleRows(
  client: pg.PoolClient,
  table: string,
  plan: ParsePlan,
  selections: TransactionIdSelection[],
  stats: Map<number, Stats>,
  amount: string,
  /** The table's highest row_no, when known: see `rowsNear`. */
  lastRow: number | null = null,
): Promise<Map<number, ExampleTransaction[]>> {
  const result = new Map<number, ExampleTransaction[]>();
  const shown = plan.fields.map((f) => `${f.text} AS ${sqlColumn(f.platformField)}`).join(", ");
  await client.query("SET LOCAL enable_seqscan = off");
  let indexed = false;
  for (const [i, selection] of selections.entries()) {
    const examples = stats.get(i)?.examples ?? [];
    if (examples.length === 0) continue;
    const running = normalizeSelection(selection).type === "RUNNING_TOTAL";
    const key = running ? "NULL::text" : combinationKey(selection, plan);
    const ranges = examples.map((lo) => `row_no BETWEEN ${lo} AND ${lo + EXAMPLE_SPAN}`).join(" OR ");
    const select = `row_no, ${amount} AS a, ${key} AS key${shown ? `, ${shown}` : ""}`;
    let rows = lastRow === null ? null : await rowsNear(client, table, select, examples, lastRow);
    if (rows === null) {
      // Staging tables have no statistics: without the index the planner reads the whole table for a few ranges.
      if (!indexed) await ensureRowIndex(client, table);
      indexed = true;
      rows = (await client.query(`SELECT ${select} FROM ${table} WHERE ${ranges} ORDER BY row_no`)).rows;
    }
    result.set(
      i,
      examples.map((lo) => {
        const from = rows.findIndex((r) => Number(r.row_no) === lo);
        const members: Record<string, unknown>[] = [];
        let balance = 0;
        for (let r = from; r >= 0 && r < rows.length && Number(rows[r].row_no) <= lo + EXAMPLE_SPAN; r++) {
          const row = rows[r];
          if (!running && (row.key ?? null) !== (rows[from].key ?? null)) continue;
          members.push(row);
          balance += row.a === null || row.a === undefined ? 0 : Number(row.a);
          if (running && balance === 0) break;
        }
        const first = from >= 0 ? rows[from] : null;
        const transactionId = needsWindow(selection) ? (stats.get(i)!.windowedIds.get(lo) ?? null) : ((first?.key as string | null) ?? null);
        return { transactionId, count: members.length, balance, rows: members.slice(0, DETAIL_ROWS).map(detail) };
      }),
    );
  }
  return result;
}

/** Pages between two sampled first rows: the lookup reads about this many pages around each example. */
const SAMPLE_EVERY = 32;

/**
 * The rows `WHERE row_no BETWEEN lo AND lo + EXAMPLE_SPAN` (for each example lo) ORDER BY row_no,
 * without the row index (its build is a scan of the whole table, 0.2 CPU-s per million rows, for
 * a few thousand rows): the first row of every SAMPLE_EVERY-th page is read by its ctid, and the
 * pages between the samples that bracket each range by a TID range scan. The staging table is
 * written in row_no order by one COPY, so that window holds the range; whether it did is checked,
 * not assumed: row_no is unique, so a range [lo, min(lo + EXAMPLE_SPAN, lastRow)] is complete
 * when that many distinct row_nos were found in it. Null when a range is not (rows out of order,
 * or row numbers missing, as after skipped blank lines): the caller then reads through the index.
 */
async function rowsNear(client: pg.PoolClient, table: string, select: string, examples: number[], lastRow: number): Promise<Record<string, unknown>[] | null> {
  const { rows: size } = await client.query<{ pages: string }>(`SELECT pg_relation_size($1::regclass) / current_setting('block_size')::bigint AS pages`, [table]);
  const pages = Number(size[0].pages);
  const tids: string[] = [];
  for (let page = 0; page < pages; page += SAMPLE_EVERY) tids.push(`(${page},1)`);
  const { rows: samples } = await client.query<{ page: string; row_no: string }>(`SELECT (ctid::text::point)[0]::bigint AS page, row_no FROM ${table} WHERE ctid = ANY($1::tid[])`, [tids]);
  const firsts = samples.map((s) => ({ page: Number(s.page), rowNo: Number(s.row_no) })).sort((a, b) => a.page - b.page);
  // Page windows [from, to) around each range, merged where they overlap (to = pages: the end).
  const windows: [number, number][] = [];
  for (const lo of [...examples].sort((a, b) => a - b)) {
    const from = firsts.findLast((f) => f.rowNo <= lo)?.page ?? 0;
    const to = firsts.find((f) => f.page > from && f.rowNo > lo + EXAMPLE_SPAN)?.page ?? pages;
    const last = windows.at(-1);
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else windows.push([from, to]);
  }
  const ranges = examples.map((lo) => `row_no BETWEEN ${lo} AND ${lo + EXAMPLE_SPAN}`).join(" OR ");
  const rows: Record<string, unknown>[] = [];
  for (const [from, to] of windows) {
    const { rows: found } = await client.query(`SELECT ${select} FROM ${table} WHERE ctid >= '(${from},0)'::tid AND ctid < '(${to},0)'::tid AND (${ranges})`);
    rows.push(...found);
  }
  rows.sort((a, b) => Number(a.row_no) - Number(b.row_no));
  const numbers = rows.map((r) => Number(r.row_no));
  for (const lo of examples) {
    const hi = Math.min(lo + EXAMPLE_SPAN, lastRow);
    const found = new Set(numbers.filter((n) => n >= lo && n <= hi)).size;
    if (found !== hi - lo + 1) return null;
  }
  return rows;
}

function detail(row: Record<string, unknown>): Record<string, string | number | null> {
  const out: Record<string, string | number | null> = { row_no: Number(row.row_no) };
  for (const [k, v] of Object.entries(row)) {
    if (["row_no", "a", "k", "key", "d", "g", "prev"].includes(k) || /^k\d+$/.test(k)) continue;
    out[k] = v === null || v === undefined ? null : String(v);
  }
  out.amount_signed = row.a === null || row.a === undefined ? null : Number(row.a);
  return out;
}

export interface ExampleTransaction {
  transactionId: string | null;
  count: number;
  balance: number;
  rows: Record<string, string | number | null>[];
}

export function preview(selection: TransactionIdSelection, stats: Stats, examples: ExampleTransaction[], hasAmounts: boolean): TransactionIdPreview {
  const s = normalizeSelection(selection);
  const indicators: Record<string, Indicator> = {};
  const t = Math.max(stats.transactions, 0);
  if (t === 0 || stats.rows === stats.blankRows) {
    indicators.TRANSACTION_COUNT = { rating: "BLOCK", value: t, data: { reason: "no row has a transaction id" } };
  } else if (t === 1 && stats.rows > 2) {
    indicators.TRANSACTION_COUNT = { rating: "BLOCK", value: t, data: { reason: "every entry falls in one transaction" } };
  } else {
    indicators.TRANSACTION_COUNT = { rating: "GOOD", value: t };
  }
  if (hasAmounts && t > 0) {
    const share = stats.unbalanced / t;
    indicators.UNBALANCED_TRANSACTIONS = {
      rating: share === 0 ? "GOOD" : share <= 0.01 ? "NEUTRAL" : share <= 0.1 ? "POOR" : "FAIL",
      value: stats.unbalanced,
      data: { transactions: t, share: round(share), unbalancedAmount: stats.unbalancedAmount },
    };
  }
  if (t > 0) {
    const singles = stats.singles / t;
    indicators.SINGLE_ENTRY_TRANSACTIONS = { rating: singles > 0.5 ? "FAIL" : singles > 0.1 ? "POOR" : singles > 0 ? "NEUTRAL" : "GOOD", value: stats.singles, data: { share: round(singles) } };
    const largestShare = stats.rows > 0 ? stats.largest / stats.rows : 0;
    indicators.LARGEST_TRANSACTION = { rating: largestShare > 0.5 && t > 1 ? "FAIL" : stats.largest > 10_000 ? "POOR" : "GOOD", value: stats.largest };
    const multi = stats.multiDate / t;
    indicators.MULTIPLE_EFFECTIVE_DATES = { rating: multi > 0.1 ? "POOR" : multi > 0 ? "NEUTRAL" : "GOOD", value: stats.multiDate, data: { share: round(multi) } };
  }
  indicators.BLANK_TRANSACTION_IDS = { rating: stats.blankRows === 0 ? "GOOD" : stats.blankRows === stats.rows ? "BLOCK" : "POOR", value: stats.blankRows };
  const entryPreviews: EntryPreview[] = examples.map((e) => ({ transactionId: e.transactionId, entryCount: e.count, balance: e.balance, detailRows: e.rows }));
  return {
    type: s.type,
    columnSelection: s.columnSelection,
    virtualColumnSelection: s.virtualColumnSelection,
    smartSplitter: s.applySmartSplitter,
    overallRating: worst(Object.values(indicators).map((i) => i.rating)),
    indicators,
    entryPreviews,
  };
}

function round(x: number): number {
  return Math.round(x * 10000) / 10000;
}

/** The best preview: highest rating, then fewest unbalanced and single-entry transactions, then candidate order. */
export function bestPreview(previews: TransactionIdPreview[]): number {
  let best = -1;
  const score = (p: TransactionIdPreview) => [RATING_ORDER.indexOf(p.overallRating), -(p.indicators.UNBALANCED_TRANSACTIONS?.value ?? 0), -(p.indicators.SINGLE_ENTRY_TRANSACTIONS?.value ?? 0)];
  for (let i = 0; i < previews.length; i++) {
    if (best < 0) {
      best = i;
      continue;
    }
    const a = score(previews[i]);
    const b = score(previews[best]);
    for (let k = 0; k < a.length; k++) {
      if (a[k] > b[k]) {
        best = i;
        break;
      }
      if (a[k] < b[k]) break;
    }
  }
  return best;
}

/**
 * CHECKING_INTEGRITY without a proposed selection: rates the candidates in order and keeps the
 * best. When the first candidate (the mapped txid column) already rates GOOD, the others are not
 * generated; `previews[i]` is the preview of `candidates[i]`.
 */
export async function chooseTransactionId(
  pool: pg.Pool,
  staging: string,
  plan: ParsePlan,
  candidates: TransactionIdSelection[],
  /** Previews generated earlier (e.g. by analyzeStagedData); one with the same properties is reused. */
  known: TransactionIdPreview[] = [],
): Promise<{ previews: TransactionIdPreview[]; selected: number }> {
  if (candidates.length === 0) throw new Error("no transaction id candidate");
  const reuse = (s: TransactionIdSelection) => known.find((p) => sameSelection(p, s));
  const generate = async (list: TransactionIdSelection[]) => {
    const missing = list.filter((s) => !reuse(s));
    const fresh = missing.length > 0 ? await previewTransactionIds(pool, staging, plan, missing) : [];
    return list.map((s) => reuse(s) ?? fresh[missing.indexOf(s)]);
  };
  const first = await generate(candidates.slice(0, 1));
  if (first[0].overallRating === "GOOD" || candidates.length === 1) return { previews: first, selected: 0 };
  const previews = [...first, ...(await generate(candidates.slice(1)))];
  return { previews, selected: bestPreview(previews) };
}
