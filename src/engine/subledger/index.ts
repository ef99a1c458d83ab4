import type pg from "pg";
import { createAccountsTable, riskGroupOf } from "../accounts.js";
import { col, type ResultColumn } from "../columns.js";
import { periodExpressions } from "../periods.js";
import { markRareFlags, summarize, type PublishedTable, type ResultSummary } from "../publish.js";
import type { PlannedPoint, RunPlan } from "../run-plan.js";
import { byGroup, categoryLiteral, enabledGroups, failedExpression, riskLevel, weightedScore } from "../scoring.js";
import { additionalColumns, mappedColumns, rowOffsets, sourcesSql, SUBLEDGER_COLUMNS } from "../source.js";
import { createTableAs, engineTransaction, readFacts, writeFacts, type EngineStep, type RunFacts } from "../steps.js";
import { ident, int, num, ramp, table, text, textArray, wordsMatch } from "../sql.js";
import { excessScore, FIRST_TWO_DIGITS } from "../gl/context.js";
import { openItemsLayout, openItemsLogicalName, openItemsStep } from "./open-items.js";

/**
 * Accounts payable and receivable: every control point scores detail entries (control-points.md),
 * so a run is statistics, then one table of scored entries (`ap_detail_entries` /
 * `ar_detail_entries`). Amounts: positive for invoices (what is owed grows), negative for payments
 * and credit notes.
 */
async function subledgerContext(pool: pg.Pool | pg.PoolClient, plan: RunPlan) {
  const facts = await readFacts(pool, plan);
  const offsets = plan.spec.sources.map((_s, k) => Number(facts[`offset_${k}`] ?? 0));
  const side = plan.spec.family === "AP" ? "ap" : "ar";
  const setting = <T = unknown>(key: string, name: string) => plan.setting<T>(`${side}_entry_${key}`, name);
  return {
    plan,
    facts,
    side,
    party: plan.spec.family === "AP" ? "vendor" : "customer",
    mapped: mappedColumns(plan.spec.sources, SUBLEDGER_COLUMNS),
    periods: periodExpressions(plan.spec),
    sources: sourcesSql(plan.spec.sources, SUBLEDGER_COLUMNS, offsets),
    accounts: table(plan.tables.accounts),
    name: (key: string) => `${side}_entry_${key}`,
    runs: (key: string) => plan.points.some((p) => p.definition.name === `${side}_entry_${key}` && p.available),
    setting,
  };
}

type Ctx = Awaited<ReturnType<typeof subledgerContext>>;

const prepare: EngineStep = {
  name: "prepare",
  points: [],
  cost: 1,
  async run({ pool, plan }) {
    await engineTransaction(pool, async (client) => {
      const offsets = await rowOffsets(client, plan.spec.sources);
      await writeFacts(client, plan, Object.fromEntries(offsets.map((o, k) => [`offset_${k}`, o])));
      await createAccountsTable(client, plan, null);
      const ctx = await subledgerContext(client, plan);
      const configured = ctx.setting<number | null>("high_monetary_value", "threshold");
      let threshold = configured;
      if (threshold == null) {
        const p = await client.query<{ v: string | null }>(`WITH s AS (${ctx.sources}) SELECT percentile_disc($1::float8) WITHIN GROUP (ORDER BY abs(s.amount)) AS v FROM s WHERE s.amount <> 0`, [
          Number(ctx.setting("high_monetary_value", "percentile") ?? 0.995),
        ]);
        threshold = Math.max(1, Number(p.rows[0].v ?? 1));
      }
      const facts: RunFacts = { highValueThreshold: threshold, highValueThresholdSource: configured == null ? "percentile" : "setting" };
      await writeFacts(client, plan, facts);
    });
  },
};

interface Statistic {
  key: string;
  points: string[];
  sql(ctx: Ctx): string | null;
}

const STATISTICS: Statistic[] = [
  {
    key: "amount",
    points: ["unusual_amount_by_vendor", "unusual_amount_by_customer"],
    sql: (ctx) => `WITH s AS (${ctx.sources})
      SELECT s.party_id, count(*)::integer AS n, avg(ln(abs(s.amount)::float8)) AS mean, stddev_samp(ln(abs(s.amount)::float8)) AS sd
        FROM s WHERE s.amount <> 0 GROUP BY s.party_id`,
  },
  {
    key: "benford",
    points: ["two_digit_benford"],
    sql: (ctx) => {
      const ratio = Number(ctx.setting("two_digit_benford", "excessRatio"));
      return `WITH s AS (${ctx.sources}),
        c AS (SELECT ${FIRST_TWO_DIGITS("s.amount")} AS d2, count(*)::float8 AS n FROM s WHERE abs(s.amount) >= 1000 GROUP BY 1),
        t AS (SELECT sum(n) AS total FROM c),
        x AS (SELECT c.d2, c.n, t.total, log(1 + 1.0 / c.d2) AS p FROM c, t)
        SELECT d2, n::integer AS observed, round(total * p)::integer AS expected, ${excessScore("n / (total * p)", ratio)}::integer AS score FROM x
         WHERE total >= ${int(ctx.setting("two_digit_benford", "minimumEntries"))} AND n > total * p
           AND (n - total * p) / sqrt(total * p * (1 - p)) >= ${num(ctx.setting("two_digit_benford", "minimumZ"))} AND ${excessScore("n / (total * p)", ratio)} > 0`;
    },
  },
  {
    // Entries per party and day, against the party's other active days (leave one out).
    key: "flurry",
    points: ["activity_flurry"],
    sql: (ctx) => {
      const z = `(d.n - (g.total - d.n) / (g.days - 1)) / nullif(sqrt(greatest((g.sumsq - d.n * d.n - (g.total - d.n) ^ 2 / (g.days - 1)) / greatest(g.days - 2, 1), 0)), 0)`;
      return `WITH s AS (${ctx.sources}),
        d AS (SELECT party_id, effective_date, count(*)::float8 AS n FROM s GROUP BY 1, 2),
        g AS (SELECT party_id, count(*)::float8 AS days, sum(n) AS total, sum(n * n) AS sumsq FROM d GROUP BY 1 HAVING count(*) >= 3),
        x AS (SELECT d.party_id, d.effective_date, d.n::integer AS entries, coalesce(${ramp(z, Number(ctx.setting("activity_flurry", "zFrom")), Number(ctx.setting("activity_flurry", "zTo")))}, 0)::integer AS score
                FROM d JOIN g USING (party_id) WHERE d.n >= ${int(ctx.setting("activity_flurry", "minimumEntries"))})
        SELECT * FROM x WHERE score > 0`;
    },
  },
  {
    // Per document (party, invoice id): amounts invoiced, paid by the last period end, first date.
    key: "documents",
    points: ["duplicate_document", "old_unpaid_invoice"],
    sql: (ctx) => {
      const end = ctx.periods.lastEnd;
      return `WITH s AS (${ctx.sources})
        SELECT s.party_id, lower(s.invoice_id) AS document, count(*) FILTER (WHERE s.amount > 0)::integer AS invoices,
               count(DISTINCT s.amount) FILTER (WHERE s.amount > 0)::integer AS invoice_amounts,
               coalesce(sum(s.amount) FILTER (WHERE s.amount > 0), 0)::bigint AS invoiced,
               coalesce(sum(-s.amount) FILTER (WHERE s.amount < 0 ${end ? `AND s.effective_date <= date '${end}'` : ""}), 0)::bigint AS paid,
               min(coalesce(s.invoice_date, s.effective_date)) FILTER (WHERE s.amount > 0) AS first_date
          FROM s WHERE s.invoice_id IS NOT NULL GROUP BY 1, 2`;
    },
  },
  {
    key: "party_list",
    points: ["vendor_not_in_vendor_list", "customer_not_in_customer_list"],
    sql: (ctx) => {
      const lists = ctx.plan.spec.partyLists
        .map((l) => {
          const column = l.columns.find((c) => c === "vendor_id" || c === "customer_id");
          return column ? `SELECT DISTINCT lower(${ident(column)}) AS party FROM ${table(l.entries)}` : null;
        })
        .filter(Boolean);
      return lists.length === 0 ? null : `SELECT DISTINCT party FROM (${lists.join(" UNION ALL ")}) l WHERE party IS NOT NULL`;
    },
  },
  {
    key: "opening",
    points: ["vendor_debit_balance"],
    sql: (ctx) => {
      const parts = ctx.plan.spec.openingBalances
        .map((l) => {
          const party = l.columns.find((c) => c === "vendor_id" || c === "customer_id");
          return party && l.columns.includes("opening_balance") ? `SELECT ${ident(party)} AS party_id, opening_balance FROM ${table(l.entries)}` : null;
        })
        .filter(Boolean);
      return parts.length === 0 ? null : `SELECT party_id, sum(opening_balance)::bigint AS opening FROM (${parts.join(" UNION ALL ")}) o GROUP BY party_id`;
    },
  },
];

const statisticsStep: EngineStep = {
  name: "statistics",
  points: [],
  cost: 2,
  async run({ pool, plan, pointsDone, signal }) {
    const ctx = await subledgerContext(pool, plan);
    for (const statistic of STATISTICS) {
      signal.throwIfAborted();
      const sql = statistic.points.some((k) => ctx.runs(k)) || statistic.key === "amount" ? statistic.sql(ctx) : null;
      await engineTransaction(pool, async (client) => {
        if (sql) await createTableAs(client, plan.tables.stat(statistic.key), sql);
        else await client.query(`DROP TABLE IF EXISTS ${table(plan.tables.stat(statistic.key))}`);
      });
      pointsDone(statistic.points.map((k) => ctx.name(k)));
    }
  },
};

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
/** Month names and their usual abbreviations, as whole words (so "market" or "maybe" name no month). */
const MONTH_WORDS = "(jan|january|feb|february|mar|march|apr|april|may|jun|june|jul|july|aug|august|sep|sept|september|oct|october|nov|november|dec|december)";
const ON = (condition: string) => `CASE WHEN ${condition} THEN 10000 ELSE 0 END`;

/** The score expression of each control point (alias `s`: the entry with `d2`, `memo_month`, `running` added). */
function scoreExpressions(ctx: Ctx, has: (key: string) => boolean): Record<string, string> {
  const end = ctx.periods.analysisEnd("s.effective_date");
  const paymentPattern = wordsMatch("s.type", ctx.setting<string[]>("cash_expenditure", "paymentTypes") ?? []);
  const manual = wordsMatch("s.type", ctx.setting<string[]>("manual_entry", "values") ?? []);
  const keywords = wordsMatch("s.memo", ctx.setting<string[]>("suspicious_keyword", "keywords") ?? []);
  const patterns = (ctx.setting<string[]>("last_3_digits", "patterns") ?? []).filter((p) => /^\d{3}$/.test(p));
  const related = (ctx.setting<string[]>("invoice_from_related_party", "relatedParties") ?? ctx.setting<string[]>("invoice_to_related_party", "relatedParties") ?? []).map((r) => r.toLowerCase());
  const relatedKey = ctx.side === "ap" ? "invoice_from_related_party" : "invoice_to_related_party";
  const unusualKey = ctx.side === "ap" ? "unusual_amount_by_vendor" : "unusual_amount_by_customer";
  const listKey = ctx.side === "ap" ? "vendor_not_in_vendor_list" : "customer_not_in_customer_list";
  const z = "(CASE WHEN s.amount <> 0 AND sa.sd > 0 THEN abs(ln(abs(s.amount)::float8) - sa.mean) / sa.sd END)";
  const fullDays = Math.max(1, Number(ctx.setting("invoice_created_after_effective_date", "fullScoreDays")));
  return {
    two_digit_benford: has("benford") ? "coalesce(sb.score, 0)" : "0",
    activity_flurry: has("flurry") ? "coalesce(sf.score, 0)" : "0",
    cash_expenditure: ctx.mapped.has("type") && paymentPattern ? ON(paymentPattern) : ON("s.amount < 0"),
    vendor_debit_balance: ON("s.running < 0"),
    duplicate_document: has("documents") ? ON("s.amount > 0 AND sd.invoices >= 2 AND sd.invoice_amounts < sd.invoices") : "0",
    empty_text_field: ON("s.memo IS NULL OR btrim(s.memo) = ''"),
    end_of_analysis_period: ON(`s.effective_date > ${end} - ${int(ctx.setting("end_of_analysis_period", "days"))}`),
    end_of_reporting_period: ON(`s.effective_date > ${ctx.periods.reportingEnd("s.effective_date")} - ${int(ctx.setting("end_of_reporting_period", "days"))}`),
    high_monetary_value: ON(`abs(s.amount) >= ${int(ctx.facts.highValueThreshold)}`),
    invoice_created_after_effective_date: `CASE WHEN s.invoice_date > s.effective_date THEN least(10000, (s.invoice_date - s.effective_date) * 10000 / ${fullDays}) ELSE 0 END`,
    [relatedKey]: ON(
      `${related.length > 0 ? `lower(s.party_id) = ANY(${textArray(related)}) OR lower(s.party_name) = ANY(${textArray(related)}) OR ` : ""}coalesce(a.is_related, FALSE)`,
    ),
    invoice_out_of_order: ON("s.amount > 0 AND s.invoice_number < s.previous_number"),
    last_3_digits:
      patterns.length === 0
        ? "0"
        : ON(`abs(s.amount) >= ${int(ctx.setting("last_3_digits", "minimumAmount"))} AND abs(s.amount) % 100 = 0 AND lpad((abs(s.amount) / 100 % 1000)::text, 3, '0') = ANY(${textArray(patterns)})`),
    manual_entry: manual ? ON(manual) : "0",
    memo_with_different_period: `CASE WHEN s.memo_month IS NULL THEN 0 WHEN abs(s.memo_month - (extract(year FROM s.effective_date)::integer * 12 + extract(month FROM s.effective_date)::integer)) = 0 THEN 0
      WHEN abs(s.memo_month - (extract(year FROM s.effective_date)::integer * 12 + extract(month FROM s.effective_date)::integer)) = 1 THEN 5000 ELSE 10000 END`,
    old_unpaid_invoice:
      has("documents") && ctx.periods.lastEnd
        ? ON(`s.amount > 0 AND sd.invoiced > sd.paid AND date '${ctx.periods.lastEnd}' - sd.first_date > ${int(ctx.setting("old_unpaid_invoice", "ageDays"))}`)
        : "0",
    suspicious_keyword: keywords ? ON(keywords) : "0",
    [unusualKey]: `coalesce(CASE WHEN sa.n >= ${int(ctx.setting(unusualKey, "minimumEntries"))} THEN ${ramp(z, Number(ctx.setting(unusualKey, "zFrom")), Number(ctx.setting(unusualKey, "zTo")))} END, 0)`,
    [listKey]: has("party_list") ? ON("pl.party IS NULL AND s.party_id IS NOT NULL") : "0",
  };
}

function entriesLayout(ctx: Ctx): Array<{ column: ResultColumn; expression: string }> {
  const plan = ctx.plan;
  const p = ctx.party;
  const out: Array<{ column: ResultColumn; expression: string }> = [
    { column: col.rowid(), expression: "x.row_no" },
    { column: col.key("txid", { platformField: "txid" }), expression: "x.txid" },
    { column: col.key("invoice_id", { platformField: "invoice_id" }), expression: "x.invoice_id" },
    { column: col.key(`${p}_id`, { platformField: `${p}_id` }), expression: "x.party_id" },
    { column: col.text(`${p}_name`, { platformField: `${p}_name` }), expression: "x.party_name" },
    { column: col.key("entry_type", { platformField: "entry_type" }), expression: "x.type" },
    { column: col.date("invoice_date", { platformField: "invoice_date" }), expression: "x.invoice_date" },
    { column: col.date("effective_date", { platformField: "effective_date" }), expression: "x.effective_date" },
    { column: col.date("due_date", { platformField: "due_date" }), expression: "x.due_date" },
    { column: col.money("amount", { platformField: "amount" }), expression: "x.amount" },
    { column: col.key("account", { platformField: "account" }), expression: "x.account" },
    { column: col.text("memo", { platformField: "memo" }), expression: "x.memo" },
    { column: col.key("entered_by", { platformField: "entered_by" }), expression: "x.user_id" },
    { column: col.key("currency", { platformField: "currency" }), expression: "x.currency" },
    { column: col.score("risk", { indexed: true }), expression: byGroup(plan, "x.risk_group", (i) => `x.${ident(`risk_g${i}`)}`) },
    {
      column: col.level("risk_level"),
      expression: byGroup(plan, "x.risk_group", (i, g) => riskLevel(g, `x.${ident(`risk_g${i}`)}`), "'UNSCORED'"),
    },
    { column: col.level("riskGroup"), expression: byGroup(plan, "x.risk_group", (_i, g) => categoryLiteral(g)) },
  ];
  const score = (point: PlannedPoint) => (point.available ? `x.${ident(`s${point.index}`)}` : "0");
  for (const point of plan.points) out.push({ column: col.flag(`cp_failed_${point.definition.name}`), expression: failedExpression(plan, point, score(point)) });
  for (const point of plan.points) out.push({ column: col.score(`cp_score_${point.definition.name}`), expression: `${score(point)}::smallint` });
  out.push({ column: col.list("account_hierarchy_codes", { indexed: true }), expression: "coalesce(x.codes, '{}')" });
  for (const extra of additionalColumns(plan.spec.sources)) out.push({ column: { ...col.text(extra), originalName: extra.slice(2) }, expression: `x.${ident(extra)}` });
  out.push({ column: col.flags("cp_failed", Object.fromEntries(plan.points.map((pt) => [pt.definition.name, `cp_failed_${pt.definition.name}`]))), expression: "" });
  return out;
}

const entriesStep: EngineStep = {
  name: "entries",
  points: [],
  cost: 4,
  async run({ pool, plan, pointsDone }) {
    const ctx = await subledgerContext(pool, plan);
    const exists = async (key: string) => (await pool.query(`SELECT to_regclass($1) IS NOT NULL AS ok`, [plan.tables.stat(key)])).rows[0].ok as boolean;
    const present = new Set<string>();
    for (const s of STATISTICS) if (await exists(s.key)) present.add(s.key);
    const has = (key: string) => present.has(key);
    const expressions = scoreExpressions(ctx, has);
    const scores = plan.points.filter((pt) => pt.available).map((pt) => `(${expressions[pt.definition.name.slice(`${ctx.side}_entry_`.length)] ?? "0"})::smallint AS ${ident(`s${pt.index}`)}`);
    const groups = enabledGroups(plan);
    const fallback = riskGroupOf(plan.spec.riskGroups, new Set());
    const joins = [
      `LEFT JOIN ${ctx.accounts} a ON a.account = s.account AND a.fund_key = ''`,
      has("amount") ? `LEFT JOIN ${table(plan.tables.stat("amount"))} sa ON sa.party_id = s.party_id` : "",
      has("benford") ? `LEFT JOIN ${table(plan.tables.stat("benford"))} sb ON sb.d2 = s.d2` : "",
      has("flurry") ? `LEFT JOIN ${table(plan.tables.stat("flurry"))} sf ON sf.party_id = s.party_id AND sf.effective_date = s.effective_date` : "",
      has("documents") ? `LEFT JOIN ${table(plan.tables.stat("documents"))} sd ON sd.party_id = s.party_id AND sd.document = lower(s.invoice_id)` : "",
      has("party_list") ? `LEFT JOIN ${table(plan.tables.stat("party_list"))} pl ON pl.party = lower(s.party_id)` : "",
    ].join("\n");
    const opening = has("opening") ? "coalesce(o.opening, 0)" : "0";
    const openingJoin = has("opening") ? `LEFT JOIN ${table(plan.tables.stat("opening"))} o ON o.party_id = e.party_id` : "";
    const enriched = `SELECT e.*, ${FIRST_TWO_DIGITS("e.amount")} AS d2,
         ${opening} + sum(e.amount) OVER (PARTITION BY e.party_id ORDER BY e.effective_date, e.row_no) AS running,
         substring(e.invoice_id FROM '([0-9]{1,18})$')::numeric AS invoice_number,
         max(CASE WHEN e.amount > 0 THEN substring(e.invoice_id FROM '([0-9]{1,18})$')::numeric END)
           OVER (PARTITION BY e.party_id ORDER BY coalesce(e.invoice_date, e.effective_date), e.row_no ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS previous_number,
         CASE WHEN lower(e.memo) ~ '\\m${MONTH_WORDS}\\M' THEN
           coalesce(substring(e.memo FROM '\\m((?:19|20)[0-9]{2})\\M')::integer, extract(year FROM e.effective_date)::integer) * 12
           + array_position(${textArray(MONTHS)}, left(substring(lower(e.memo) FROM '\\m${MONTH_WORDS}\\M'), 3)) END AS memo_month
       FROM (${ctx.sources}) e ${openingJoin}`;
    const inner = `SELECT s.*, a.codes, coalesce(a.risk_group, ${fallback}) AS risk_group${scores.map((sc) => `, ${sc}`).join("")} FROM (${enriched}) s ${joins}`;
    const grouped = `SELECT x.*${groups.map(({ group, index }) => `, ${weightedScore(plan, group, (pt) => (pt.available ? `x.${ident(`s${pt.index}`)}` : "0"))} AS ${ident(`risk_g${index}`)}`).join("")} FROM (${inner}) x`;
    const layout = entriesLayout(ctx).filter((l) => l.column.type !== "BOOLEAN_FLAGS");
    const select = `SELECT ${layout.map((l) => `${l.expression} AS ${ident(l.column.sql)}`).join(", ")} FROM (${grouped}) x`;
    await engineTransaction(pool, (client) => createTableAs(client, plan.tables.lines, select, { analyze: false }));
    pointsDone(plan.points.map((pt) => pt.definition.name));
  },
};

export const SUBLEDGER_STEPS: EngineStep[] = [prepare, statisticsStep, entriesStep, openItemsStep];

export async function subledgerPublication(pool: pg.Pool, plan: RunPlan): Promise<{ tables: PublishedTable[]; summary: ResultSummary }> {
  const ctx = await subledgerContext(pool, plan);
  const summary = await summarize(pool, plan, { entries: plan.tables.lines, transactions: null, flows: null, ownMask: false });
  const columns = entriesLayout(ctx).map((l) => l.column);
  return {
    summary,
    tables: [
      {
        key: "lines",
        logicalName: plan.spec.family === "AP" ? "ap_detail_entries" : "ar_detail_entries",
        type: "entries",
        apiStability: "STABLE",
        table: plan.tables.lines,
        columns: markRareFlags(columns, summary, summary.entries.total, "entries"),
        rowCount: summary.entries.total,
      },
      {
        key: "open",
        logicalName: openItemsLogicalName(plan),
        type: "entries",
        apiStability: "STABLE",
        table: plan.tables.open,
        columns: openItemsLayout(plan),
        rowCount: Number((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table(plan.tables.open)}`)).rows[0].n),
      },
    ],
  };
}
