import type pg from "pg";
import type { PrismaClient } from "../generated/prisma/client.js";
import { rowReader, type ModelName, type ModelShape } from "./row-reader.js";

interface Db {
  pool: pg.Pool;
  prisma: PrismaClient;
}

type Waiting<M extends ModelName> = Map<string, Array<{ resolve: (row: ModelShape<M> | null) => void; reject: (error: unknown) => void }>>;

/**
 * The entity an id field names (`DataTable.engagement`, `FileManagerFile.parent`), loaded the
 * DataLoader way: every id asked for by one request in the same tick is read by one SQL statement
 * (`id = ANY(...)`, the prepared statement of `rowReader`), so a page of 100 rows each naming its
 * engagement costs one query, not a hundred. For ids that have no Prisma relation to follow
 * (tables linked without a foreign key, or through the file manager's own tree).
 */
export function relatedOne<M extends ModelName>(model: M) {
  const batches = new WeakMap<object, Waiting<M>>();

  return function load(db: Db, requestKey: object, id: string | null | undefined): Promise<ModelShape<M> | null> {
    if (!id) return Promise.resolve(null);
    let waiting = batches.get(requestKey);
    if (!waiting) {
      const created: Waiting<M> = new Map();
      waiting = created;
      batches.set(requestKey, created);
      setImmediate(() => {
        batches.delete(requestKey);
        void run(db, created);
      });
    }
    const target = waiting;
    return new Promise((resolve, reject) => {
      const list = target.get(id) ?? [];
      list.push({ resolve, reject });
      target.set(id, list);
    });
  };

  async function run(db: Db, waiting: Waiting<M>): Promise<void> {
    try {
      const rows = await rowReader(db.prisma, model).byIds(db.pool, [...waiting.keys()]);
      const byId = new Map(rows.map((row) => [(row as { id: string }).id, row]));
      for (const [id, callers] of waiting) for (const caller of callers) caller.resolve(byId.get(id) ?? null);
    } catch (error) {
      for (const callers of waiting.values()) for (const caller of callers) caller.reject(error);
    }
  }
}

const shared = new Map<ModelName, ReturnType<typeof relatedOne>>();

/**
 * The one loader of a model's rows by id for every relation field that names it, so that
 * `Analysis.analysisType` and `AnalysisResult.analysisType` asked in one response share a statement.
 */
export function relatedById<M extends ModelName>(model: M): ReturnType<typeof relatedOne<M>> {
  let load = shared.get(model);
  if (!load) shared.set(model, (load = relatedOne(model)));
  return load as unknown as ReturnType<typeof relatedOne<M>>;
}
