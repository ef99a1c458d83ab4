import type pg from "pg";
import type { RunPlan } from "../run-plan.js";
import { createTableAs, type RunFacts } from "../steps.js";
import { int, table, text } from "../sql.js";
import { baseHalves } from "./entries.js";

/** Pairs in one transaction's proportional remainder above which flows go to and from `complex`. */
export const MAX_PAIRS_PER_TRANSACTION = 2500;

/** The counterpart of flows too entangled to pair (spec 2.9: a MONETARY_FLOW account `code` may be `complex`). */
export const COMPLEX_ACCOUNT = "complex";

/**
 * Monetary flows (control-points.md: "a debit line paired with an equal credit line in one
 * transaction; unpaired lines are spread over the rest, and a flow with no counterpart gets an
 * Unknown Account"), at the level of a transaction's accounts:
 * 1. amounts are summed per transaction, account and side;
 * 2. in transactions that debit two or more accounts and credit two or more (balanced), a debit
 *    account and a credit account with equal amounts are paired first (SIMPLE);
 * 3. the rest is spread: each remaining debit account a and credit account b get
 *    amount(a) x amount(b) / max(remaining debits, remaining credits) (SIMPLE when one side has a
 *    single account, else COMPLEX); past MAX_PAIRS_PER_TRANSACTION pairs each remaining account
 *    flows to or from `complex` instead;
 * 4. what one side has more than the other flows to or from the Unknown Account (NULL), in
 *    proportion to each account's amount.
 * Amounts are MONEY_100 rounded to the cent per flow.
 */
export function flowsSql(plan: RunPlan, facts: RunFacts, half: number): { sides: string; flows: string } {
  const sides = `SELECT b.tx, b.account, sign(b.amount)::smallint AS side, sum(abs(b.amount))::bigint AS amount
      FROM ${table(baseHalves(plan, facts).tables[half])} b WHERE b.amount <> 0 AND b.tx IS NOT NULL GROUP BY 1, 2, 3`;
  const fa = table(plan.tables.work(`sides${half}`));
  return { sides, flows: pairedFlowsSql(fa, halfAggregate(plan, facts, half), null) };
}

/**
 * One half of the transaction aggregate, the transactions of base partition `half` (baseHalves: a
 * transaction's key `tx` is below `split` in the first half, from it in the second, and below twice
 * `split`, so `tx / split` is its half). Written `tx / split = half`, an expression without
 * statistics that the planner estimates at 0.5% of the rows, as it did `tx % 2 = half`: the range
 * `tx < split`, estimated right, changed the plans of the statements joining it and cost more.
 */
function halfAggregate(plan: RunPlan, facts: RunFacts, half: number): string {
  return `(SELECT * FROM ${table(plan.tables.work("txagg"))} WHERE tx / ${int(baseHalves(plan, facts).split)} = ${half})`;
}

/** A transaction can hold exact pairs (step 2) only if it debits and credits two accounts or more, balanced. */
const MAY_PAIR = (t: string) => `(${t}.debit_accounts >= 2 AND ${t}.credit_accounts >= 2 AND ${t}.debit = ${t}.credit)`;

/**
 * The exact pairs of the transactions `t` (of the sides table `fa`): only amounts found on both
 * sides of a transaction can pair (k: a hash join of the debit sides with the credit sides on
 * transaction and amount, a few rows), and only in transactions that MAY_PAIR: the numbering
 * windows sort those alone.
 */
function exactSql(fa: string, t: string): string {
  return `WITH k AS (SELECT DISTINCT d.tx, d.amount FROM ${fa} d JOIN ${fa} c ON c.tx = d.tx AND c.amount = d.amount AND c.side = -1 WHERE d.side = 1),
      m AS (SELECT f.* FROM ${fa} f JOIN k USING (tx, amount) JOIN ${t} t USING (tx) WHERE ${MAY_PAIR("t")}),
      d AS (SELECT tx, account, amount, row_number() OVER (PARTITION BY tx, amount ORDER BY account) AS rn FROM m WHERE side = 1),
      c AS (SELECT tx, account, amount, row_number() OVER (PARTITION BY tx, amount ORDER BY account) AS rn FROM m WHERE side = -1)
    SELECT d.tx, d.account AS debit_account, c.account AS credit_account, d.amount FROM d JOIN c USING (tx, amount, rn)`;
}

/**
 * The flows of the transactions `t` from their sides `fa`, with their exact pairs `ex`; or, with
 * `ex` null, as if none had any, each row then saying whether it pairs a debit side and a credit
 * side of equal amounts in a transaction that MAY_PAIR, or belongs to one that MAY_PAIR with too
 * many pairs to list (`may_pair`; such rows are kept even when their amount rounds to nothing).
 * Per transaction, what remains to spread: without exact pairs, its sides' totals and counts as
 * the transaction aggregate has them; with exact pairs, the remaining sides added up.
 */
function pairedFlowsSql(fa: string, t: string, ex: string | null): string {
  const kind = (alias: string) => `CASE WHEN ${alias}.debit_accounts >= 2 AND ${alias}.credit_accounts >= 2 THEN 'COMPLEX' ELSE 'SIMPLE' END`;
  const unpaired = (column: string) => (ex ? ` AND NOT EXISTS (SELECT 1 FROM ${ex} e WHERE e.tx = f.tx AND e.${column} = f.account)` : "");
  const rem = `rem AS (
        SELECT f.* FROM ${fa} f WHERE f.side = 1${unpaired("debit_account")}
        UNION ALL
        SELECT f.* FROM ${fa} f WHERE f.side = -1${unpaired("credit_account")})`;
  const totals = `SELECT t.tx, t.debit_side_total::bigint AS rd, t.credit_side_total::bigint AS rc, t.debit_sides::bigint AS nd, t.credit_sides::bigint AS nc,
               ${kind("t")} AS flow_type, t.txid, t.effective_date, ${MAY_PAIR("t")} AS may_pair
          FROM ${t} t`;
  const rt = ex
    ? `rt AS (
        ${totals} WHERE NOT EXISTS (SELECT 1 FROM ${ex} e WHERE e.tx = t.tx)
        UNION ALL
        SELECT r.tx, coalesce(sum(r.amount) FILTER (WHERE r.side = 1), 0)::bigint, coalesce(sum(r.amount) FILTER (WHERE r.side = -1), 0)::bigint,
               count(*) FILTER (WHERE r.side = 1), count(*) FILTER (WHERE r.side = -1), min(${kind("t")}), min(t.txid), min(t.effective_date), FALSE
          FROM rem r JOIN ${t} t USING (tx) WHERE r.tx IN (SELECT tx FROM ${ex}) GROUP BY r.tx)`
    : `rt AS (${totals})`;
  const exactFlows = ex
    ? `SELECT e.tx, e.debit_account, e.credit_account, e.amount, 'SIMPLE' AS flow_type, t.txid, t.effective_date, FALSE AS may_pair FROM ${ex} e JOIN ${t} t USING (tx)
      UNION ALL
      `
    : "";
  return `WITH ${rem},
      ${rt}
    SELECT tx, debit_account, credit_account, amount, flow_type, txid, effective_date, may_pair, ${PAIR_HASH} AS pair_hash FROM (
      ${exactFlows}SELECT d.tx, d.account AS debit_account, c.account AS credit_account, ${proportion("d.amount", "c.amount", "greatest(rt.rd, rt.rc)")} AS amount, rt.flow_type, rt.txid, rt.effective_date,
             ${ex ? "FALSE" : "rt.may_pair AND d.amount = c.amount"} AS may_pair
        FROM rem d JOIN rem c ON c.tx = d.tx AND c.side = -1 JOIN rt ON rt.tx = d.tx
       WHERE d.side = 1 AND rt.nd * rt.nc <= ${MAX_PAIRS_PER_TRANSACTION}
      UNION ALL
      SELECT r.tx, CASE WHEN r.side = 1 THEN r.account ELSE ${text(COMPLEX_ACCOUNT)} END, CASE WHEN r.side = -1 THEN r.account ELSE ${text(COMPLEX_ACCOUNT)} END,
             round(r.amount::numeric * least(rt.rd, rt.rc) / CASE WHEN r.side = 1 THEN rt.rd ELSE rt.rc END)::bigint, 'COMPLEX', rt.txid, rt.effective_date, ${ex ? "FALSE" : "rt.may_pair"}
        FROM rem r JOIN rt USING (tx) WHERE rt.nd * rt.nc > ${MAX_PAIRS_PER_TRANSACTION}
      UNION ALL
      SELECT r.tx, CASE WHEN r.side = 1 THEN r.account END, CASE WHEN r.side = -1 THEN r.account END,
             round(r.amount::numeric * abs(rt.rd - rt.rc) / CASE WHEN r.side = 1 THEN rt.rd ELSE rt.rc END)::bigint, rt.flow_type, rt.txid, rt.effective_date, FALSE
        FROM rem r JOIN rt USING (tx)
       WHERE (r.side = 1 AND rt.rd > rt.rc) OR (r.side = -1 AND rt.rc > rt.rd)) f
    WHERE amount > 0${ex ? "" : " OR may_pair"}`;
}

/**
 * A flow's account pair as one number (NULL without both accounts): the pairs statements split the
 * pairs in parts by it and sort on it first (then on the accounts: equal numbers need not be the
 * same pair). Stored with the flow (its halves' tables), computed once: each pairs part read every
 * flow of both halves and hashed the concatenated accounts for its filter, then again for its own
 * flows' sort key (1M lines: pairs parts 2.65 -> 2.35 CPU-s, flows +0.1). Two hashes XORed, no
 * concatenation: 40% cheaper, and which part a pair falls in changes nothing it adds up.
 */
const PAIR_HASH = "(hashtextextended(debit_account, 0) # hashtextextended(credit_account, 1))";

/**
 * The flows of one half are first computed as if no transaction had exact pairs (finding them cost
 * a self-join of all the sides, and the generated ledger has none); the transactions whose rows say
 * they may have some (`may_pair`) are then recomputed with their exact pairs: their rows deleted
 * and written again.
 */
export async function exactPairs(client: pg.PoolClient, plan: RunPlan, facts: RunFacts, half: number): Promise<void> {
  const flows = table(plan.tables.work(`flows${half}`));
  const t = halfAggregate(plan, facts, half);
  const names = { tx: plan.tables.work(`pairtx${half}`), sides: plan.tables.work(`pairsides${half}`), exact: plan.tables.work(`exact${half}`), redone: plan.tables.work(`redone${half}`) };
  const count = await createTableAs(client, names.tx, `SELECT DISTINCT tx FROM ${flows} WHERE may_pair`, { analyze: false });
  if (count > 0) {
    await client.query(`ANALYZE ${table(names.tx)}`);
    const subset = `(SELECT * FROM ${t} t WHERE tx IN (SELECT tx FROM ${table(names.tx)}))`;
    await createTableAs(client, names.sides, `SELECT * FROM ${table(plan.tables.work(`sides${half}`))} WHERE tx IN (SELECT tx FROM ${table(names.tx)})`);
    // Analyzed: the remainder joins it with itself.
    await createTableAs(client, names.exact, exactSql(table(names.sides), subset));
    await createTableAs(client, names.redone, pairedFlowsSql(table(names.sides), subset, table(names.exact)), { analyze: false });
    await client.query(`DELETE FROM ${flows} WHERE tx IN (SELECT tx FROM ${table(names.tx)})`);
    await client.query(`INSERT INTO ${flows} SELECT * FROM ${table(names.redone)}`);
  }
  await client.query(`DROP TABLE IF EXISTS ${[names.tx, names.sides, names.exact, names.redone].map(table).join(", ")}`);
}

/**
 * round(a x b / c) as numeric arithmetic rounds it (half away from zero), for a side's amount a,
 * b and a side total c, all positive: in bigint when all three are below 10^8 (1,000,000.00 in
 * cents), else in numeric. The same value: numeric division rounds the quotient to at least
 * 16 - 4 x (its weight in base-10000 digits) decimals, 4 or more when c < 10^4 and 8 or more when
 * c < 10^8 (a x b < 10^16); a remainder below half is at least 1/(2c) from it, so that rounding
 * never lifts it to half, and one at half or above stays there. (Checked against numeric on 3M
 * random triples and 1M built one unit below half.) Numeric multiplication and division were a
 * fifth of the flows statement's CPU.
 */
function proportion(a: string, b: string, c: string): string {
  return `CASE WHEN ${c} < 100000000 AND ${a} < 100000000 AND ${b} < 100000000 THEN (2 * ${a} * ${b} + ${c}) / (2 * ${c}) ELSE round(${a}::numeric * ${b} / ${c})::bigint END`;
}
