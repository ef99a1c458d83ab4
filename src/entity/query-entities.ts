import type pg from "pg";
import type { PrismaClient } from "../generated/prisma/client.js";
import { combinedFilter, type ColumnSet, type SqlParams } from "../query-language/index.js";
import { NotFoundError } from "../core/errors.js";
import { findPageIds } from "./entity-query.js";
import { pageFromIds, pageRequest, type Page } from "./paging.js";
import { rowReader, type ModelName, type ModelShape } from "./row-reader.js";

export interface PageArgs {
  filter?: unknown;
  /** The typed form of the filter (GraphQL `where`); combined with `filter` when both are given. */
  where?: unknown;
  page?: number | null;
  size?: number | null;
  sort?: readonly string[] | null;
}

interface Db {
  pool: pg.Pool;
  prisma: PrismaClient;
}

/** Reads one entity by id or throws 404 naming it. */
export async function findEntity<M extends ModelName>(db: Db, model: M, entityType: string, id: string): Promise<ModelShape<M>> {
  const row = await rowReader(db.prisma, model).byId(db.pool, id);
  if (!row) throw new NotFoundError(entityType, id);
  return row;
}

/**
 * A /query endpoint in one call: validate paging and filter, find the page's ids and the total in
 * one SQL round trip, then read those rows and keep the SQL order.
 */
export async function queryEntities<M extends ModelName>(
  db: Db,
  spec: { model: M; columns: ColumnSet; scope?: (params: SqlParams) => string },
  args: PageArgs,
): Promise<Page<ModelShape<M>>> {
  const reader = rowReader(db.prisma, spec.model);
  const request = pageRequest(args, spec.columns);
  const { ids, total } = await findPageIds(db.pool, { table: reader.table, columns: spec.columns, filter: combinedFilter(args.filter, args.where), page: request, scope: spec.scope });
  const rows = await reader.byIds(db.pool, ids);
  return pageFromIds(ids, rows as Array<ModelShape<M> & { id: string }>, total, request);
}
