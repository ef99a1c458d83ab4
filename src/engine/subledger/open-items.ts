import type pg from "pg";
import { col, type ResultColumn } from "../columns.js";
import { periodExpressions } from "../periods.js";
import type { RunPlan } from "../run-plan.js";
import type { EngineSource } from "../spec.js";
import { createTableAs, engineTransaction, type EngineStep } from "../steps.js";
import { date, ident, table } from "../sql.js";

/**
 * The end-of-period outstanding payables / receivables (spec 2.10: `ap_detail_union_open_payables`,
 * `ar_detail_union_open_receivables`): one row per document (party and invoice id, the invoice id
 * compared without case) still open at the end of the last analysis period. A document's balance
 * is the union of what the open items list carried into the period (`outstanding_amount`) and the
 * detail entries dated up to the period end (invoices positive, payments and credit notes
 * negative); it is open when that balance is not zero (a negative balance is an unapplied payment
 * or credit). Entries after the period end settle nothing. The closing items list, when given, is
 * the client's own list: `closing_list_amount` shows what it says of the document (null: not on
 * it). docs/control-points.md, "Outstanding items", has the columns.
 */

/** Ageing buckets by days from the invoice date to the period end. */
const AGEING_BUCKETS: Array<[number, string]> = [
  [30, "0-30"],
  [60, "31-60"],
  [90, "61-90"],
  [180, "91-180"],
];
const OVER = "181+";

const party = (plan: RunPlan) => (plan.spec.family === "AP" ? "vendor" : "customer");

export function openItemsLogicalName(plan: RunPlan): string {
  return plan.spec.family === "AP" ? "ap_detail_union_open_payables" : "ar_detail_union_open_receivables";
}

export function openItemsLayout(plan: RunPlan): ResultColumn[] {
  const p = party(plan);
  const out: ResultColumn[] = [
    col.rowid(),
    col.key("invoice_id", { platformField: "invoice_id" }),
    col.key(`${p}_id`, { platformField: `${p}_id` }),
    col.text(`${p}_name`, { platformField: `${p}_name` }),
    col.date("invoice_date", { platformField: "invoice_date" }),
    col.date("effective_date", { platformField: "effective_date" }),
    col.date("due_date", { platformField: "due_date" }),
    col.key("currency", { platformField: "currency" }),
    col.text("memo", { platformField: "memo" }),
    col.money("carried_forward_amount"),
    col.money("invoiced_amount"),
    col.money("settled_amount"),
    col.money("outstanding_amount", { platformField: "outstanding_amount", nullable: false }),
    col.money("closing_list_amount"),
    col.count("days_outstanding"),
    col.count("days_past_due"),
    col.level("ageing_bucket"),
    col.level("origin"),
    col.count("entries_count"),
    col.list("detail_rowids", { storedLowerCase: true }),
    col.score("risk", { indexed: true }),
    col.level("risk_level"),
  ];
  for (const point of plan.points) out.push(col.flag(`cp_failed_${point.definition.name}`));
  for (const point of plan.points) out.push(col.score(`cp_score_${point.definition.name}`));
  out.push(col.flags("cp_failed", Object.fromEntries(plan.points.map((pt) => [pt.definition.name, `cp_failed_${pt.definition.name}`]))));
  return out;
}

/** An items list source read as (party_id, party_name, invoice_id, invoice_date, due_date, amount, currency); absent columns NULL. */
function itemsSql(sources: readonly EngineSource[], p: string): string | null {
  if (sources.length === 0) return null;
  return sources
    .map((s) => {
      const present = new Set(s.columns);
      const pick = (column: string, alias: string, type: string) => (present.has(column) ? `i.${ident(column)}::${type} AS ${alias}` : `NULL::${type} AS ${alias}`);
      return `SELECT ${[
        pick(`${p}_id`, "party_id", "text"),
        pick(`${p}_name`, "party_name", "text"),
        pick("invoice_id", "invoice_id", "text"),
        pick("invoice_date", "invoice_date", "date"),
        pick("due_date", "due_date", "date"),
        pick("outstanding_amount", "amount", "bigint"),
        pick("currency", "currency", "text"),
      ].join(", ")} FROM ${table(s.entries)} i`;
    })
    .join(" UNION ALL ");
}

/** The period end: the last analysis period's, else the latest entry's date. */
async function periodEnd(pool: pg.Pool | pg.PoolClient, plan: RunPlan): Promise<string | null> {
  const configured = periodExpressions(plan.spec).lastEnd;
  if (configured) return configured;
  const { rows } = await pool.query<{ d: string | null }>(`SELECT max(effective_date)::text AS d FROM ${table(plan.tables.lines)}`);
  return rows[0].d;
}

export const openItemsStep: EngineStep = {
  name: "open_items",
  points: [],
  cost: 1,
  async run({ pool, plan }) {
    const p = party(plan);
    const end = await periodEnd(pool, plan);
    const lines = table(plan.tables.lines);
    const points = plan.points.map((pt) => pt.definition.name);
    const detail = `SELECT 'D' AS kind, x.${ident(`${p}_id`)} AS party_id, x.${ident(`${p}_name`)} AS party_name, x.invoice_id, coalesce(x.invoice_date, x.effective_date) AS invoice_date,
        x.effective_date, x.due_date, x.amount, x.currency, x.memo, x.row_no, x.risk, x.risk_level,
        ${points.map((n) => `x.${ident(`cp_score_${n}`)}, x.${ident(`cp_failed_${n}`)}`).join(", ") || "NULL AS none"}
      FROM ${lines} x WHERE x.invoice_id IS NOT NULL ${end ? `AND x.effective_date <= ${date(end)}` : ""}`;
    const open = itemsSql(plan.spec.openItems ?? [], p);
    const carried = open
      ? `SELECT 'O' AS kind, o.party_id, o.party_name, o.invoice_id, o.invoice_date, NULL::date AS effective_date, o.due_date, o.amount, o.currency, NULL::text AS memo, NULL::bigint AS row_no,
          NULL::smallint AS risk, NULL::text AS risk_level, ${points.map((n) => `NULL::smallint AS ${ident(`cp_score_${n}`)}, NULL::boolean AS ${ident(`cp_failed_${n}`)}`).join(", ") || "NULL AS none"}
        FROM (${open}) o WHERE o.invoice_id IS NOT NULL AND o.party_id IS NOT NULL AND o.amount IS NOT NULL`
      : null;
    const closing = itemsSql(plan.spec.closingItems ?? [], p);
    const closingJoin = closing
      ? `LEFT JOIN (SELECT c.party_id, lower(c.invoice_id) AS document, sum(c.amount)::bigint AS amount FROM (${closing}) c WHERE c.invoice_id IS NOT NULL GROUP BY 1, 2) cl
           ON cl.party_id = d.party_id AND cl.document = d.document`
      : "";
    const endDate = end ? date(end) : "NULL::date";
    const daysOut = `(${endDate} - d.invoice_date)`;
    const bucket = `CASE WHEN d.invoice_date IS NULL OR ${endDate} IS NULL THEN NULL ${AGEING_BUCKETS.map(([days, label]) => `WHEN ${daysOut} <= ${days} THEN '${label}'`).join(" ")} ELSE '${OVER}' END`;
    const d = `SELECT u.party_id, lower(u.invoice_id) AS document, (array_agg(u.invoice_id ORDER BY u.kind DESC, u.amount > 0 DESC, u.row_no))[1] AS invoice_id, max(u.party_name) AS party_name,
        coalesce(min(u.invoice_date) FILTER (WHERE u.kind = 'O' OR u.amount > 0), min(u.invoice_date)) AS invoice_date,
        min(u.effective_date) AS effective_date, max(u.due_date) AS due_date, max(u.currency) AS currency,
        (array_agg(u.memo ORDER BY u.amount > 0 DESC, u.row_no) FILTER (WHERE u.memo IS NOT NULL AND btrim(u.memo) <> ''))[1] AS memo,
        sum(u.amount) FILTER (WHERE u.kind = 'O')::bigint AS carried_forward_amount,
        coalesce(sum(u.amount) FILTER (WHERE u.kind = 'D' AND u.amount > 0), 0)::bigint AS invoiced_amount,
        coalesce(sum(-u.amount) FILTER (WHERE u.kind = 'D' AND u.amount < 0), 0)::bigint AS settled_amount,
        sum(u.amount)::bigint AS outstanding_amount,
        CASE WHEN bool_or(u.kind = 'D') AND bool_or(u.kind = 'O') THEN 'BOTH' WHEN bool_or(u.kind = 'O') THEN 'OPEN_ITEMS_LIST' ELSE 'DETAIL' END AS origin,
        count(*) FILTER (WHERE u.kind = 'D')::integer AS entries_count,
        coalesce(array_agg(u.row_no::text ORDER BY u.row_no) FILTER (WHERE u.kind = 'D'), '{}') AS detail_rowids,
        max(u.risk) AS risk, coalesce((array_agg(u.risk_level ORDER BY u.risk DESC) FILTER (WHERE u.kind = 'D'))[1], 'UNSCORED') AS risk_level
        ${points.map((n) => `, coalesce(max(u.${ident(`cp_score_${n}`)}), 0)::smallint AS ${ident(`cp_score_${n}`)}, coalesce(bool_or(u.${ident(`cp_failed_${n}`)}), FALSE) AS ${ident(`cp_failed_${n}`)}`).join("")}
      FROM (${[detail, carried].filter(Boolean).join(" UNION ALL ")}) u
      GROUP BY u.party_id, lower(u.invoice_id) HAVING sum(u.amount) <> 0`;
    const select = `SELECT row_number() OVER (ORDER BY d.party_id COLLATE "C", d.document COLLATE "C") AS row_no, d.invoice_id, d.party_id AS ${ident(`${p}_id`)}, d.party_name AS ${ident(`${p}_name`)},
        d.invoice_date, d.effective_date, d.due_date, d.currency, d.memo, d.carried_forward_amount, d.invoiced_amount, d.settled_amount, d.outstanding_amount,
        ${closing ? "cl.amount" : "NULL::bigint"} AS closing_list_amount,
        ${daysOut}::integer AS days_outstanding,
        CASE WHEN d.due_date IS NULL OR ${endDate} IS NULL THEN NULL ELSE greatest(${endDate} - d.due_date, 0) END::integer AS days_past_due,
        ${bucket} AS ageing_bucket, d.origin, d.entries_count, d.detail_rowids, d.risk, d.risk_level
        ${points.map((n) => `, d.${ident(`cp_failed_${n}`)}, d.${ident(`cp_score_${n}`)}`).join("")}
      FROM (${d}) d ${closingJoin}`;
    await engineTransaction(pool, (client) => createTableAs(client, plan.tables.open, select, { analyze: false }));
  },
};
