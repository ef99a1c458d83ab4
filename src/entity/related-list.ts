import type pg from "pg";
import type { PrismaClient } from "../generated/prisma/client.js";
import { combinedFilter, compileFilter, orderByClause, parseSort, quoteIdent, SqlParams, type ColumnSet, type SortOrder } from "../query-language/index.js";
import { ValidationError } from "../core/errors.js";
import { MAX_PAGE_SIZE } from "./paging.js";
import { rowReader, type ModelName, type ModelShape } from "./row-reader.js";

export interface RelatedListSpec<M extends ModelName> {
  model: M;
  /** The child entity's query-language columns: the same filter and sort rules as its /query endpoint. */
  columns: ColumnSet;
  /** The column (field name in `columns`) that points at the parent. */
  parentField: string;
  /** Order when the caller gives no sort (id always breaks ties). */
  defaultSort?: SortOrder[];
}

export interface RelatedListArgs {
  filter?: unknown;
  /** The typed form of the filter (GraphQL `where`). */
  where?: unknown;
  sort?: readonly string[] | null;
  /** At most this many children per parent (all when absent). */
  first?: number | null;
}

interface Db {
  pool: pg.Pool;
  prisma: PrismaClient;
}

interface Batch<M extends ModelName> {
  /** Parent id -> callers waiting for that parent's children. */
  waiting: Map<string, Array<{ resolve: (rows: Array<ModelShape<M>>) => void; reject: (error: unknown) => void }>>;
  compiled: { where: string; order: string; params: SqlParams; first: number | null };
}

/**
 * A relation list field of GraphQL (`Organization.engagements`, `AccountGrouping.groups`) with the
 * query language: the same `filter` and `sort` as the child's root list field, translated by the
 * same module. Every parent of one response that asks with the same arguments is answered by one
 * SQL statement (`parent = ANY(...) AND filter`), so a page of 20 organizations costs two queries,
 * not forty. Lists are not paged: they hold what the relation held before (all children).
 */
export function relatedList<M extends ModelName>(spec: RelatedListSpec<M>) {
  const parentColumn = spec.columns.byField.get(spec.parentField)?.sql;
  if (!parentColumn) throw new Error(`${spec.columns.subject} has no column ${spec.parentField}`);
  // Batches live for one request (keyed by its context object) and one tick.
  const batches = new WeakMap<object, Map<string, Batch<M>>>();

  return function load(db: Db, requestKey: object, parentId: string, args: RelatedListArgs): Promise<Array<ModelShape<M>>> {
    const filter = combinedFilter(args.filter, args.where);
    const key = JSON.stringify([filter, args.sort ?? null, args.first ?? null]);
    let byKey = batches.get(requestKey);
    if (!byKey) batches.set(requestKey, (byKey = new Map()));
    let batch = byKey.get(key);
    if (!batch) {
      // Validated here, synchronously: a bad filter or sort is a 400 naming the key, as on /query.
      const params = new SqlParams();
      const { sql: where } = compileFilter(filter, spec.columns, params, { alias: "t" });
      const sort = args.sort && args.sort.length > 0 ? parseSort(args.sort, spec.columns) : (spec.defaultSort ?? []);
      const first = args.first ?? null;
      if (first !== null && (!Number.isInteger(first) || first < 1 || first > MAX_PAGE_SIZE)) {
        throw new ValidationError(`first must be an integer from 1 to ${MAX_PAGE_SIZE}`, { identifier: "first", values: [first] });
      }
      const created: Batch<M> = { waiting: new Map(), compiled: { where, order: orderByClause(sort, spec.columns, "t"), params, first } };
      batch = created;
      byKey.set(key, created);
      setImmediate(() => {
        byKey!.delete(key);
        void run(db, created);
      });
    }
    const target = batch;
    return new Promise((resolve, reject) => {
      const list = target.waiting.get(parentId) ?? [];
      list.push({ resolve, reject });
      target.waiting.set(parentId, list);
    });
  };

  async function run(db: Db, batch: Batch<M>): Promise<void> {
    try {
      const { where, order, params, first } = batch.compiled;
      const parents = params.add([...batch.waiting.keys()], "text[]");
      const reader = rowReader(db.prisma, spec.model);
      const parent = `t.${quoteIdent(parentColumn!)}`;
      // With `first`, each parent's first n children in the list's order (a window per parent).
      const sql =
        first === null
          ? `SELECT t.id, ${parent} AS parent FROM ${reader.table} t WHERE ${parent} = ANY(${parents}) AND ${where} ORDER BY ${order}`
          : `SELECT id, parent FROM (SELECT t.id, ${parent} AS parent, row_number() OVER (PARTITION BY ${parent} ORDER BY ${order}) AS n FROM ${reader.table} t WHERE ${parent} = ANY(${parents}) AND ${where}) s WHERE n <= ${params.add(first, "int")} ORDER BY n`;
      const { rows } = await db.pool.query<{ id: string; parent: string }>(sql, params.values);
      const loaded = new Map((await reader.byIds(db.pool, rows.map((r) => r.id))).map((row) => [(row as { id: string }).id, row]));
      const byParent = new Map<string, Array<ModelShape<M>>>();
      for (const { id, parent } of rows) {
        const row = loaded.get(id);
        if (!row) continue; // deleted between the two statements
        let list = byParent.get(parent);
        if (!list) byParent.set(parent, (list = []));
        list.push(row);
      }
      for (const [parentId, callers] of batch.waiting) for (const caller of callers) caller.resolve(byParent.get(parentId) ?? []);
    } catch (error) {
      for (const callers of batch.waiting.values()) for (const caller of callers) caller.reject(error);
    }
  }
}
