import type pg from "pg";
import { EXPORT_TAGS, riskGroupOf } from "../accounts.js";
import { col, type ResultColumn } from "../columns.js";
import type { PlannedPoint, RunPlan } from "../run-plan.js";
import { byGroup, categoryLiteral, enabledGroups, failedExpression, riskLevel, weightedSum } from "../scoring.js";
import { additionalColumns } from "../source.js";
import { createTableAs, engineTransaction, type EngineStep } from "../steps.js";
import { ident, int, num, table, textArray } from "../sql.js";
import { glContext, type GlContext } from "./context.js";
import { entryPointColumns } from "./entries.js";
import { flowPoints } from "./flows.js";
import { hierarchyCodeList, pointTable, transactionPointNames } from "./transactions.js";

/** A published column and the expression that fills it. */
export interface LaidOut {
  column: ResultColumn;
  expression: string;
}

/** The score of a control point for a transaction (alias `x`: the aggregate with its findings joined). */
function transactionScore(plan: RunPlan, point: PlannedPoint): string {
  return point.available ? `x.${ident(`s${point.index}`)}` : "0";
}

/**
 * The transaction table, in the column order of the platform's `gl_journal_tx` export
 * (control-points.md): txid ... risk, cp_failed per control point, unknown_flow, cp_score per
 * control point, bs_delta, is_delta, the account tag effects, account_hierarchy_codes. Columns of
 * our own follow, filter-only (not in default exports): rowid, risk_level, flow_type, the tag
 * effects as lists, and the `cp_failed` flags.
 */
export function transactionLayout(plan: RunPlan, _unused?: string): LaidOut[] {
  const general = riskGroupOf(plan.spec.riskGroups, new Set());
  const generalGroup = general >= 0 ? plan.spec.riskGroups[general] : null;
  const risk = generalGroup ? `x.${ident(`risk_g${general}`)}` : "NULL::integer";
  const out: LaidOut[] = [
    { column: col.key("txid", { platformField: "txid", orderIndexed: true }), expression: "x.txid" },
    { column: col.date("effective_date", { platformField: "effective_date" }), expression: "x.effective_date" },
    { column: col.money("debit", { platformField: "debit" }), expression: "x.debit" },
    { column: col.money("credit", { platformField: "credit" }), expression: "x.credit" },
    { column: col.count("entries_count"), expression: "x.entries_count" },
    { column: col.money("monetary_value"), expression: "greatest(x.debit, x.credit)" },
    { column: col.text("transaction"), expression: `x."transaction"` },
    { column: col.list("accounts", { indexed: true }), expression: "coalesce(x.accounts, '{}')" },
    { column: col.date("entered_date", { platformField: "entry_date" }), expression: "x.entered_date" },
    { column: col.key("type", { platformField: "source" }), expression: "x.type" },
    { column: col.key("user_id", { platformField: "entered_by" }), expression: "x.user_id" },
    { column: col.score("risk", { indexed: true }), expression: risk },
  ];
  for (const p of plan.points) out.push({ column: col.flag(`cp_failed_${p.definition.name}`), expression: failedExpression(plan, p, transactionScore(plan, p)) });
  out.push({ column: col.flag("unknown_flow"), expression: "coalesce(x.has_unknown_flow, FALSE)" });
  for (const p of plan.points) out.push({ column: col.score(`cp_score_${p.definition.name}`), expression: `${transactionScore(plan, p)}::smallint` });
  out.push({ column: col.money("bs_delta"), expression: "x.bs_delta" }, { column: col.money("is_delta"), expression: "x.is_delta" });
  EXPORT_TAGS.forEach((tag, i) => out.push({ column: col.flag(`account_tags_increasing_${tag}`), expression: `(x.increasing_mask & ${1 << i}) <> 0` }));
  EXPORT_TAGS.forEach((tag, i) => out.push({ column: col.flag(`account_tags_decreasing_${tag}`), expression: `(x.decreasing_mask & ${1 << i}) <> 0` }));
  out.push({
    column: col.list("account_hierarchy_codes", { indexed: true }),
    expression: "coalesce(x.hierarchy_codes, '{}')",
  });
  // Ours, filter-only.
  out.push(
    { column: col.rowid({ filterOnly: true }), expression: "x.tx" },
    { column: col.level("risk_level", { filterOnly: true }), expression: generalGroup ? riskLevel(generalGroup, risk) : "'UNSCORED'" },
    { column: col.level("flow_type", { filterOnly: true }), expression: "CASE WHEN x.complex_flow THEN 'COMPLEX' ELSE 'SIMPLE' END" },
    { column: col.list("account_tags_increasing", { filterOnly: true, storedLowerCase: true }), expression: tagList("x.increasing_mask") },
    { column: col.list("account_tags_decreasing", { filterOnly: true, storedLowerCase: true }), expression: tagList("x.decreasing_mask") },
    { column: col.flags("cp_failed", Object.fromEntries(plan.points.map((p) => [p.definition.name, `cp_failed_${p.definition.name}`]))), expression: "" },
  );
  return out;
}

function tagList(mask: string): string {
  return `array_remove(ARRAY[${EXPORT_TAGS.map((tag, i) => `CASE WHEN (${mask} & ${1 << i}) <> 0 THEN '${tag}' END`).join(", ")}], NULL)`;
}

/**
 * The entries table "in the same spirit": the entry's fields (the platform's export names), its
 * risk in its own risk group and the transaction's control point columns it inherits (cp_failed
 * per point, unknown_flow, cp_score per point), materiality, its account's classification, then
 * the file's additional columns.
 */
export function linesLayout(ctx: GlContext): LaidOut[] {
  const plan = ctx.plan;
  const materiality = Number(ctx.facts.materiality ?? 1);
  const out: LaidOut[] = [
    { column: col.rowid(), expression: "b.row_no" },
    { column: col.key("txid", { platformField: "txid" }), expression: "b.txid" },
    { column: col.date("effective_date", { platformField: "effective_date" }), expression: "b.effective_date" },
    { column: col.date("entered_date", { platformField: "entry_date" }), expression: "b.entered_date" },
    { column: col.key("account", { platformField: "account" }), expression: "b.account" },
    { column: col.text("account_description", { platformField: "account_description" }), expression: "b.account_description" },
    { column: col.money("debit", { platformField: "debit" }), expression: "b.debit" },
    { column: col.money("credit", { platformField: "credit" }), expression: "b.credit" },
    { column: col.money("amount", { platformField: "amount" }), expression: "b.amount" },
    { column: col.text("memo", { platformField: "memo" }), expression: "b.memo" },
    { column: col.key("type", { platformField: "source" }), expression: "b.type" },
    { column: col.key("user_id", { platformField: "entered_by" }), expression: "b.user_id" },
    { column: col.key("approved_by", { platformField: "approved_by" }), expression: "b.approved_by" },
    { column: col.key("currency", { platformField: "currency" }), expression: "b.currency" },
  ];
  if (ctx.mapped.has("fund_id")) out.push({ column: col.key("fund_id", { platformField: "fund_id" }), expression: "b.fund_id" });
  out.push(
    { column: col.score("risk", { indexed: true }), expression: byGroup(plan, "b.risk_group", (i) => `t.${ident(`risk_g${i}`)}`) },
    { column: col.level("risk_level"), expression: byGroup(plan, "b.risk_group", (i) => `t.${ident(`level_g${i}`)}`, "'UNSCORED'") },
    { column: col.level("riskGroup"), expression: byGroup(plan, "b.risk_group", (_i, g) => categoryLiteral(g)) },
  );
  for (const p of plan.points) out.push({ column: col.flag(`cp_failed_${p.definition.name}`), expression: `t.${ident(`cp_failed_${p.definition.name}`)}` });
  out.push({ column: col.flag("unknown_flow"), expression: "t.unknown_flow" });
  for (const p of plan.points) out.push({ column: col.score(`cp_score_${p.definition.name}`), expression: `t.${ident(`cp_score_${p.definition.name}`)}` });
  out.push(
    { column: col.number("materiality"), expression: materialityShare("b.amount", materiality) },
    // a.scoping: per account, from the accounts join of glScoresStep (accountScoping).
    { column: col.level("accountScoping"), expression: "CASE WHEN a.class IS NULL THEN 'UNSCOPED' ELSE a.scoping END" },
    { column: col.list("account_hierarchy_codes", { indexed: true }), expression: "coalesce(a.codes, '{}')" },
    { column: col.list("account_tags", { storedLowerCase: true }), expression: "coalesce(a.tags, '{}')" },
    { column: col.list("account_tags_increasing", { storedLowerCase: true }), expression: "CASE WHEN sign(b.amount) * a.normal > 0 THEN a.export_tags ELSE '{}' END" },
    { column: col.list("account_tags_decreasing", { storedLowerCase: true }), expression: "CASE WHEN sign(b.amount) * a.normal < 0 THEN a.export_tags ELSE '{}' END" },
  );
  for (const x of additionalColumns(plan.spec.sources)) out.push({ column: { ...col.text(x), originalName: x.slice(2) }, expression: `b.${ident(x)}` });
  out.push({ column: col.flags("cp_failed", Object.fromEntries(plan.points.map((p) => [p.definition.name, `cp_failed_${p.definition.name}`]))), expression: "" });
  return out;
}

/**
 * An entry's amount as a percentage of materiality, rounded to 2 decimals, as float8:
 * round(|amount| x 100 / M, 2). For a whole M the rounding is done in integers,
 * floor((|amount| x 20000 + M) / 2M) hundredths (half up, as numeric's round of a non-negative
 * value), and the division by 100 in float8 is correctly rounded from two exact values, so it
 * gives the same double as the numeric's text; the numeric path cost 1.5 s per million entries.
 * The numeric path stays for amounts whose x 20000 would not fit a bigint and for a fractional M.
 */
function materialityShare(amount: string, materiality: number): string {
  const numeric = `round(abs(${amount}) * 100.0 / ${num(materiality)}, 2)::float8`;
  if (!Number.isInteger(materiality) || materiality <= 0 || materiality > 1e12) return numeric;
  return `CASE WHEN abs(${amount}) < 400000000000000 THEN ((abs(${amount}) * 20000 + ${int(materiality)}) / ${int(2 * materiality)})::float8 / 100 ELSE ${numeric} END`;
}

/** Columns that exist only as SQL filters (BOOLEAN_FLAGS over the per-point flags) have no physical column. */
export const physical = (l: LaidOut) => l.column.type !== "BOOLEAN_FLAGS";

/** Storage width class of a column's type: 8-byte, 4-byte, 2-byte (scores) and 1-byte values, then variable length. */
const STORAGE_RANK: Partial<Record<LaidOut["column"]["type"], number>> = { INT64: 0, MONEY_100: 0, FLOAT64: 0, DATE: 1, INT32: 1, PERCENTAGE_FIXED_POINT: 2, BOOLEAN: 3 };

/**
 * The physical column order of a result table: fixed-width columns first, widest first, then the
 * texts and lists. Exports and pages name their columns (the published order is the layout's), so
 * the order on disk is free: with every number and flag before the first variable-length value,
 * PostgreSQL reads them at fixed offsets, and the passes that read flags and scores (the summary,
 * the partial indexes of rare flags, filtered pages) do not walk the texts of each row.
 */
function physicalOrder(columns: Array<{ select: string; rank: number }>): string {
  return columns
    .map((c, i) => ({ ...c, i }))
    .sort((a, b) => a.rank - b.rank || a.i - b.i)
    .map((c) => c.select)
    .join(", ");
}

/** Enumerations (risk_level, riskGroup, ...) are the first texts: the summary's pass reads risk_level without walking the free texts. */
const rankOf = (l: LaidOut) => STORAGE_RANK[l.column.type] ?? (l.column.type === "STRING" && !l.column.caseInsensitivePrefixSearch && !l.column.keywordSearch ? 8 : 9);

/**
 * The hierarchy codes of each transaction's accounts, sorted and distinct, set-based: the
 * transactions step ORs each account's codes as a bit mask per transaction (`hierarchy_mask`),
 * and each distinct mask is decoded once here (`w_hcodes`). A sorted subquery per transaction cost
 * half of the transaction table's statement and kept it in one process (a correlated subquery is
 * not run by parallel workers). Returns the join giving `hc.hierarchy_codes` (NULL: no account has a code).
 */
async function hierarchyCodesJoin(ctx: GlContext, client: pg.PoolClient): Promise<string | null> {
  const decoded = table(ctx.plan.tables.work("hcodes"));
  const codes = await hierarchyCodeList(ctx, client);
  if (codes.length === 0) {
    await client.query(`DROP TABLE IF EXISTS ${decoded}`);
    return null;
  }
  await createTableAs(
    client,
    ctx.plan.tables.work("hcodes"),
    `SELECT x.mask, ARRAY(SELECT k.c FROM unnest(${textArray(codes)}) WITH ORDINALITY k(c, i) WHERE substr(x.mask, k.i::integer, 1) = '1' ORDER BY k.i) AS hierarchy_codes
       FROM (SELECT DISTINCT hierarchy_mask AS mask FROM ${table(ctx.plan.tables.work("txagg"))} WHERE hierarchy_mask IS NOT NULL) x`,
  );
  return `LEFT JOIN ${decoded} hc ON hc.mask = t.hierarchy_mask`;
}

/** The transaction aggregate's (`w_txagg`) columns the transaction layout reads. */
const TX_COLUMNS = ["tx", "txid", "effective_date", "debit", "credit", "entries_count", "transaction", "accounts", "entered_date", "type", "user_id", "bs_delta", "is_delta", "increasing_mask", "decreasing_mask"];

/**
 * The transaction table, committed on its own before the entries table (glScoresStep): its
 * indexes (queued when this step is done, TableShape.after) are built on the index builder's lane
 * beside the entries table's statement instead of after the last step, beside the summary.
 */
export const glScoresTxStep: EngineStep = {
  name: "scores-tx",
  points: [],
  cost: 3,
  async run({ pool, plan }) {
    const ctx = await glContext(pool, plan);
    const entryColumns = new Map(entryPointColumns(plan).map((e) => [e.name, e.column]));
    const transactionNames = new Set(transactionPointNames());
    const flowColumns = new Map(flowPoints(plan).map((f) => [f.name, f.column]));
    const findings: string[] = [];
    const scores = plan.points
      .filter((p) => p.available)
      .map((p) => {
        const name = p.definition.name;
        let expression = "0";
        if (entryColumns.has(name)) expression = `coalesce(t.${ident(entryColumns.get(name)!)}, 0)`;
        else if (transactionNames.has(name)) {
          findings.push(`SELECT ${int(p.index)} AS k, tx, score FROM ${table(pointTable(plan, name))}`);
          expression = `coalesce(w.${ident(`w${p.index}`)}, 0)`;
        } else if (flowColumns.has(name)) expression = `coalesce(fm.${ident(flowColumns.get(name)!)}, 0)`;
        return `(${expression})::smallint AS ${ident(`s${p.index}`)}`;
      });
    const groups = enabledGroups(plan);
    // The transaction-level findings as one row per flagged transaction (one join, not one per point).
    const findingColumns = plan.points.filter((p) => p.available && transactionNames.has(p.definition.name)).map((p) => `max(score) FILTER (WHERE k = ${int(p.index)}) AS ${ident(`w${p.index}`)}`);
    // Written as a table: joined as a subquery, each parallel worker built its own copy of the aggregate.
    const pivot = findings.length === 0 ? null : `SELECT tx, ${findingColumns.join(", ")} FROM (${findings.join(" UNION ALL ")}) u GROUP BY tx`;
    const findingsJoin = pivot ? `LEFT JOIN ${table(plan.tables.work("findings"))} w ON w.tx = t.tx` : "";
    // Only the aggregate's columns the layout reads: the rows cross the joins, the hash tables and
    // the parallel workers' queue, and the aggregate's other columns (signatures, side counts) are
    // half of its width.
    const used = TX_COLUMNS.map((c) => `t.${ident(c)}`).join(", ");
    const inner = (hierarchy: string | null) => `SELECT ${used}, coalesce(fm.unknown_flow, FALSE) AS has_unknown_flow, coalesce(fm.complex, FALSE) AS complex_flow${scores.map((s) => `, ${s}`).join("")},
               ${hierarchy ? "hc.hierarchy_codes" : "NULL::text[] AS hierarchy_codes"}
        FROM ${table(plan.tables.work("txagg"))} t LEFT JOIN ${table(plan.tables.work("flowmax"))} fm ON fm.tx = t.tx ${findingsJoin} ${hierarchy ?? ""}`;
    // Scores per enabled risk group first (the entries pick theirs), then the published columns.
    // OFFSET 0 keeps the subquery from being flattened: each risk_g<n> is read by several columns
    // (risk, risk_level, level_g<n>), which would otherwise each recompute the weighted sum.
    // The weighted sums in a subquery of their own, the scores from them (weightedSum): each sum is
    // read twice by its rounding.
    const sums = groups.map(({ group, index }) => ({ index, weighted: weightedSum(plan, group, (p) => transactionScore(plan, p)) }));
    const grouped = (hierarchy: string | null) => `SELECT x.*${sums
      .map(({ index, weighted }) => `, ${weighted ? weighted.rounded(`x.${ident(`wsum_g${index}`)}`) : "NULL::integer"} AS ${ident(`risk_g${index}`)}`)
      .join("")} FROM (SELECT x.*${sums
      .map(({ index, weighted }) => `, ${weighted ? weighted.sum : "NULL::integer"} AS ${ident(`wsum_g${index}`)}`)
      .join("")} FROM (${inner(hierarchy)}) x OFFSET 0) x OFFSET 0`;
    await engineTransaction(pool, async (client) => {
      const layout = transactionLayout(plan);
      // This transaction's statements in one process: for the two small ones, parallel workers
      // (fresh processes whose first touches of shared memory fault page by page, and a shared
      // hash or sort to merge) doubled their CPU time for no shorter wait (1M lines: findings
      // 2.0 -> 1.0 CPU-s, load 14).
      await client.query("SET LOCAL max_parallel_workers_per_gather = 0");
      const hierarchy = await hierarchyCodesJoin(ctx, client);
      if (pivot) await createTableAs(client, plan.tables.work("findings"), pivot);
      // The flows step leaves its per-transaction maxima unanalyzed: without statistics on
      // fm.tx the planner expected long hash buckets and hashed the wide aggregate (97 MB for
      // 250,000 transactions) instead of the narrow maxima. The transaction table stays in one
      // process: with workers the planner hashed the aggregate anyway (its partial row count is
      // the smaller), 5.8-7.6 CPU-s against 4.4-5.0 serial for the same wait at load 12-14, and
      // the flows table's index builds have the other core during this step.
      await client.query(`ANALYZE ${table(plan.tables.work("flowmax"))}`);
      const levels = groups.map(({ group, index }) => `${riskLevel(group, `x.${ident(`risk_g${index}`)}`)} AS ${ident(`level_g${index}`)}`);
      const columns = [
        { select: "x.tx AS row_no", rank: 0 },
        ...layout
          .filter(physical)
          .filter((l) => l.column.sql !== "row_no")
          .map((l) => ({ select: `${l.expression} AS ${ident(l.column.sql)}`, rank: rankOf(l) })),
        ...groups.map(({ index }) => ({ select: `x.${ident(`risk_g${index}`)}`, rank: 1 })),
        ...levels.map((l) => ({ select: l, rank: 8 })),
      ];
      const select = `SELECT ${physicalOrder(columns)} FROM (${grouped(hierarchy)}) x`;
      // Analyzed: without row counts the entries' join below hashes the million entries rather than the transactions.
      await createTableAs(client, plan.tables.tx, select);
    });
  },
};

/**
 * The accounts join of the entries table (alias `a`, as ctx.accountJoin), each account with its scoping (`a.scoping`: its activity, the
 * amount statistic's sum of |amount|, against materiality) decided once per account: joining the
 * statistic to the million entries as a third hash join, with the test per entry, cost 0.7-1.1 of
 * 6.7 CPU-s of the entries table's statement (1M lines, one process). The statistic has one row
 * per account (GROUP BY account), so no row is added or lost.
 */
function accountsWithScoping(ctx: GlContext, hasAmount: boolean): string {
  const materiality = Number(ctx.facts.materiality ?? 1);
  const activity = hasAmount ? "sa.activity" : "NULL::bigint";
  const amounts = hasAmount ? `LEFT JOIN (SELECT account, activity FROM ${table(ctx.plan.tables.stat("amount"))}) sa ON sa.account = a.account` : "";
  const scoped = `(SELECT a.*, CASE WHEN coalesce(${activity}, 0) >= ${num(materiality)} THEN 'SIGNIFICANT' ELSE 'INSIGNIFICANT' END AS scoping FROM ${ctx.accounts} a ${amounts})`;
  return ctx.accountJoin("b", scoped);
}

/** The entries table: each entry with its transaction's scores (the transaction table, scores-tx). */
export const glScoresStep: EngineStep = {
  name: "scores",
  points: [],
  cost: 5,
  async run({ pool, plan }) {
    const ctx = await glContext(pool, plan);
    await engineTransaction(pool, async (client) => {
      const layout = linesLayout(ctx);
      const own = entryPointColumns(plan).map(({ column, name }) => {
        const point = plan.point(name);
        return `CASE WHEN ${failedExpression(plan, point, `b.${ident(column)}`)} THEN ${int(2 ** point.index)}::bigint ELSE 0 END`;
      });
      const hasAmount = (await client.query(`SELECT to_regclass($1) IS NOT NULL AS ok`, [plan.tables.stat("amount")])).rows[0].ok as boolean;
      const columns = [
        ...layout.filter(physical).map((l) => ({ select: `${l.expression} AS ${ident(l.column.sql)}`, rank: rankOf(l) })),
        { select: "b.tx", rank: 0 },
        { select: `${own.length === 0 ? "0::bigint" : own.join(" | ")} AS own_mask`, rank: 0 },
      ];
      const select = `SELECT ${physicalOrder(columns)}
        FROM ${table(plan.tables.base)} b JOIN ${table(plan.tables.tx)} t ON t.row_no = b.tx ${accountsWithScoping(ctx, hasAmount)}`;
      await createTableAs(client, plan.tables.lines, select, { analyze: false });
    });
  },
};

