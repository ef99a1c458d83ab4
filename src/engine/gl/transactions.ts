import type pg from "pg";
import type { RunPlan } from "../run-plan.js";
import { createTableAs, engineTransaction, sideBySide, type EngineStep } from "../steps.js";
import { ident, int, table, textArray } from "../sql.js";
import { glContext, type GlContext } from "./context.js";
import { baseHalves, entryPointColumns } from "./entries.js";

/**
 * Transactions: one aggregation of the base table per transaction key (totals, first entry's
 * fields, distinct accounts, the highest own score of its entries per entry-level control point,
 * signatures for duplicates and reversals, balance sheet and income statement deltas, account tag
 * effects, and what the flows step spreads: each side's total and its number of (account) sides,
 * a missing account counting as one), then the transaction-level control points, each a small table of the transactions it
 * flags (`w_<name>`: tx, score).
 */
function aggregateSql(ctx: GlContext, hierarchyMasks: string | null, scoreChanges: string | null, entries: string): string {
  const plan = ctx.plan;
  const own = entryPointColumns(plan).map(({ column }) => `max(b.${ident(column)})::smallint AS ${ident(column)}`);
  const cashMinimum = int(ctx.setting("journal_entry_cash_out_the_door", "minimumAmount") ?? 0);
  // Fixed-width columns first: the control points below scan this table a dozen times, and each
  // scan reads its numbers at fixed offsets instead of walking the texts and the accounts list
  // (score_change too: after the hierarchy mask, its point's scan cost 0.2 CPU-s at 1M lines).
  return `
    SELECT b.tx, sum(b.debit)::bigint AS debit, sum(b.credit)::bigint AS credit, count(*)::integer AS entries_count,
           count(DISTINCT b.account)::integer AS accounts_count,
           count(DISTINCT b.account) FILTER (WHERE b.amount > 0)::integer AS debit_accounts,
           count(DISTINCT b.account) FILTER (WHERE b.amount < 0)::integer AS credit_accounts,
           (count(DISTINCT b.account) FILTER (WHERE b.amount > 0) + CASE WHEN bool_or(b.account IS NULL AND b.amount > 0) THEN 1 ELSE 0 END)::integer AS debit_sides,
           (count(DISTINCT b.account) FILTER (WHERE b.amount < 0) + CASE WHEN bool_or(b.account IS NULL AND b.amount < 0) THEN 1 ELSE 0 END)::integer AS credit_sides,
           coalesce(sum(b.amount) FILTER (WHERE b.amount > 0), 0)::bigint AS debit_side_total,
           coalesce(sum(-b.amount) FILTER (WHERE b.amount < 0), 0)::bigint AS credit_side_total,
           coalesce(sum(b.amount) FILTER (WHERE a.is_bs), 0)::bigint AS bs_delta,
           coalesce(sum(b.amount) FILTER (WHERE a.is_is), 0)::bigint AS is_delta,
           min(b.effective_date) AS effective_date, max(b.effective_date) AS last_effective_date, min(b.entered_date) AS entered_date,
           coalesce(bit_or(CASE WHEN sign(b.amount) * a.normal > 0 THEN a.tag_mask END), 0) AS increasing_mask,
           coalesce(bit_or(CASE WHEN sign(b.amount) * a.normal < 0 THEN a.tag_mask END), 0) AS decreasing_mask,
           bool_or(b.amount < 0 AND a.is_cash AND -b.amount >= ${cashMinimum}) AS cash_credit,
           bool_or(b.amount > 0 AND NOT coalesce(a.is_cash, FALSE)) AS non_cash_debit${own.map((o) => `,\n           ${o}`).join("")}${scoreChanges ? ",\n           max(sc.score) AS score_change" : ""},
           sum(hashtextextended(coalesce(b.account, '') || ':' || b.amount, 0)) AS signature,
           sum(hashtextextended(coalesce(b.account, '') || ':' || (-b.amount), 0)) AS reverse_signature,
           min(b.txid) AS txid, min(b.type) AS type, min(b.user_id) AS user_id, min(nullif(btrim(b.memo), '')) AS "transaction",
           array_agg(DISTINCT b.account ORDER BY b.account) FILTER (WHERE b.account IS NOT NULL) AS accounts,
           min(b.fund_id) AS first_fund, max(b.fund_id) AS last_fund,
           ${hierarchyMasks ? "bit_or(hm.mask)::text" : "NULL::text"} AS hierarchy_mask
      FROM ${table(entries)} b ${ctx.accountJoin("b")} ${hierarchyMasks ? `LEFT JOIN ${table(hierarchyMasks)} hm ON hm.account = b.account` : ""}
           ${scoreChanges ? `LEFT JOIN ${table(scoreChanges)} sc ON sc.account = b.account AND sc.rp = b.rp` : ""}
     GROUP BY b.tx`;
}

/** The result's hierarchy codes in PostgreSQL's order (the published arrays are sorted by its collation): bit i of a mask is code i. */
export async function hierarchyCodeList(ctx: GlContext, client: pg.PoolClient): Promise<string[]> {
  return (await client.query<{ c: string }>(`SELECT DISTINCT c FROM ${ctx.accounts}, unnest(codes) c WHERE c IS NOT NULL ORDER BY c`)).rows.map((r) => r.c);
}

/**
 * Each account's hierarchy codes as a bit mask over the sorted codes (over all its funds' rows),
 * for the aggregate to OR per transaction (`hierarchy_mask`, decoded by the scores step): a
 * grouped pass of its own over the unnested accounts of every transaction cost more than the
 * aggregate's extra join. Returns the table's name, or null when no account has a code.
 */
async function hierarchyMaskTable(ctx: GlContext, client: pg.PoolClient): Promise<string | null> {
  const name = ctx.plan.tables.work("amask");
  const codes = await hierarchyCodeList(ctx, client);
  if (codes.length === 0) {
    await client.query(`DROP TABLE IF EXISTS ${table(name)}`);
    return null;
  }
  await createTableAs(
    client,
    name,
    `SELECT a.account, bit_or(set_bit(B'${"0".repeat(codes.length)}', k.i::integer - 1, 1)) AS mask
       FROM ${ctx.accounts} a, unnest(a.codes) c JOIN unnest(${textArray(codes)}) WITH ORDINALITY k(code, i) ON k.code = c GROUP BY a.account`,
  );
  return name;
}

interface TransactionPoint {
  name: string;
  /** SELECT tx, score (only flagged transactions) over `t` = the aggregate table. */
  sql(ctx: GlContext, aggregate: string): string;
}

const TRANSACTION_POINTS: TransactionPoint[] = [
  {
    name: "journal_entry_unbalanced_transaction",
    sql: (ctx, t) => `SELECT tx, 10000 AS score FROM ${t} WHERE abs(debit - credit) > ${int(ctx.setting("journal_entry_unbalanced_transaction", "tolerance") ?? 0)}`,
  },
  {
    name: "journal_entry_complex_structure_v2",
    sql: (ctx, t) =>
      `SELECT tx, 10000 AS score FROM ${t} WHERE debit_accounts >= 2 AND credit_accounts >= 2 AND accounts_count >= ${int(ctx.setting("journal_entry_complex_structure_v2", "minimumAccounts"))}`,
  },
  { name: "journal_entry_cash_out_the_door", sql: (_ctx, t) => `SELECT tx, 10000 AS score FROM ${t} WHERE cash_credit AND non_cash_debit` },
  { name: "journal_entry_nfp_interfund_transfer", sql: (_ctx, t) => `SELECT tx, 10000 AS score FROM ${t} WHERE first_fund IS DISTINCT FROM last_fund` },
  {
    // Same signature (accounts and amounts) and entry count within the window of effective dates.
    name: "journal_entry_duplicate_v2",
    sql: (ctx, t) => {
      const window = int(ctx.setting("journal_entry_duplicate_v2", "windowDays"));
      return `SELECT tx, 10000 AS score FROM (
          SELECT tx, effective_date,
                 lag(effective_date) OVER w AS previous_date, lead(effective_date) OVER w AS next_date
            FROM ${t} WHERE debit + credit > 0
          WINDOW w AS (PARTITION BY signature, entries_count ORDER BY effective_date, tx)) d
        WHERE effective_date - previous_date <= ${window} OR next_date - effective_date <= ${window}`;
    },
  },
  {
    name: "journal_entry_is_reversal_of",
    sql: (ctx) => `SELECT DISTINCT later AS tx, 10000 AS score FROM ${table(ctx.plan.tables.work("reversals"))} WHERE days <= ${reversalWindow(ctx, "journal_entry_is_reversal_of")}`,
  },
  {
    name: "journal_entry_is_reversed_by",
    sql: (ctx) => `SELECT DISTINCT earlier AS tx, 10000 AS score FROM ${table(ctx.plan.tables.work("reversals"))} WHERE days <= ${reversalWindow(ctx, "journal_entry_is_reversed_by")}`,
  },
  {
    // Transaction ids ending in a number, per prefix: a run of missing numbers (up to the maximum
    // gap) flags the transactions on both of its edges.
    name: "journal_entry_gap_edge",
    // The prefix is the id without its trailing digits, the number their last 18 (rtrim and right:
    // the non-greedy regex `^(.*?)[0-9]+$` cost ~10 us per transaction). An id ends in a digit
    // when its prefix is shorter (no regex), and 18 digits fit a bigint, which sorts and subtracts
    // cheaper than numeric (1M lines: 1.34 -> 0.90 CPU-s). The prefix computed once (OFFSET 0: the
    // subquery pulled up repeated rtrim in the filter, the partition key and the number, 0.96 ->
    // 0.83 CPU-s).
    sql: (ctx, t) => `WITH n AS (
          SELECT tx, prefix, right(txid, least(18, length(txid) - length(prefix)))::bigint AS number
            FROM (SELECT tx, txid, rtrim(txid, '0123456789') AS prefix FROM ${t} OFFSET 0) d WHERE length(prefix) < length(txid)),
        g AS (SELECT tx, number - lag(number) OVER w AS before, lead(number) OVER w - number AS after FROM n WINDOW w AS (PARTITION BY prefix ORDER BY number))
        SELECT tx, 10000 AS score FROM g
         WHERE (before > 1 AND before - 1 <= ${int(ctx.setting("journal_entry_gap_edge", "maximumGap"))}) OR (after > 1 AND after - 1 <= ${int(ctx.setting("journal_entry_gap_edge", "maximumGap"))})`,
  },
  {
    name: "journal_entry_nfp_split_expense_single",
    sql: (ctx) => `SELECT DISTINCT b.tx, 10000 AS score FROM ${table(ctx.plan.tables.base)} b ${ctx.accountJoin("b")}
        WHERE a.is_expense AND b.amount > 0 GROUP BY b.tx, b.account, b.amount HAVING count(*) >= 2`,
  },
];

const REVERSAL_POINTS = ["journal_entry_is_reversal_of", "journal_entry_is_reversed_by"];

function reversalWindow(ctx: GlContext, point: string): string {
  return int(ctx.setting(point, "windowDays"));
}

/**
 * Pairs (earlier, later) where the later transaction reverses the earlier: its signature is the
 * earlier one's reverse signature (same accounts, opposite amounts), same entry count, within the
 * window, ordered by entered date when there is one, else by effective date. Both reversal points
 * read them (`days` apart, each with its own window): one self-join instead of two.
 */
function reversalPairs(ctx: GlContext, t: string): string {
  const window = Math.max(...REVERSAL_POINTS.filter((p) => ctx.runs(p)).map((p) => Number(reversalWindow(ctx, p))));
  const order = (alias: string) => `coalesce(${alias}.entered_date, ${alias}.effective_date)`;
  return `SELECT e.tx AS earlier, l.tx AS later, ${order("l")} - ${order("e")} AS days FROM ${t} e JOIN ${t} l ON l.signature = e.reverse_signature AND l.entries_count = e.entries_count
           WHERE l.tx <> e.tx AND e.signature <> e.reverse_signature AND e.debit + e.credit > 0
             AND (${order("l")}, l.tx) > (${order("e")}, e.tx) AND ${order("l")} - ${order("e")} <= ${int(window)}`;
}

const ACCOUNT_PERIOD_POINTS = new Set(["prior_period_overall_score_change", "group_by_trendshock", "prior_period_frequency", "prior_period_dollar_change"]);

/**
 * Prior Period Score Change: the share of an account's entries failing other points, period over
 * prior period, for the (account, reporting period) pairs that score (a few thousand at most).
 * The aggregate joins them and keeps each transaction's highest (`score_change`): one probe per
 * entry in a scan it makes anyway, instead of a second scan of the entries, a join and a sort.
 */
function scoreChangesSql(ctx: GlContext): string | null {
  const plan = ctx.plan;
  // Points about the entry itself: the account-period ones (trend, prior period) would make the
  // share jump for every entry of a period they flag.
  const others = entryPointColumns(plan).filter((p) => !ACCOUNT_PERIOD_POINTS.has(p.name));
  if (others.length === 0) return null;
  const failed = others.map(({ column, name }) => (plan.point(name).graded ? `b.${ident(column)} >= ${plan.flagThreshold}` : `b.${ident(column)} > 0`)).join(" OR ");
  const p = "prior_period_overall_score_change";
  const increase = Math.max(Number(ctx.setting(p, "increase")), 0.01);
  const minimum = int(ctx.setting(p, "minimumEntries"));
  return `WITH m AS (SELECT b.account, b.rp, count(*) AS n, count(*) FILTER (WHERE ${failed}) AS failing FROM ${table(plan.tables.base)} b GROUP BY 1, 2),
      r AS (SELECT m.account, m.rp, least(10000, greatest(0, round(((m.failing::float8 / m.n) - (p.failing::float8 / p.n)) * 100 * 5000 / ${increase})))::integer AS score
              FROM m JOIN m p ON p.account = m.account AND p.rp = ${ctx.periods.previousReportingStart("m.rp")}
             WHERE m.n >= ${minimum} AND p.n >= 1)
    SELECT account, rp, score FROM r WHERE score > 0`;
}

export const glTransactionsStep: EngineStep = {
  name: "transactions",
  points: [...TRANSACTION_POINTS.map((p) => p.name), "prior_period_overall_score_change"],
  cost: 5,
  async run({ pool, plan, signal, pointsDone }) {
    const ctx = await glContext(pool, plan);
    const aggregate = plan.tables.work("txagg");
    const change = "prior_period_overall_score_change";
    const changesSql = ctx.runs(change) ? scoreChangesSql(ctx) : null;
    const changes = changesSql ? plan.tables.work("changes") : null;
    // The aggregate is one sorted group per transaction in one process (DISTINCT and ordered
    // aggregates keep it out of parallel workers): its halves run side by side into one table, each
    // over its own partition of the base entries (baseHalves).
    const halfSql = await engineTransaction(pool, async (client) => {
      const masks = await hierarchyMaskTable(ctx, client);
      if (changes && changesSql) await createTableAs(client, changes, changesSql);
      const sql = (entries: string) => aggregateSql(ctx, masks, changes, entries);
      await createTableAs(client, aggregate, `${sql(plan.tables.base)} WITH NO DATA`, { analyze: false });
      return sql;
    });
    await sideBySide(
      2,
      baseHalves(plan, ctx.facts).tables.map((entries) => () => engineTransaction(pool, async (client) => void (await client.query(`INSERT INTO ${table(aggregate)} ${halfSql(entries)}`)))),
    );
    // With the engine's small sample (engineTransaction): the default one cost ~0.9 CPU-s (1M
    // lines), alone on the step's path, for the row and distinct counts the points' plans need.
    await engineTransaction(pool, (client) => client.query(`ANALYZE ${table(aggregate)}`));
    // The points, each a statement of its own over the aggregate, side by side on two connections:
    // the reversal pairs, the reversal points, the duplicates and the signatures they leave in one
    // lane (each after what it reads, 1M lines: 0.5 + 0.4 + 0.13 CPU-s), the gap edges (0.9) and
    // the flags of single rows (0.05-0.2 each) in the other, so that neither core waits at the
    // end for the signatures, which ran alone after every point.
    const point = (name: string, sql: () => string) => async () => {
      signal.throwIfAborted();
      if (!plan.planned(name)) return;
      const findings = pointTable(plan, name);
      await engineTransaction(pool, async (client) => {
        if (ctx.runs(name)) await createTableAs(client, findings, sql(), { analyze: false });
        else await client.query(`DROP TABLE IF EXISTS ${table(findings)}`);
      });
      pointsDone([name]);
    };
    const byName = new Map(TRANSACTION_POINTS.map((p) => [p.name, p]));
    const simple = (name: string) => point(name, () => byName.get(name)!.sql(ctx, table(aggregate)));
    const reversals = async () => {
      if (REVERSAL_POINTS.some((p) => ctx.runs(p))) {
        await engineTransaction(pool, (client) => createTableAs(client, plan.tables.work("reversals"), reversalPairs(ctx, table(aggregate)), { analyze: false }));
      }
      for (const name of REVERSAL_POINTS) await simple(name)();
    };
    const scoreChange = async () => {
      await engineTransaction(pool, async (client) => {
        const findings = pointTable(plan, change);
        if (changes) await createTableAs(client, findings, `SELECT tx, score_change AS score FROM ${table(aggregate)} WHERE score_change IS NOT NULL`, { analyze: false });
        else await client.query(`DROP TABLE IF EXISTS ${table(findings)}`);
      });
      pointsDone([change]);
    };
    // Duplicates and reversals keep their signatures, so explain can name the other transaction.
    const signatures = () =>
      engineTransaction(pool, async (client) => {
        const flagged = ["journal_entry_duplicate_v2", "journal_entry_is_reversal_of", "journal_entry_is_reversed_by"]
          .filter((n) => ctx.runs(n))
          .map((n) => `SELECT tx FROM ${table(pointTable(plan, n))}`);
        const where = flagged.length === 0 ? "FALSE" : `tx IN (${flagged.join(" UNION ")})`;
        await createTableAs(
          client,
          plan.tables.work("signatures"),
          `SELECT tx, txid, effective_date, entered_date, entries_count, signature, reverse_signature FROM ${table(aggregate)} t
            WHERE ${where} OR signature IN (SELECT signature FROM ${table(aggregate)} WHERE ${where}) OR signature IN (SELECT reverse_signature FROM ${table(aggregate)} WHERE ${where})`,
        );
      });
    const first = [...REVERSAL_POINTS, "journal_entry_gap_edge", "journal_entry_duplicate_v2"];
    await sideBySide(2, [
      async () => {
        await reversals();
        await simple("journal_entry_duplicate_v2")();
        await signatures();
      },
      simple("journal_entry_gap_edge"),
      scoreChange,
      ...TRANSACTION_POINTS.filter((p) => !first.includes(p.name)).map((p) => simple(p.name)),
    ]);
  },
};

/** The work table of a transaction- or flow-level point's findings (`w_p<index>`: names stay within 63 characters). */
export function pointTable(plan: RunPlan, name: string): string {
  return plan.tables.work(`p${plan.point(name).index}`);
}

/** Transaction-level points whose `w_p<index>` table the scores step joins. */
export function transactionPointNames(): string[] {
  return [...TRANSACTION_POINTS.map((p) => p.name), "prior_period_overall_score_change"];
}
