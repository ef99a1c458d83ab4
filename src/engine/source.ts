import type pg from "pg";
import type { EngineSource } from "./spec.js";
import { ident, table } from "./sql.js";

/**
 * The columns every source is read as (the engine's names, which are also the result tables'):
 * the ingestion's platform fields renamed where the platform's export names them differently
 * (`entry_date` -> `entered_date`, `source` -> `type`, `entered_by` -> `user_id`).
 */
export interface NormalizedColumn {
  name: string;
  sqlType: string;
  /** Entry columns it may come from, first present wins. */
  from: string[];
}

export const GL_COLUMNS: NormalizedColumn[] = [
  { name: "txid", sqlType: "text", from: ["txid"] },
  { name: "effective_date", sqlType: "date", from: ["effective_date"] },
  { name: "entered_date", sqlType: "date", from: ["entry_date"] },
  { name: "account", sqlType: "text", from: ["account"] },
  { name: "account_description", sqlType: "text", from: ["account_description"] },
  { name: "memo", sqlType: "text", from: ["memo"] },
  { name: "type", sqlType: "text", from: ["source"] },
  { name: "user_id", sqlType: "text", from: ["entered_by"] },
  { name: "approved_by", sqlType: "text", from: ["approved_by"] },
  { name: "currency", sqlType: "text", from: ["currency"] },
  { name: "line_number", sqlType: "double precision", from: ["line_number"] },
  { name: "fund_id", sqlType: "text", from: ["fund_id"] },
  { name: "debit", sqlType: "bigint", from: ["debit"] },
  { name: "credit", sqlType: "bigint", from: ["credit"] },
  { name: "amount", sqlType: "bigint", from: ["amount"] },
];

/** Payables and receivables detail entries; `party_id`/`party_name` are the vendor's or the customer's. */
export const SUBLEDGER_COLUMNS: NormalizedColumn[] = [
  { name: "txid", sqlType: "text", from: ["txid"] },
  { name: "invoice_id", sqlType: "text", from: ["invoice_id"] },
  { name: "party_id", sqlType: "text", from: ["vendor_id", "customer_id"] },
  { name: "party_name", sqlType: "text", from: ["vendor_name", "customer_name"] },
  { name: "type", sqlType: "text", from: ["entry_type"] },
  { name: "invoice_date", sqlType: "date", from: ["invoice_date"] },
  { name: "effective_date", sqlType: "date", from: ["effective_date"] },
  { name: "due_date", sqlType: "date", from: ["due_date"] },
  { name: "amount", sqlType: "bigint", from: ["amount"] },
  { name: "account", sqlType: "text", from: ["account"] },
  { name: "memo", sqlType: "text", from: ["memo"] },
  { name: "user_id", sqlType: "text", from: ["entered_by"] },
  { name: "currency", sqlType: "text", from: ["currency"] },
];

/** Additional (`x_`) columns of any source, in first-seen order; every source reads them (NULL where absent). */
export function additionalColumns(sources: readonly EngineSource[]): string[] {
  const seen: string[] = [];
  for (const s of sources) for (const c of s.columns) if (c.startsWith("x_") && !seen.includes(c)) seen.push(c);
  return seen;
}

/** Which normalized columns at least one source maps. */
export function mappedColumns(sources: readonly EngineSource[], columns: readonly NormalizedColumn[]): Set<string> {
  const present = new Set(sources.flatMap((s) => s.columns));
  return new Set(columns.filter((c) => c.from.some((f) => present.has(f))).map((c) => c.name));
}

/**
 * Row numbers of several sources are offset so the result's rowids stay unique: source k's rows
 * come after every row of the sources before it.
 */
export async function rowOffsets(client: pg.PoolClient | pg.Pool, sources: readonly EngineSource[]): Promise<number[]> {
  const offsets: number[] = [];
  let next = 0;
  for (const s of sources) {
    offsets.push(next);
    const { rows } = await client.query<{ max: string | null }>(`SELECT max(row_no) AS max FROM ${table(s.entries)}`);
    next += Number(rows[0].max ?? 0) + 1;
  }
  return offsets;
}

/**
 * Two halves of every source's pages, as `where` filters for sourcesSql: a statement per half on
 * its own connection reads each page once between them (ctid range scans), one process per core.
 */
export async function sourcePageHalves(pool: pg.Pool, sources: readonly EngineSource[]): Promise<[(k: number) => string, (k: number) => string]> {
  const pages = await Promise.all(
    sources.map(async (s) => Number((await pool.query<{ pages: string }>(`SELECT pg_relation_size($1) / current_setting('block_size')::bigint AS pages`, [s.entries])).rows[0].pages)),
  );
  const middle = (k: number) => `'(${Math.ceil(pages[k] / 2)},0)'::tid`;
  return [(k) => `e.ctid < ${middle(k)}`, (k) => `e.ctid >= ${middle(k)}`];
}

/**
 * One SELECT reading every source as the normalized columns (UNION ALL), with `row_no` made unique
 * and `src` the source's position. With `withTx`, also `tx`: the transaction key, the row number
 * of the transaction's first entry (the ingestion's transactions table has it per txid).
 */
export function sourcesSql(
  sources: readonly EngineSource[],
  columns: readonly NormalizedColumn[],
  offsets: readonly number[],
  options: { withTx?: boolean; where?: (k: number) => string } = {},
): string {
  const extra = additionalColumns(sources);
  return sources
    .map((s, k) => {
      const present = new Set(s.columns);
      const select = [`(e.row_no + ${offsets[k]})::bigint AS row_no`, `${k} AS src`];
      for (const c of columns) {
        const from = c.from.find((f) => present.has(f));
        select.push(from ? `e.${ident(from)}::${c.sqlType} AS ${ident(c.name)}` : `NULL::${c.sqlType} AS ${ident(c.name)}`);
      }
      for (const x of extra) select.push(present.has(x) ? `e.${ident(x)}::text AS ${ident(x)}` : `NULL::text AS ${ident(x)}`);
      let from = `${table(s.entries)} e`;
      if (options.withTx) {
        if (s.transactions) {
          // The key of entries without a txid as a scalar subquery (an InitPlan computed once): as a
          // joined one-row aggregate it took a parallel plan of its own on a large transactions
          // table, which kept the whole statement out of parallel workers.
          select.push(`(coalesce(t.row_no, (SELECT min(row_no) FROM ${table(s.transactions)} WHERE txid IS NULL)) + ${offsets[k]})::bigint AS tx`);
          from += ` LEFT JOIN ${table(s.transactions)} t ON t.txid = e.txid`;
        } else {
          select.push(`(t.row_no + ${offsets[k]})::bigint AS tx`);
          from += ` JOIN (SELECT txid, min(row_no) AS row_no FROM ${table(s.entries)} GROUP BY txid) t ON t.txid IS NOT DISTINCT FROM e.txid`;
        }
      }
      return `SELECT ${select.join(", ")} FROM ${from}${options.where ? ` WHERE ${options.where(k)}` : ""}`;
    })
    .join("\nUNION ALL\n");
}
