import type pg from "pg";
import type { ColumnSet, SqlParams } from "../../query-language/index.js";
import { findPageIds } from "./entity-query.js";
import { pageFromIds, pageRequest, type Page } from "./paging.js";

export interface PageArgs {
  filter?: unknown;
  page?: number | null;
  size?: number | null;
  sort?: readonly string[] | null;
}

/**
 * A /query endpoint in one call: validate paging and filter, find the page's ids in SQL, then
 * load those rows with `load` (usually a Prisma findMany by id) and keep the SQL order.
 */
export async function queryEntities<T extends { id: string }>(
  pool: pg.Pool,
  spec: { table: string; columns: ColumnSet; scope?: (params: SqlParams) => string },
  args: PageArgs,
  load: (ids: string[]) => Promise<T[]>,
): Promise<Page<T>> {
  const request = pageRequest(args, spec.columns);
  const { ids, total } = await findPageIds(pool, { table: spec.table, columns: spec.columns, filter: args.filter ?? {}, page: request, scope: spec.scope });
  const rows = ids.length > 0 ? await load(ids) : [];
  return pageFromIds(ids, rows, total, request);
}
