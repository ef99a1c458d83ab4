import type pg from "pg";
import { EXPERT_SCORES, isGeneralLedger, type ExpertRule } from "./control-points/index.js";
import type { PlannedPoint, RunPlan } from "./run-plan.js";
import type { EngineRiskGroup } from "./spec.js";
import { readFacts, type RunFacts } from "./steps.js";
import { ident, table, wordsPattern } from "./sql.js";

/** One control point's part in a score. */
export interface ExplainedPoint {
  name: string;
  displayName: string;
  kind: string;
  level: string;
  score: number;
  weight: number;
  /** score x weight / total weight of the group: what it adds to the risk (0..10000). */
  contribution: number;
  failed: boolean;
  /** Where the score comes from: this entry, another entry of the transaction, the transaction, or one of its flows. */
  source: "ENTRY" | "OTHER_ENTRY" | "TRANSACTION" | "FLOW";
  /** The entry (rowid) that scored it, for entry-level points. */
  rowid: number | null;
  reason: string;
}

export interface Explanation {
  level: "ENTRY" | "TRANSACTION";
  rowid: number;
  txid: string | null;
  risk: number | null;
  riskLevel: string;
  riskGroup: { id: string; name: string; category: string } | null;
  /** Sum of the weights of the group's control points this run computed (the denominator). */
  totalWeight: number;
  /** Every control point that scored above 0, highest contribution first. */
  controlPoints: ExplainedPoint[];
  /** One paragraph for a reviewer. */
  summary: string;
}

type Row = Record<string, unknown>;

const WEEKDAYS = ["", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];

export function money(cents: unknown): string {
  const n = Number(cents ?? 0);
  const sign = n < 0 ? "-" : "";
  const abs = Math.abs(n);
  const whole = Math.floor(abs / 100).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${sign}${whole}.${String(abs % 100).padStart(2, "0")}`;
}

const percent = (score: number) => `${(score / 100).toFixed(2)}%`;
const isoDate = (value: unknown) => (value instanceof Date ? value.toISOString().slice(0, 10) : value == null ? null : String(value).slice(0, 10));
const weekday = (value: unknown) => {
  const d = isoDate(value);
  if (!d) return "";
  const day = new Date(`${d}T00:00:00Z`).getUTCDay();
  return WEEKDAYS[day === 0 ? 7 : day];
};

function firstMatch(textValue: unknown, words: readonly string[]): string | null {
  const pattern = wordsPattern(words);
  if (!pattern || typeof textValue !== "string") return null;
  const js = new RegExp(pattern.replace(/\\m/g, "\\b").replace(/\\M/g, "\\b"), "i");
  return js.exec(textValue)?.[0] ?? null;
}

async function one(pool: pg.Pool, sql: string, values: unknown[]): Promise<Row | null> {
  const exists = /FROM ("[^"]+"\."[^"]+")/.exec(sql);
  if (exists) {
    const name = exists[1].replace(/"/g, "");
    const ok = await pool.query(`SELECT to_regclass($1) IS NOT NULL AS ok`, [name]);
    if (!ok.rows[0].ok) return null;
  }
  const { rows } = await pool.query(sql, values);
  return (rows[0] as Row) ?? null;
}

interface Context {
  pool: pg.Pool;
  plan: RunPlan;
  facts: RunFacts;
  /** The entry the reason is about (this one, or the one of the transaction that scored). */
  entry: Row | null;
  tx: Row | null;
}

/** A plain-language reason for one control point's score, from the row and the statistics the run kept. */
async function reasonFor(c: Context, point: PlannedPoint): Promise<string> {
  const { plan, pool, facts, entry: e, tx: t } = c;
  const name = point.definition.name;
  const setting = <T>(key: string) => plan.setting<T>(name, key);
  const stat = (key: string) => table(plan.tables.stat(key));
  const short = name.replace(/^(ap|ar)_entry_/, "");
  const amount = e ? money(e.amount) : "";
  switch (short) {
    case "journal_entry_weekend_post": {
      const entered = e?.entered_date ?? null;
      return entered ? `entered on ${weekday(entered)} ${isoDate(entered)}` : `effective on ${weekday(e?.effective_date)} ${isoDate(e?.effective_date)} (no entered date)`;
    }
    case "group_by_trendshock":
    case "prior_period_frequency":
    case "prior_period_dollar_change": {
      const row = e && (await one(pool, `SELECT * FROM ${stat("trend")} WHERE account = $1 AND rp = date_trunc('month', $2::date)::date`, [e.account, isoDate(e.effective_date)]));
      const month = isoDate(e?.effective_date)?.slice(0, 7);
      if (short === "group_by_trendshock") {
        return row
          ? `account ${e!.account} moved a net ${money(row.net)} in the period of ${month}, against ${money(Math.round(Number(row.others_mean ?? 0)))} on average in its other periods`
          : `account ${e?.account}'s net activity in ${month} broke from its other periods`;
      }
      if (short === "prior_period_frequency") {
        return row ? `account ${e!.account} has ${row.n} entries in the period of ${month} against ${row.prior_n ?? 0} in the prior period` : `account ${e?.account} has many more entries than in the prior period`;
      }
      return row
        ? `account ${e!.account} moved ${money(row.act)} in the period of ${month} against ${money(row.prior_act ?? 0)} in the prior period`
        : `account ${e?.account} moved much more money than in the prior period`;
    }
    case "journal_entry_last_3_digits":
    case "last_3_digits":
      return `the amount ${amount} has no cents and ends in ${String(Math.abs(Number(e?.amount ?? 0)) / 100 % 1000).padStart(3, "0")}`;
    case "journal_entry_manual_entry":
    case "manual_entry":
      return `its type "${e?.type ?? e?.entry_type}" marks it manual`;
    case "journal_entry_is_reversal_of":
    case "journal_entry_is_reversed_by": {
      const sig = await one(pool, `SELECT * FROM ${table(plan.tables.work("signatures"))} WHERE tx = $1`, [t?.row_no]);
      const other =
        sig &&
        (await one(
          pool,
          `SELECT txid, effective_date, entered_date FROM ${table(plan.tables.work("signatures"))} WHERE ${short === "journal_entry_is_reversal_of" ? "reverse_signature = $1" : "signature = $2"} AND tx <> $3 ORDER BY coalesce(entered_date, effective_date) ${short === "journal_entry_is_reversal_of" ? "DESC" : "ASC"} LIMIT 1`,
          [sig.signature, sig.reverse_signature, t?.row_no],
        ));
      const label = other ? `transaction ${other.txid} of ${isoDate(other.entered_date ?? other.effective_date)}` : "another transaction";
      return short === "journal_entry_is_reversal_of" ? `it reverses ${label} (same accounts, opposite amounts)` : `it is reversed by ${label}`;
    }
    case "journal_entry_gap_edge":
      return `its transaction id ${t?.txid} borders a gap in the numbering`;
    case "journal_entry_zero":
      return "the amount is 0.00";
    case "journal_entry_reporting_analysis_period_adjustment": {
      const end = plan.spec.periods.find((p) => (isoDate(e?.effective_date) ?? "") >= p.startDate && (isoDate(e?.effective_date) ?? "") <= p.endDate)?.endDate;
      return `effective ${isoDate(e?.effective_date)} in the analysis period ending ${end}, but entered ${isoDate(e?.entered_date)}, after it ended`;
    }
    case "journal_entry_flat_sos_v2": {
      const d2 = e ? String(Math.abs(Number(e.amount))).slice(0, 2) : "";
      const row = e && (await one(pool, `SELECT * FROM ${stat("sos")} WHERE account = $1 AND d2 = $2`, [e.account, Number(d2)]));
      return row ? `amounts starting ${d2} occur ${row.observed} times on account ${e!.account}, ${row.expected} expected by Benford's law` : `amounts starting ${d2} are over-represented on account ${e?.account}`;
    }
    case "journal_entry_unbalanced_transaction":
      return `debits ${money(t?.debit)} and credits ${money(t?.credit)} differ by ${money(Math.abs(Number(t?.debit ?? 0) - Number(t?.credit ?? 0)))}`;
    case "journal_entry_cash_out_the_door":
      return `the transaction credits a cash account (cash paid out) against ${((t?.accounts as string[]) ?? []).join(", ")}`;
    case "journal_entry_start_of_period":
      return `effective ${isoDate(e?.effective_date)}, in the first ${setting<number>("days")} days of its reporting period`;
    case "journal_entry_end_of_period":
    case "end_of_reporting_period":
      return `effective ${isoDate(e?.effective_date)}, in the last ${setting<number>("days")} days of its reporting period`;
    case "journal_entry_start_of_year":
      return `effective ${isoDate(e?.effective_date)}, in the first ${setting<number>("days")} days of the analysis period`;
    case "journal_entry_end_of_year":
    case "end_of_analysis_period":
      return `effective ${isoDate(e?.effective_date)}, in the last ${setting<number>("days")} days of the analysis period`;
    case "journal_entry_high_dollar_value":
    case "high_monetary_value":
      return `the absolute amount ${money(Math.abs(Number(e?.amount ?? 0)))} is at or above the high monetary value threshold ${money(facts.highValueThreshold)}`;
    case "journal_entry_material_value":
      return `the absolute amount ${money(Math.abs(Number(e?.amount ?? 0)))} is ${((Math.abs(Number(e?.amount ?? 0)) * 100) / Number(facts.materiality ?? 1)).toFixed(1)}% of materiality ${money(facts.materiality)} (${facts.materialitySource})`;
    case "journal_entry_suspicious_keyword":
    case "suspicious_keyword": {
      const word = firstMatch(e?.memo, setting<string[]>("keywords") ?? []);
      return `the memo "${e?.memo}" contains "${word ?? "a suspicious keyword"}"`;
    }
    case "journal_entry_complex_instrument": {
      const word = firstMatch(e?.memo, setting<string[]>("keywords") ?? []);
      return `the memo "${e?.memo}" names a complex instrument ("${word ?? "?"}")`;
    }
    case "journal_entry_reporting_adjustment":
      return `effective ${isoDate(e?.effective_date)} but entered ${isoDate(e?.entered_date)}, more than ${setting<number>("graceDays")} days after its reporting period ended`;
    case "journal_entry_two_digit_benford_v2":
    case "two_digit_benford": {
      const d2 = e ? String(Math.abs(Number(e.amount))).slice(0, 2) : "";
      const row = await one(pool, `SELECT * FROM ${stat("benford")} WHERE d2 = $1`, [Number(d2)]);
      return row ? `amounts starting ${d2} occur ${row.observed} times, ${row.expected} expected by Benford's law` : `amounts starting ${d2} are over-represented`;
    }
    case "prior_period_overall_score_change":
      return `the share of account ${e?.account ?? ""}'s entries failing other control points rose sharply from the prior period`;
    case "journal_entry_empty_text_field":
    case "empty_text_field":
      return "the memo is blank";
    case "journal_entry_isolation_forest": {
      const parts: string[] = [];
      if (e) {
        const user = await one(pool, `SELECT * FROM ${stat("iso_user")} WHERE account = $1 AND user_id = $2`, [e.account, e.user_id]);
        if (user) parts.push(`user ${e.user_id} made ${user.entries} of account ${e.account}'s ${user.account_entries} entries`);
        const dow = await one(pool, `SELECT * FROM ${stat("iso_dow")} WHERE account = $1 AND dow = $2`, [e.account, new Date(`${isoDate(e.effective_date)}T00:00:00Z`).getUTCDay() || 7]);
        if (dow) parts.push(`only ${dow.entries} of the account's entries fall on a ${weekday(e.effective_date)}`);
      }
      return parts.length > 0 ? `unusual on several counts: ${parts.join("; ")}` : "unusual on several counts (amount, user, weekday, entry delay)";
    }
    case "journal_entry_flat_unusual_amount_v4":
    case "unusual_amount_by_vendor":
    case "unusual_amount_by_customer": {
      const key = short.startsWith("journal") ? "account" : "party_id";
      const value = short.startsWith("journal") ? e?.account : (e?.vendor_id ?? e?.customer_id);
      const row = e && (await one(pool, `SELECT * FROM ${stat("amount")} WHERE ${key} = $1`, [value]));
      if (row && Number(row.sd) > 0 && Number(e!.amount) !== 0) {
        const z = Math.abs(Math.log(Math.abs(Number(e!.amount))) - Number(row.mean)) / Number(row.sd);
        return `the amount ${amount} is ${z.toFixed(1)} standard deviations (log scale) from ${short.startsWith("journal") ? "account" : "party"} ${value}'s usual amounts (typically ${money(Math.round(Math.exp(Number(row.mean))))})`;
      }
      return `the amount ${amount} is unusual for ${value}`;
    }
    case "journal_entry_duplicate_v2": {
      const sig = await one(pool, `SELECT * FROM ${table(plan.tables.work("signatures"))} WHERE tx = $1`, [t?.row_no]);
      const other = sig && (await one(pool, `SELECT txid, effective_date FROM ${table(plan.tables.work("signatures"))} WHERE signature = $1 AND entries_count = $2 AND tx <> $3 LIMIT 1`, [sig.signature, sig.entries_count, t?.row_no]));
      return other ? `same accounts and amounts as transaction ${other.txid} of ${isoDate(other.effective_date)}` : "same accounts and amounts as another transaction";
    }
    case "journal_entry_nfp_expense_flurry":
    case "journal_entry_nfp_fund_expense_flurry":
      return `it posts expenses in a window of ${setting<number>("windowDays")} day(s) from ${isoDate(e?.effective_date ?? t?.effective_date)} whose expense total runs far above the usual windows`;
    case "journal_entry_nfp_split_expense_single":
      return "it debits the same expense account more than once with the same amount";
    case "journal_entry_nfp_split_expense_multiple":
      return `on ${isoDate(e?.effective_date)} account ${e?.account} was debited in several transactions each below ${money(setting("threshold"))}, together above it`;
    case "journal_entry_nfp_interfund_transfer":
      return "it moves money between funds";
    case "activity_flurry":
      return `${e?.vendor_id ?? e?.customer_id} has a burst of entries on ${isoDate(e?.effective_date)}`;
    case "cash_expenditure":
      return plan.spec.family === "AP" ? `a cash payment of ${amount}` : `a cash receipt of ${amount}`;
    case "vendor_debit_balance":
      return `vendor ${e?.vendor_id}'s balance turned debit with this entry`;
    case "duplicate_document":
      return `document ${e?.invoice_id} of ${e?.vendor_id ?? e?.customer_id} is recorded more than once`;
    case "invoice_created_after_effective_date":
      return `the invoice is dated ${isoDate(e?.invoice_date)}, after its effective date ${isoDate(e?.effective_date)}`;
    case "invoice_from_related_party":
    case "invoice_to_related_party":
      return `${e?.vendor_id ?? e?.customer_id} is a related party`;
    case "invoice_out_of_order":
      return `invoice ${e?.invoice_id} is numbered below an earlier invoice of ${e?.vendor_id ?? e?.customer_id}`;
    case "memo_with_different_period":
      return `the memo "${e?.memo}" names another period than ${isoDate(e?.effective_date)?.slice(0, 7)}`;
    case "old_unpaid_invoice":
      return `invoice ${e?.invoice_id} is unpaid at the analysis period end and older than ${setting<number>("ageDays")} days`;
    case "vendor_not_in_vendor_list":
    case "customer_not_in_customer_list":
      return `${e?.vendor_id ?? e?.customer_id} is not in the list`;
    default:
      return point.definition.summary;
  }
}

/** Flow-level reasons: the transaction's highest-scoring flow of the point. */
async function flowReason(c: Context, point: PlannedPoint): Promise<string> {
  const { pool, plan, tx } = c;
  const name = point.definition.name;
  const flow = await one(
    pool,
    `SELECT f.debit_account, f.credit_account, f.amount, p.n, p.debit_bucket, p.credit_bucket, p.bucket_flows, p.total_flows, p.from_flows, p.to_flows, p.mean
       FROM ${table(plan.tables.flows)} f LEFT JOIN ${table(plan.tables.work("pairs"))} p ON p.debit_account = f.debit_account AND p.credit_account = f.credit_account
      WHERE f.tx = $1 ORDER BY f.${ident(`cp_score_${name}`)} DESC LIMIT 1`,
    [tx?.row_no],
  );
  if (!flow) return point.definition.summary;
  const pair = `${money(flow.amount)} from ${flow.debit_account ?? "Unknown Account"} (debit) to ${flow.credit_account ?? "Unknown Account"} (credit)`;
  switch (name) {
    case "journal_entry_flat_gifi_bucket_rarity":
      return `a flow of ${pair}: money between groups ${flow.debit_bucket} and ${flow.credit_bucket} moves in ${flow.bucket_flows} of ${flow.total_flows} flows`;
    case "markov_chain": {
      const expected = (Number(flow.from_flows) * Number(flow.to_flows)) / Math.max(1, Number(flow.total_flows));
      return `a flow of ${pair}: this pairing occurs ${flow.n} times, ${expected.toFixed(1)} expected from the two accounts' activity`;
    }
    case "journal_entry_flow_analysis":
      return `a flow of ${pair}, far from the usual ${money(Math.round(Math.exp(Number(flow.mean ?? 0))))} between these accounts`;
    case "journal_entry_cash_to_bad_debt":
      return `a flow of ${pair} between cash and bad debt`;
    case "journal_entry_flat_expert_flow_v2": {
      const rating = (Object.entries(EXPERT_SCORES).find(([, v]) => v === Number(c.tx?.[`cp_score_${name}`] ?? 0)) ?? ["rated"])[0];
      const rules = (plan.setting<ExpertRule[]>(name, "rules") ?? []).length;
      return `a flow of ${pair}, rated ${rating} by the expert rules (${rules} rules)`;
    }
    default:
      return `a flow of ${pair}, named by the custom rules ${point.definition.displayName}`;
  }
}

function groupOf(plan: RunPlan, category: unknown): { group: EngineRiskGroup; index: number } | null {
  const groups = plan.spec.riskGroups.map((group, index) => ({ group, index })).filter(({ group }) => !group.disabled);
  return groups.find(({ group }) => group.category === category) ?? groups.find(({ group }) => group.general) ?? null;
}

function assemble(plan: RunPlan, level: "ENTRY" | "TRANSACTION", row: Row, grouped: { group: EngineRiskGroup; index: number } | null, points: ExplainedPoint[]): Explanation {
  const weights = grouped?.group.weights ?? {};
  const totalWeight = plan.points.filter((p) => p.available).reduce((sum, p) => sum + (weights[p.definition.name] ?? 0), 0);
  for (const p of points) {
    p.weight = weights[p.name] ?? 0;
    p.contribution = totalWeight > 0 ? Math.round((p.score * p.weight) / totalWeight) : 0;
  }
  points.sort((a, b) => b.contribution - a.contribution || b.score - a.score);
  const risk = row.risk == null ? null : Number(row.risk);
  const levelText = String(row.risk_level ?? "UNSCORED");
  const fired = points.filter((p) => p.failed);
  const what = level === "ENTRY" ? `Entry ${row.row_no}` : `Transaction ${row.txid ?? row.row_no}`;
  const head = risk == null ? `${what} is unscored` : `${what} scores ${percent(risk)} (${levelText}) in risk group ${grouped?.group.name ?? "?"}`;
  const body =
    fired.length === 0
      ? "no control point failed."
      : `${fired.length} control point(s) failed: ${fired.map((p) => `${p.displayName} (${p.reason}; score ${percent(p.score)} x weight ${p.weight})`).join("; ")}.`;
  return {
    level,
    rowid: Number(row.row_no),
    txid: (row.txid as string) ?? null,
    risk,
    riskLevel: levelText,
    riskGroup: grouped ? { id: grouped.group.id, name: grouped.group.name, category: grouped.group.category } : null,
    totalWeight,
    controlPoints: points,
    summary: `${head}: ${body}${totalWeight > 0 ? ` Risk = sum(score x weight) / ${totalWeight} (the weights of the ${plan.points.filter((p) => p.available && (weights[p.definition.name] ?? 0) > 0).length} weighted control points this run computed).` : ""}`,
  };
}

async function pointsOf(pool: pg.Pool, plan: RunPlan, facts: RunFacts, row: Row, tx: Row | null, own: bigint | null): Promise<ExplainedPoint[]> {
  const out: ExplainedPoint[] = [];
  const gl = isGeneralLedger(plan.spec.family);
  for (const point of plan.points) {
    const score = Number(row[`cp_score_${point.definition.name}`] ?? 0);
    if (!point.available || score <= 0) continue;
    const level = point.definition.level;
    let source: ExplainedPoint["source"] = level === "FLOW" ? "FLOW" : level === "TRANSACTION" && !isEntryComputed(point) ? "TRANSACTION" : "ENTRY";
    let entry: Row | null = own !== null ? row : null;
    let rowid: number | null = null;
    if (source === "ENTRY" && gl) {
      const bit = BigInt(2) ** BigInt(point.index);
      if (own !== null && (own & bit) !== 0n) rowid = Number(row.row_no);
      else {
        const txid = tx?.txid ?? row.txid;
        entry = await one(pool, `SELECT * FROM ${table(plan.tables.lines)} WHERE lower(txid) IS NOT DISTINCT FROM lower($1) AND tx = $2 AND (own_mask & $3::bigint) <> 0 ORDER BY row_no LIMIT 1`, [
          txid,
          tx?.row_no ?? row.tx,
          bit.toString(),
        ]);
        rowid = entry ? Number(entry.row_no) : null;
        if (own !== null) source = "OTHER_ENTRY";
      }
    } else if (!gl) rowid = Number(row.row_no);
    const context: Context = { pool, plan, facts, entry, tx };
    let reason: string;
    if ((source === "ENTRY" || source === "OTHER_ENTRY") && gl && !entry) {
      // A statistical score above 0 that no entry fails: entries keep only their failures (own_mask),
      // so the entry that carried the transaction's score is not known; say so rather than guess one.
      reason = `scored ${score} by an entry of its transaction below the point's failure threshold (no entry fails it)`;
    } else {
      reason = source === "FLOW" ? await flowReason(context, point) : await reasonFor(context, point);
      if (source === "OTHER_ENTRY") reason = `entry ${rowid} of its transaction: ${reason}`;
    }
    out.push({
      name: point.definition.name,
      displayName: point.definition.displayName,
      kind: point.definition.kind,
      level,
      score,
      weight: 0,
      contribution: 0,
      failed: Boolean(row[`cp_failed_${point.definition.name}`]),
      source,
      rowid,
      reason,
    });
  }
  return out;
}

/** Transaction-level in name but computed from each entry (expense flurry): entries say which one. */
function isEntryComputed(point: PlannedPoint): boolean {
  return point.definition.name === "journal_entry_nfp_expense_flurry" || point.definition.name === "journal_entry_nfp_fund_expense_flurry";
}

/** Why an entry (rowid) scores what it scores: its risk group, and each control point above 0 with score, weight and reason. */
export async function explainEntry(pool: pg.Pool, plan: RunPlan, rowid: number): Promise<Explanation | null> {
  const row = await one(pool, `SELECT * FROM ${table(plan.tables.lines)} WHERE row_no = $1`, [rowid]);
  if (!row) return null;
  const facts = await readFacts(pool, plan);
  const gl = isGeneralLedger(plan.spec.family);
  const tx = gl ? await one(pool, `SELECT * FROM ${table(plan.tables.tx)} WHERE row_no = $1`, [row.tx]) : null;
  const points = await pointsOf(pool, plan, facts, row, tx, gl ? BigInt(String(row.own_mask ?? 0)) : null);
  return assemble(plan, "ENTRY", row, groupOf(plan, row.riskGroup), points);
}

/** Why a transaction (by its rowid, the first entry's) scores what it scores, in the platform score group. */
export async function explainTransaction(pool: pg.Pool, plan: RunPlan, rowid: number): Promise<Explanation | null> {
  if (!isGeneralLedger(plan.spec.family)) return null;
  const tx = await one(pool, `SELECT * FROM ${table(plan.tables.tx)} WHERE row_no = $1`, [rowid]);
  if (!tx) return null;
  const facts = await readFacts(pool, plan);
  const points = await pointsOf(pool, plan, facts, tx, tx, null);
  const general = plan.spec.riskGroups.map((group, index) => ({ group, index })).find(({ group }) => group.general && !group.disabled) ?? null;
  return assemble(plan, "TRANSACTION", tx, general, points);
}
