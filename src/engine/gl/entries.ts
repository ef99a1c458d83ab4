import type pg from "pg";
import { riskGroupOf } from "../accounts.js";
import type { RunPlan } from "../run-plan.js";
import type { EngineSource } from "../spec.js";
import { additionalColumns, GL_COLUMNS, sourcePageHalves, sourcesSql } from "../source.js";
import { engineTransaction, sideBySide, WRITE_ONCE, type EngineStep, type RunFacts } from "../steps.js";
import { ident, int, num, ramp, table, textArray, wordsMatch } from "../sql.js";
import { FIRST_TWO_DIGITS, glContext, type GlContext } from "./context.js";
import { statisticTable } from "./statistics.js";

/**
 * Entry-level control points: each an SQL expression over one entry (alias `s`, with `d2`, `rp`,
 * `dow` and `lag` added), its account (`a`) and the statistic tables joined by key. They become the
 * `o<index>` columns of the base table: the entry's own scores, before its transaction's are known.
 */
interface EntryPoint {
  name: string;
  expression(ctx: GlContext, joins: Joins): string;
  /**
   * The expression reads only this column of the entry (and `s.rp`, derived from the effective
   * date): it may be computed once per distinct value of the column and joined back (`fewValues`).
   */
  by?: "memo" | "type" | "effective_date";
  /**
   * The expression is `test(value)`, `value` reading only the effective date: the value is then
   * computed once per distinct date (with `by` "effective_date") and the test for each entry.
   */
  perDate?: (ctx: GlContext) => { value: string; test: (value: string) => string };
}

/** A point testing each entry against a value of its effective date (`perDate`). */
function perDate(name: string, perDate: (ctx: GlContext) => { value: string; test: (value: string) => string }): EntryPoint {
  return {
    name,
    by: "effective_date",
    perDate,
    expression: (ctx) => {
      const { value, test } = perDate(ctx);
      return test(value);
    },
  };
}

type Joins = Record<string, string | null>;

/** Deviation of ln|amount| from the account's mean, in standard deviations (NULL for zero amounts or no spread). */
const AMOUNT_Z = "(CASE WHEN s.amount <> 0 AND sa.sd > 0 THEN abs(ln(abs(s.amount)::float8) - sa.mean) / sa.sd END)";

const ON = (condition: string) => `CASE WHEN ${condition} THEN 10000 ELSE 0 END`;

const ENTRY_POINTS: EntryPoint[] = [
  {
    name: "journal_entry_weekend_post",
    expression: (ctx) => {
      const days = (ctx.setting<number[]>("journal_entry_weekend_post", "weekendDays") ?? []).map(int);
      if (days.length === 0) return "0";
      const useEffective = ctx.setting("journal_entry_weekend_post", "useEffectiveDate") !== false;
      const date = ctx.mapped.has("entered_date") ? (useEffective ? "coalesce(s.entered_date, s.effective_date)" : "s.entered_date") : "s.effective_date";
      // The ISO day of the week in integer arithmetic: days since 4714-11-24 BC (PostgreSQL's
      // first date, a Monday, so never negative) mod 7, plus 1. extract(isodow) parses its field
      // name and builds a numeric per entry (1M lines: 0.48 -> 0.28 CPU-s for a pass computing
      // the point). An infinite date has no day (extract gives NULL; the subtraction would fail).
      return `CASE WHEN NOT isfinite(${date}) THEN 0 WHEN (${date} - date '4714-11-24 BC') % 7 + 1 IN (${days.join(", ")}) THEN 10000 ELSE 0 END`;
    },
  },
  { name: "group_by_trendshock", expression: (_ctx, j) => (j.trend ? "coalesce(st.trend, 0)" : "0") },
  {
    name: "journal_entry_last_3_digits",
    expression: (ctx) => {
      const patterns = (ctx.setting<string[]>("journal_entry_last_3_digits", "patterns") ?? []).filter((p) => /^\d{3}$/.test(p));
      if (patterns.length === 0) return "0";
      return ON(`abs(s.amount) >= ${int(ctx.setting("journal_entry_last_3_digits", "minimumAmount"))} AND abs(s.amount) % 100 = 0 AND lpad((abs(s.amount) / 100 % 1000)::text, 3, '0') = ANY(${textArray(patterns)})`);
    },
  },
  { name: "prior_period_frequency", expression: (_ctx, j) => (j.trend ? "coalesce(st.frequency, 0)" : "0") },
  {
    name: "journal_entry_manual_entry",
    by: "type",
    expression: (ctx) => {
      const match = wordsMatch("s.type", ctx.setting<string[]>("journal_entry_manual_entry", "values") ?? []);
      return match ? ON(match) : "0";
    },
  },
  { name: "journal_entry_zero", expression: () => ON("s.amount = 0") },
  perDate("journal_entry_reporting_analysis_period_adjustment", (ctx) => ({
    value: `${ctx.periods.analysisEnd("s.effective_date")} + ${int(ctx.setting("journal_entry_reporting_analysis_period_adjustment", "graceDays"))}`,
    test: (value) => ON(`s.entered_date > ${value}`),
  })),
  { name: "journal_entry_flat_sos_v2", expression: (_ctx, j) => (j.sos ? "coalesce(ss.score, 0)" : "0") },
  { name: "journal_entry_start_of_period", by: "effective_date", expression: (ctx) => ON(`s.effective_date < s.rp + ${int(ctx.setting("journal_entry_start_of_period", "days"))}`) },
  { name: "journal_entry_high_dollar_value", expression: (ctx) => ON(`abs(s.amount) >= ${int(ctx.facts.highValueThreshold)}`) },
  { name: "journal_entry_nfp_expense_flurry", expression: (_ctx, j) => (j.flurry ? "CASE WHEN a.is_expense AND s.amount > 0 THEN coalesce(sf.score, 0) ELSE 0 END" : "0") },
  { name: "journal_entry_material_value", expression: (ctx) => ON(`abs(s.amount) >= ${int(ctx.facts.materiality)}`) },
  {
    name: "journal_entry_suspicious_keyword",
    by: "memo",
    expression: (ctx) => {
      const match = wordsMatch("s.memo", ctx.setting<string[]>("journal_entry_suspicious_keyword", "keywords") ?? []);
      return match ? ON(match) : "0";
    },
  },
  { name: "journal_entry_start_of_year", by: "effective_date", expression: (ctx) => ON(`s.effective_date < ${ctx.periods.analysisStart("s.effective_date")} + ${int(ctx.setting("journal_entry_start_of_year", "days"))}`) },
  perDate("journal_entry_reporting_adjustment", (ctx) => ({
    value: `${ctx.periods.reportingEnd("s.effective_date")} + ${int(ctx.setting("journal_entry_reporting_adjustment", "graceDays"))}`,
    test: (value) => ON(`s.entered_date > ${value}`),
  })),
  {
    name: "journal_entry_complex_instrument",
    by: "memo",
    expression: (ctx) => {
      const match = wordsMatch("s.memo", ctx.setting<string[]>("journal_entry_complex_instrument", "keywords") ?? []);
      return match ? ON(match) : "0";
    },
  },
  { name: "journal_entry_two_digit_benford_v2", expression: (_ctx, j) => (j.benford ? "coalesce(sb.score, 0)" : "0") },
  { name: "prior_period_dollar_change", expression: (_ctx, j) => (j.trend ? "coalesce(st.dollar, 0)" : "0") },
  { name: "journal_entry_end_of_year", by: "effective_date", expression: (ctx) => ON(`s.effective_date > ${ctx.periods.analysisEnd("s.effective_date")} - ${int(ctx.setting("journal_entry_end_of_year", "days"))}`) },
  { name: "journal_entry_empty_text_field", by: "memo", expression: () => ON("s.memo IS NULL OR btrim(s.memo) = ''") },
  {
    name: "journal_entry_isolation_forest",
    expression: (ctx, j) => {
      const p = "journal_entry_isolation_forest";
      const lagMean = ctx.facts.lagMean;
      const lagSd = Number(ctx.facts.lagSd ?? 0);
      const features = [
        j.iso_user ? "(iu.account IS NOT NULL)::integer" : "0",
        j.iso_dow ? "(idw.account IS NOT NULL)::integer" : "0",
        j.amount ? `coalesce(sa.n >= 20 AND ${AMOUNT_Z} >= ${num(ctx.setting(p, "amountZ"))}, FALSE)::integer` : "0",
        lagMean != null && lagSd > 0 ? `coalesce(abs(s.lag - ${num(lagMean)}) / ${num(lagSd)} >= ${num(ctx.setting(p, "lagZ"))}, FALSE)::integer` : "0",
      ];
      return `least(10000, 2500 * (${features.join(" + ")}))`;
    },
  },
  {
    name: "journal_entry_flat_unusual_amount_v4",
    expression: (ctx, j) => {
      const p = "journal_entry_flat_unusual_amount_v4";
      if (!j.amount) return "0";
      return `coalesce(CASE WHEN sa.n >= ${int(ctx.setting(p, "minimumEntries"))} THEN ${ramp(AMOUNT_Z, Number(ctx.setting(p, "zFrom")), Number(ctx.setting(p, "zTo")))} END, 0)`;
    },
  },
  { name: "journal_entry_end_of_period", by: "effective_date", expression: (ctx) => ON(`s.effective_date > ${ctx.periods.reportingEnd("s.effective_date")} - ${int(ctx.setting("journal_entry_end_of_period", "days"))}`) },
  {
    name: "journal_entry_nfp_split_expense_multiple",
    expression: (ctx, j) =>
      j.split ? ON(`sp.account IS NOT NULL AND a.is_expense AND s.amount > 0 AND s.amount < ${int(ctx.setting("journal_entry_nfp_split_expense_multiple", "threshold"))}`) : "0",
  },
  { name: "journal_entry_nfp_fund_expense_flurry", expression: (_ctx, j) => (j.fund_flurry ? "CASE WHEN a.is_expense AND s.amount > 0 THEN coalesce(sff.score, 0) ELSE 0 END" : "0") },
];

/**
 * The base table's two partitions, by transaction key `tx` (the row number of a transaction's
 * first entry, numbered from 1 over the sources): the entries of the transactions below `split`
 * (and any without a key), then the rest. The transaction aggregate's halves read one each.
 */
export function baseHalves(plan: RunPlan, facts: RunFacts): { split: number; tables: [string, string] } {
  return { split: Math.ceil(Number(facts.entries ?? 0) / 2) + 1, tables: [`${plan.tables.base}_0`, `${plan.tables.base}_1`] };
}

/** Entry-level points planned and run in this result, with their `o<index>` column. */
export function entryPointColumns(plan: RunPlan): Array<{ name: string; column: string; index: number }> {
  return ENTRY_POINTS.filter((e) => plan.points.some((p) => p.definition.name === e.name && p.available)).map((e) => {
    const index = plan.point(e.name).index;
    return { name: e.name, column: `o${index}`, index };
  });
}

export const glEntriesStep: EngineStep = {
  name: "entries",
  points: ENTRY_POINTS.map((e) => e.name).filter((n) => !["group_by_trendshock", "prior_period_frequency", "prior_period_dollar_change"].includes(n)),
  cost: 6,
  async run({ pool, plan, pointsDone }) {
    const ctx = await glContext(pool, plan);
    // An empty statistic table is not joined: every expression reading it gives what its NULL
    // columns give (no finding), and a left join on a million entries still computes and hashes
    // each entry's key (the generated ledger's isolation forest tables are empty).
    const joins: Joins = {};
    for (const n of ["amount", "benford", "sos", "trend", "iso_user", "iso_dow", "flurry", "fund_flurry", "split"]) {
      const name = statisticTable(ctx, n);
      joins[n] = name && (await pool.query<{ rows: boolean }>(`SELECT EXISTS (SELECT FROM ${name}) AS rows`)).rows[0].rows ? name : null;
    }
    const joinSql = [
      ctx.accountJoin("s"),
      joins.amount && `LEFT JOIN ${joins.amount} sa ON sa.account = s.account`,
      joins.benford && `LEFT JOIN ${joins.benford} sb ON sb.d2 = s.d2`,
      joins.sos && `LEFT JOIN ${joins.sos} ss ON ss.account = s.account AND ss.d2 = s.d2`,
      joins.trend && `LEFT JOIN ${joins.trend} st ON st.account = s.account AND st.rp = s.rp`,
      joins.iso_user && `LEFT JOIN ${joins.iso_user} iu ON iu.account = s.account AND iu.user_id = s.user_id`,
      joins.iso_dow && `LEFT JOIN ${joins.iso_dow} idw ON idw.account = s.account AND idw.dow = s.dow`,
      joins.flurry && `LEFT JOIN ${joins.flurry} sf ON sf.bucket = (s.effective_date - date '2000-01-01') / ${int(Math.max(1, Number(ctx.setting("journal_entry_nfp_expense_flurry", "windowDays"))))}`,
      joins.fund_flurry &&
        `LEFT JOIN ${joins.fund_flurry} sff ON sff.fund_key = coalesce(s.fund_id, '') AND sff.bucket = (s.effective_date - date '2000-01-01') / ${int(Math.max(1, Number(ctx.setting("journal_entry_nfp_fund_expense_flurry", "windowDays"))))}`,
      joins.split && `LEFT JOIN ${joins.split} sp ON sp.account = s.account AND sp.user_key = coalesce(s.user_id, '') AND sp.effective_date = s.effective_date`,
    ]
      .filter(Boolean)
      .join("\n");
    const sources = plan.spec.sources;
    const offsets = sources.map((_s, k) => Number(ctx.facts[`offset_${k}`] ?? 0));
    const points = entryPointColumns(plan).map((p) => ({ ...p, point: ENTRY_POINTS.find((e) => e.name === p.name)! }));
    // The columns whose points are computed once per distinct value (fewValues).
    const byValue = new Set<string>();
    for (const by of new Set(points.flatMap((p) => (p.point.by ? [p.point.by] : [])))) if (await fewValues(pool, sources, by)) byValue.add(by);
    const own = (where: ((k: number) => string) | null) =>
      points.map(({ point, column }) => {
        // An entry without a value (not in the values' table) gets the expression itself.
        if (!where || !point.by || !byValue.has(point.by)) return `(${point.expression(ctx, joins)})::smallint AS ${ident(column)}`;
        const known = point.perDate ? point.perDate(ctx).test(`${point.by}_values.${ident(column)}`) : `${point.by}_values.${ident(column)}`;
        const value = `CASE WHEN s.${point.by} IS NULL THEN ${point.expression(ctx, joins)} ELSE ${known} END`;
        return `(${value})::smallint AS ${ident(column)}`;
      });
    // Each lane's values, from the same pages as its entries (so every value of its entries is
    // there), the columns' distinct values in one pass (a hash table per grouping set).
    const valueTables = (where: (k: number) => string) => {
      if (byValue.size === 0) return [];
      const columns = [...byValue];
      const read = sourcesSql(sources, GL_COLUMNS.filter((c) => byValue.has(c.name)), offsets, { where });
      const all = `entry_values AS MATERIALIZED (SELECT ${columns.join(", ")}, ${columns.map((c) => `GROUPING(${c}) AS g_${c}`).join(", ")} FROM (${read}) v GROUP BY GROUPING SETS (${columns.map((c) => `(${c})`).join(", ")}))`;
      return [
        all,
        ...columns.map((by) => {
          const values = points.filter((p) => p.point.by === by).map(({ point, column }) => (point.perDate ? `${point.perDate(ctx).value} AS ${ident(column)}` : `(${point.expression(ctx, joins)})::smallint AS ${ident(column)}`));
          const distinct = `SELECT ${by} FROM entry_values WHERE g_${by} = 0 AND ${by} IS NOT NULL`;
          const derived = by === "effective_date" ? `SELECT d.effective_date, ${ctx.periods.reportingStart("d.effective_date")} AS rp FROM (${distinct}) d` : distinct;
          return `${by}_values AS MATERIALIZED (SELECT s.${by}, ${values.join(", ")} FROM (${derived}) s)`;
        }),
      ];
    };
    const fallback = riskGroupOf(plan.spec.riskGroups, new Set());
    const extra = additionalColumns(plan.spec.sources).map((x) => `s.${ident(x)}`);
    // Fixed-width columns first, then the texts: the later steps read the base table seven times
    // (transaction aggregate halves, score changes, flow sides, typeahead, entries table), and each
    // pass reads its numbers at fixed offsets instead of walking every text before them. The
    // sources' position and line number are read by no step and are not kept.
    const select = (entries: string, where: ((k: number) => string) | null = null) => {
      const values = where ? valueTables(where) : [];
      return `${values.length > 0 ? `WITH ${values.join(",\n")}` : ""}
      SELECT s.row_no, s.tx, s.debit, s.credit, s.amount, s.effective_date, s.entered_date, s.rp,
             coalesce(a.risk_group, ${fallback})::smallint AS risk_group${own(where).map((o) => `,\n             ${o}`).join("")},
             s.account, s.txid, s.type, s.user_id, s.fund_id, s.memo, s.account_description, s.approved_by, s.currency${extra.map((x) => `, ${x}`).join("")}
        FROM (SELECT s.*, ${FIRST_TWO_DIGITS("s.amount")} AS d2, ${ctx.periods.reportingStart("s.effective_date")} AS rp,
                     CASE WHEN isfinite(s.effective_date) THEN (s.effective_date - date '4714-11-24 BC') % 7 + 1 END AS dow, (s.entered_date - s.effective_date) AS lag
                FROM (${entries}) s OFFSET 0) s
        ${joinSql}${values.length > 0 ? [...byValue].map((by) => `\n        LEFT JOIN ${by}_values ON ${by}_values.${by} = s.${by}`).join("") : ""}`;
    };
    // The base is partitioned by transaction half (baseHalves), so each of the transaction
    // aggregate's halves reads its own partition only; a partitioned parent reads as one table for
    // the other steps. It is filled by two INSERTs side by side, each over half of every source's
    // pages (tuple routing sends each entry to its transaction's half): one process per core, for
    // about the CPU the CREATE TABLE AS with two parallel workers cost. Unlogged partitions take
    // both INSERTs without WAL.
    const base = plan.tables.base;
    const halves = baseHalves(plan, ctx.facts);
    await engineTransaction(pool, async (client) => {
      await client.query(`DROP TABLE IF EXISTS ${[base, ...halves.tables].map(table).join(", ")}`);
      // The first partition from the SELECT itself (its columns and types), then the parent like it.
      await client.query(`CREATE UNLOGGED TABLE ${table(halves.tables[0])} ${WRITE_ONCE} AS ${select(ctx.sourcesWithTx)} WITH NO DATA`);
      await client.query(`CREATE TABLE ${table(base)} (LIKE ${table(halves.tables[0])}) PARTITION BY RANGE (tx)`);
      // The default partition holds the first half and any entry without a transaction key.
      await client.query(`ALTER TABLE ${table(base)} ATTACH PARTITION ${table(halves.tables[0])} DEFAULT`);
      await client.query(`CREATE UNLOGGED TABLE ${table(halves.tables[1])} PARTITION OF ${table(base)} FOR VALUES FROM (${int(halves.split)}) TO (MAXVALUE) ${WRITE_ONCE}`);
    });
    await sideBySide(
      2,
      (await sourcePageHalves(pool, sources)).map((where) => () =>
        engineTransaction(pool, async (client) => {
          // Hash joins: on a million entries the planner sorted them all for merge joins against the
          // small statistic tables (empty ones are estimated at one row).
          await client.query("SET LOCAL enable_mergejoin = off");
          await client.query(`INSERT INTO ${table(base)} ${select(sourcesSql(sources, GL_COLUMNS, offsets, { withTx: true, where }), where)}`);
        }),
      ),
    );
    // With the engine's small sample (engineTransaction): the parent's and each partition's statistics.
    await engineTransaction(pool, (client) => client.query(`ANALYZE ${table(base)}`));
    pointsDone(this.points);
  },
};

/**
 * Whether a text column of the sources holds few distinct values (at most a tenth of the entries,
 * by the sources' statistics), so its points are cheaper computed once per value and joined back
 * by hash than for every entry. Without statistics, no.
 */
async function fewValues(pool: pg.Pool, sources: readonly EngineSource[], name: string): Promise<boolean> {
  const column = GL_COLUMNS.find((c) => c.name === name)!;
  let entries = 0;
  let values = 0;
  for (const source of sources) {
    const from = column.from.find((f) => source.columns.includes(f));
    if (!from) continue;
    const [schema, relation] = source.entries.split(".");
    const { rows } = await pool.query<{ entries: number; n_distinct: number | null }>(
      `SELECT c.reltuples::float8 AS entries, (SELECT n_distinct::float8 FROM pg_stats WHERE schemaname = $1 AND tablename = $2 AND attname = $3) AS n_distinct
         FROM pg_class c WHERE c.oid = to_regclass($4)`,
      [schema, relation, from, source.entries],
    );
    const row = rows[0];
    if (!row || row.n_distinct == null || !(row.entries > 0)) return false;
    entries += row.entries;
    values += row.n_distinct >= 0 ? row.n_distinct : -row.n_distinct * row.entries;
  }
  return entries > 0 && values <= entries / 10;
}
