import type pg from "pg";
import type { PrismaClient } from "../generated/prisma/client.js";
import { quoteIdent } from "../query-language/index.js";

export type ModelName = Exclude<keyof PrismaClient, `$${string}` | symbol>;
export type ModelShape<M extends ModelName> = NonNullable<Awaited<ReturnType<PrismaClient[M]["findUnique"]>>>;

interface RuntimeField {
  name: string;
  kind: string;
  type: string;
  dbName?: string | null;
}

/**
 * Reads entity rows by id with one prepared `pg` statement, shaped exactly like the Prisma model
 * (field names, JSON parsed, 64-bit integers as BigInt). Reads by id are the hottest path of the API
 * and Prisma's query pipeline roughly doubles their cost (docs/benchmarks.md); writes, transactions
 * and relations stay on Prisma. The column list comes from Prisma's own runtime data model, so the
 * two cannot drift apart.
 */
export class RowReader<M extends ModelName> {
  private readonly selectList: string;
  /** The model's table, quoted. */
  readonly table: string;
  private readonly bigints: string[];

  constructor(prisma: PrismaClient, readonly model: M) {
    const runtime = (prisma as unknown as { _runtimeDataModel?: { models: Record<string, { dbName: string | null; fields: RuntimeField[] }> } })._runtimeDataModel;
    const modelName = model.charAt(0).toUpperCase() + model.slice(1);
    const definition = runtime?.models[modelName];
    if (!definition) throw new Error(`Prisma runtime data model has no model ${modelName}`);
    const scalars = definition.fields.filter((f) => f.kind === "scalar" || f.kind === "enum");
    this.table = quoteIdent(definition.dbName ?? modelName);
    this.selectList = scalars.map((f) => (f.dbName ? `${quoteIdent(f.dbName)} AS ${quoteIdent(f.name)}` : quoteIdent(f.name))).join(", ");
    this.bigints = scalars.filter((f) => f.type === "BigInt").map((f) => f.name);
  }

  private shape(row: Record<string, unknown>): ModelShape<M> {
    for (const field of this.bigints) if (row[field] !== null && row[field] !== undefined) row[field] = BigInt(row[field] as string);
    return row as ModelShape<M>;
  }

  async byId(pool: pg.Pool, id: string): Promise<ModelShape<M> | undefined> {
    const { rows } = await pool.query({ name: `row-reader:${this.model}:one`, text: `SELECT ${this.selectList} FROM ${this.table} WHERE id = $1`, values: [id] });
    return rows[0] ? this.shape(rows[0]) : undefined;
  }

  async byIds(pool: pg.Pool, ids: readonly string[]): Promise<Array<ModelShape<M>>> {
    if (ids.length === 0) return [];
    const { rows } = await pool.query({ name: `row-reader:${this.model}:many`, text: `SELECT ${this.selectList} FROM ${this.table} WHERE id = ANY($1::text[])`, values: [ids] });
    return rows.map((row) => this.shape(row));
  }
}

const readers = new WeakMap<PrismaClient, Map<string, RowReader<ModelName>>>();

/** The (cached) reader of one model for this Prisma client. */
export function rowReader<M extends ModelName>(prisma: PrismaClient, model: M): RowReader<M> {
  let byModel = readers.get(prisma);
  if (!byModel) readers.set(prisma, (byModel = new Map()));
  let reader = byModel.get(model);
  if (!reader) byModel.set(model, (reader = new RowReader(prisma, model) as unknown as RowReader<ModelName>));
  return reader as unknown as RowReader<M>;
}
