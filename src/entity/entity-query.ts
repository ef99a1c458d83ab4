import type pg from "pg";
import { compileFilter, SqlParams, type ColumnSet } from "../query-language/index.js";
import { orderBy, type PageRequest } from "./paging.js";

export interface EntityQuery {
  /** Quoted table name. */
  table: string;
  columns: ColumnSet;
  filter: unknown;
  page: PageRequest;
  /** Extra condition the caller always applies (visibility rules), built on the same params. */
  scope?: (params: SqlParams) => string;
}

/**
 * Runs a query-language filter against an entity table in one round trip: the matching ids of the
 * requested page, in order, and the total count. Hydration into full entities is the caller's.
 */
export async function findPageIds(pool: pg.Pool, query: EntityQuery): Promise<{ ids: string[]; total: number }> {
  const params = new SqlParams();
  const { sql: where } = compileFilter(query.filter, query.columns, params);
  const scope = query.scope ? ` AND ${query.scope(params)}` : "";
  const limit = params.add(query.page.size, "int");
  const offset = params.add(query.page.page * query.page.size, "bigint");
  const table = query.table;
  const sql = `SELECT (SELECT count(*) FROM ${table} t WHERE ${where}${scope})::int AS total,
    ARRAY(SELECT t.id FROM ${table} t WHERE ${where}${scope} ORDER BY ${orderBy(query.page, query.columns, "t")} LIMIT ${limit} OFFSET ${offset}) AS ids`;
  const { rows } = await pool.query<{ total: number; ids: string[] }>(sql, params.values);
  return { ids: rows[0].ids, total: rows[0].total };
}
