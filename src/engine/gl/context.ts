import type pg from "pg";
import { periodExpressions } from "../periods.js";
import type { RunPlan } from "../run-plan.js";
import { GL_COLUMNS, mappedColumns, sourcesSql } from "../source.js";
import { readFacts } from "../steps.js";
import { table } from "../sql.js";

/**
 * What every general ledger step derives from the plan: the sources as one SELECT (normalized
 * columns, unique row numbers), period expressions, and the join to the accounts table.
 */
export async function glContext(pool: pg.Pool | pg.PoolClient, plan: RunPlan) {
  const facts = await readFacts(pool, plan);
  const offsets = plan.spec.sources.map((_s, k) => Number(facts[`offset_${k}`] ?? 0));
  const mapped = mappedColumns(plan.spec.sources, GL_COLUMNS);
  const accounts = table(plan.tables.accounts);
  return {
    plan,
    facts,
    mapped,
    periods: periodExpressions(plan.spec),
    /** The normalized entries of every source (no transaction key). */
    sources: sourcesSql(plan.spec.sources, GL_COLUMNS, offsets),
    /** The same with `tx`, the transaction key. */
    sourcesWithTx: sourcesSql(plan.spec.sources, GL_COLUMNS, offsets, { withTx: true }),
    accounts,
    /** Joins alias `a` (the accounts, or a relation over them with the same keys) to alias `alias` (entries with account and fund_id). */
    accountJoin: (alias: string, relation = accounts) => `LEFT JOIN ${relation} a ON a.account = ${alias}.account AND a.fund_key = coalesce(${alias}.fund_id, '')`,
    /** Whether a control point runs in this result. */
    runs: (name: string) => plan.points.some((p) => p.definition.name === name && p.available),
    setting: <T = unknown>(point: string, key: string) => plan.setting<T>(point, key),
  };
}

export type GlContext = Awaited<ReturnType<typeof glContext>>;

/**
 * The first two digits of an amount of at least 10.00 (MONEY_100: the same digits as the currency
 * amount), by integer division by the power of ten two digits below its length: the same value as
 * left(abs(amount)::text, 2)::integer without writing and parsing a text per entry.
 */
export const FIRST_TWO_DIGITS = (amount: string) => {
  const x = `abs(${amount})`;
  const ladder = Array.from({ length: 15 }, (_, i) => `WHEN ${x} < 1${"0".repeat(i + 4)} THEN ${x} / 1${"0".repeat(i + 2)}`).join(" ");
  return `CASE WHEN ${x} >= 1000 THEN (CASE ${ladder} ELSE ${x} / 1${"0".repeat(17)} END)::integer END`;
};

/**
 * A rarity ramp: 10000 at or below `rare`, 0 at ten times it and above, log-linear between
 * (a flow ten times as common as the limit is ordinary).
 */
export function rarityScore(share: string, rare: number): string {
  const limit = Math.max(rare, 1e-12);
  return `CASE WHEN ${share} <= ${limit} THEN 10000 WHEN ${share} >= ${limit * 10} THEN 0 ELSE round(10000 * (1 - log(${share} / ${limit}))) END`;
}

/** Excess over an expectation: 5000 at `ratio`, 10000 at twice its excess, 0 at or below 1. */
export function excessScore(observedOverExpected: string, ratio: number): string {
  const excess = Math.max(ratio - 1, 0.01);
  return `least(10000, greatest(0, round((${observedOverExpected} - 1) * 5000.0 / ${excess})))`;
}
