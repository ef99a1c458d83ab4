import type pg from "pg";
import { inPgTransaction } from "../db/pg-transaction.js";
import { col, type ResultColumn } from "./columns.js";
import type { RunPlan } from "./run-plan.js";
import { RISK_LEVEL_CODES, sharedRiskLevelCode } from "./scoring.js";
import { readFacts, type RunFacts } from "./steps.js";
import { ident, table } from "./sql.js";

/** A table a result publishes as a data table. */
export interface PublishedTable {
  /** Stable key within the result (`lines`, `transactions`, `flows`, `typeahead_account`, ...). */
  key: string;
  logicalName: string;
  /** The data table `type` (kind of rows): entries, transactions, flows_compact, typeahead. */
  type: string;
  apiStability: "STABLE" | "UNSTABLE";
  table: string;
  columns: ResultColumn[];
  rowCount: number;
  /** Typeahead tables: the (table key, field) pairs whose `typeaheadDataTableId` is this table. */
  typeaheadFor?: Array<{ table: string; field: string }>;
}

/** A published table as the steps leave it (before the summary): `after` names the step that writes it last. */
export type TableShape = Omit<PublishedTable, "rowCount"> & { after: string };

export const RISK_LEVELS = ["HIGH", "MEDIUM", "LOW", "UNSCORED"] as const;

export interface ControlPointSummary {
  name: string;
  displayName: string;
  kind: string;
  level: string;
  /** Whether the run computed it (else `skipped` says why). */
  available: boolean;
  skipped: string | null;
  /** Entries whose control point column says failed (entries inherit their transaction's). */
  failedEntries: number;
  failedTransactions: number;
  /** Entries that failed it on their own (before inheriting), entry-level points only. */
  failedOwnEntries: number | null;
}

export interface ResultSummary {
  entries: { total: number; byRiskLevel: Record<string, number> };
  transactions: { total: number; byRiskLevel: Record<string, number> } | null;
  flows: { total: number; simple: number; complex: number; unknown: number } | null;
  controlPoints: ControlPointSummary[];
  /** Values the run derived or used (materiality, thresholds), for explain and the auditor. */
  facts: RunFacts;
}

/** The typeahead table of one column: its distinct values with how many rows carry each. */
export const TYPEAHEAD_COLUMNS: ResultColumn[] = [
  col.rowid(),
  col.key("lookup_id"),
  col.text("display_name"),
  { ...col.count("entries"), indexed: false },
];

export async function createTypeaheadTable(client: pg.PoolClient, name: string, select: string): Promise<number> {
  await client.query(`DROP TABLE IF EXISTS ${table(name)}`);
  const result = await client.query(`CREATE TABLE ${table(name)} WITH (autovacuum_enabled = false) AS SELECT row_number() OVER (ORDER BY lookup_id) AS row_no, lookup_id, display_name, entries FROM (${select}) t`);
  return result.rowCount ?? 0;
}

/**
 * Runs one pass of the summary over a table, in one process. It runs beside two index builds on
 * two cores: parallel workers there only add CPU (fresh processes fault on each shared buffer they
 * touch; the lines pass cost 0.86-1.01 CPU-s with two workers, 0.80 without). A run passes the
 * index builder's (`ResultIndexer.query`: on the connection that has read the table).
 */
export type TableQuery = <R extends pg.QueryResultRow>(table: string, sql: string) => Promise<pg.QueryResult<R>>;

/** The default TableQuery: a connection of the pool, without parallel workers. */
export function serialQuery(pool: pg.Pool): TableQuery {
  return (_table, sql) =>
    inPgTransaction(pool, async (client) => {
      await client.query("SET LOCAL max_parallel_workers_per_gather = 0");
      return client.query(sql);
    });
}

/** Counts per risk level and per control point, from the published tables (one pass over each). */
export async function summarize(pool: pg.Pool, plan: RunPlan, options: { entries: string; transactions: string | null; flows: string | null; ownMask: boolean; query?: TableQuery }): Promise<ResultSummary> {
  const points = plan.points;
  const query = options.query ?? serialQuery(pool);
  const failed = (prefix: string) => points.map((p) => `count(*) FILTER (WHERE ${ident(`cp_failed_${p.definition.name}`)}) AS ${ident(`${prefix}${p.index}`)}`);
  // The per-control-point counts ride along with the level counts: one pass over each table, the
  // entries' own-mask counts on the entries, the failed counts on the transactions (or, without
  // transactions, on the entries); the passes run side by side.
  // The own-mask counts come from the entries grouped by (level, mask) first: a few hundred groups,
  // where a FILTER per control point on every entry cost seconds on a million.
  const own = options.ownMask ? points.filter((p) => p.available).map((p) => `coalesce(sum(n) FILTER (WHERE (own_mask & ${2 ** p.index}::bigint) <> 0), 0) AS ${ident(`o${p.index}`)}`) : [];
  const ownPerRow = options.ownMask ? points.filter((p) => p.available).map((p) => `count(*) FILTER (WHERE (own_mask & ${2 ** p.index}::bigint) <> 0) AS ${ident(`o${p.index}`)}`) : [];
  const counts: Record<string, string> = Object.fromEntries(options.ownMask ? points.filter((p) => p.available).map((p) => [`o${p.index}`, "0"]) : []);
  const levelCounts = async (name: string, extra: string[], byMask = false) => {
    // With one level per score for every group (sharedRiskLevelCode), the level from the score:
    // `risk` is read at a fixed offset, `risk_level` after every fixed-width column of the row
    // (1M lines: 0.42-0.47 CPU-s against 0.67-0.75 for the grouping by risk_level).
    const code = byMask ? sharedRiskLevelCode(plan, "risk") : null;
    const grouped = code
      ? `(SELECT CASE code ${RISK_LEVEL_CODES.map((l, i) => `WHEN ${i} THEN '${l}'`).join(" ")} END AS risk_level, own_mask, n FROM (SELECT ${code} AS code, own_mask, count(*) AS n FROM ${table(name)} GROUP BY 1, 2) c) g`
      : `(SELECT risk_level, own_mask, count(*) AS n FROM ${table(name)} GROUP BY 1, 2) g`;
    const from = byMask ? grouped : table(name);
    const { rows } = await query<{ level: string; n: string }>(name, `SELECT ${["risk_level AS level", byMask ? "sum(n) AS n" : "count(*) AS n", ...extra].join(", ")} FROM ${from} GROUP BY 1`);
    for (const r of rows as unknown as Array<Record<string, string>>) {
      for (const [k, v] of Object.entries(r)) if (k !== "level" && k !== "n") counts[k] = String(Number(counts[k] ?? 0) + Number(v));
    }
    const out: Record<string, number> = Object.fromEntries(RISK_LEVELS.map((l) => [l, 0]));
    let total = 0;
    for (const r of rows) {
      out[r.level ?? "UNSCORED"] = (out[r.level ?? "UNSCORED"] ?? 0) + Number(r.n);
      total += Number(r.n);
    }
    return { total, byRiskLevel: out };
  };
  const inherited = points.map((p) => `coalesce(sum(entries_count) FILTER (WHERE ${ident(`cp_failed_${p.definition.name}`)}), 0) AS ${ident(`e${p.index}`)}`);
  const flowCounts = async (name: string): Promise<ResultSummary["flows"]> => {
    const { rows } = await query<{ total: string; simple: string; complex: string; unknown: string }>(
      name,
      `SELECT count(*) AS total, count(*) FILTER (WHERE flow_type = 'SIMPLE') AS simple, count(*) FILTER (WHERE flow_type = 'COMPLEX') AS complex,
              count(*) FILTER (WHERE unknown_flow) AS unknown FROM ${table(name)}`,
    );
    return { total: Number(rows[0].total), simple: Number(rows[0].simple), complex: Number(rows[0].complex), unknown: Number(rows[0].unknown) };
  };
  // Two lanes: the entries' pass (the longest) in one, the transactions' and the flows' in the other.
  const [entries, [transactions, flows]] = await Promise.all([
    options.transactions ? levelCounts(options.entries, own, options.ownMask) : levelCounts(options.entries, [...ownPerRow, ...failed("e")]),
    (async () => [options.transactions ? await levelCounts(options.transactions, [...failed("t"), ...inherited]) : null, options.flows ? await flowCounts(options.flows) : null] as const)(),
  ]);
  return {
    entries,
    transactions,
    flows,
    controlPoints: points.map((p) => ({
      name: p.definition.name,
      displayName: p.definition.displayName,
      kind: p.definition.kind,
      level: p.definition.level,
      available: p.available,
      skipped: p.skipped,
      failedEntries: Number(counts[`e${p.index}`] ?? 0),
      failedTransactions: options.transactions ? Number(counts[`t${p.index}`] ?? 0) : Number(counts[`e${p.index}`] ?? 0),
      failedOwnEntries: counts[`o${p.index}`] !== undefined ? Number(counts[`o${p.index}`]) : null,
    })),
    facts: await readFacts(pool, plan),
  };
}

/**
 * Flags set on few rows (at most 1%) get a partial index on (row_no), so a first page of "entries
 * failing X" walks only those rows; commoner ones are found quickly walking the rowid order (a
 * flag on 1% of rows: 10,000 index entries for a page of 100). Each partial index is one more
 * full scan of the table while the run builds it, so the bar is low.
 */
export function markRareFlags(columns: ResultColumn[], summary: ResultSummary, rows: number, level: "entries" | "transactions"): ResultColumn[] {
  const failed = new Map(summary.controlPoints.map((c) => [`cp_failed_${c.name}`, level === "entries" ? c.failedEntries : c.failedTransactions]));
  return columns.map((c) => {
    const n = failed.get(c.field);
    return n !== undefined && n > 0 && n <= rows * 0.01 ? { ...c, partialIndex: true } : c;
  });
}

/**
 * An enumeration column (risk levels, flow types) holds a few values, most rows one or two of them:
 * a full index on lower(col) sorted every row (1.6 s of CPU for the entries' risk_level on a
 * million lines) for pages that walk the rowid order as fast. Values on more than 5% of rows
 * (`commonValues`) are found that way, at most 20 rows read per match; the others, rare or absent
 * (a page of HIGH entries when there are none answers at once), get one partial index on
 * (lower(col), row_no) WHERE lower(col) is none of the common ones. No index at all when every
 * value the column can hold is common. `counts` by stored value; `values` every value it can hold.
 */
export function markCommonValues(columns: ResultColumn[], field: string, values: readonly string[], counts: Record<string, number>, rows: number): ResultColumn[] {
  const common = values.filter((v) => (counts[v] ?? 0) > rows * 0.05).map((v) => v.toLowerCase());
  return columns.map((c) => {
    if (c.field !== field) return c;
    const { commonValues: _old, ...column } = c;
    return common.length === values.length ? { ...column, indexed: false } : { ...column, indexed: false, commonValues: common };
  });
}

/**
 * Result tables are written once and read through filtered pages: an index on every searchable
 * column cost minutes on a million entries (and the user waits for them: they are built in the
 * run). Only the columns the pages filter and sort on most keep theirs: rowid (default order and
 * paging), the risk score and level, the keys an auditor drills down by; rare flags keep their
 * partial index (markRareFlags). Other filters read the table in rowid order, which for common
 * values stops after a page.
 */
export function indexOnly(columns: ResultColumn[], fields: readonly string[]): ResultColumn[] {
  const keep = new Set(fields);
  return columns.map((c) => (keep.has(c.field) || (!c.indexed && !c.orderIndexed) ? c : { ...c, indexed: false, orderIndexed: false }));
}
