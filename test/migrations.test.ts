import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { getDMMF } from "@prisma/get-dmmf";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate, readMigrations } from "../src/db/migrate.js";
import { createTestDatabase } from "./helpers/database.js";

const SCHEMA_DIR = new URL("../prisma/schema/", import.meta.url).pathname;

/** Column types Prisma expects for its scalar types, as information_schema spells them. */
function expectedDataType(field: { type: string; isList: boolean; nativeType?: readonly [string, readonly string[]] | null }): string {
  if (field.isList) return "ARRAY";
  const native = field.nativeType?.[0];
  if (native === "Date") return "date";
  if (native === "Char") return "character";
  if (native === "Timestamptz") return "timestamp with time zone";
  switch (field.type) {
    case "String":
      return "text";
    case "Int":
      return "integer";
    case "BigInt":
      return "bigint";
    case "Boolean":
      return "boolean";
    case "DateTime":
      return "timestamp without time zone";
    case "Json":
      return "jsonb";
    case "Float":
      return "double precision";
    case "Decimal":
      return "numeric";
    case "Bytes":
      return "bytea";
    default:
      return "USER-DEFINED";
  }
}

let pool: pg.Pool;
beforeAll(async () => {
  const { url } = await createTestDatabase();
  pool = new pg.Pool({ connectionString: url, max: 2 });
});
afterAll(async () => pool?.end());

describe("migrations", () => {
  it("match the Prisma schema column by column (drift test)", async () => {
    const files = readdirSync(SCHEMA_DIR).filter((f) => f.endsWith(".prisma"));
    const result = await getDMMF({ datamodel: files.map((f) => [join(SCHEMA_DIR, f), readFileSync(join(SCHEMA_DIR, f), "utf8")] as [string, string]) });
    if (!("datamodel" in result)) throw new Error(`schema.prisma does not parse: ${JSON.stringify(result)}`);
    const dmmf = result;
    const { rows } = await pool.query<{ table_name: string; column_name: string; data_type: string; is_nullable: string }>(
      "SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = 'public'",
    );
    const columns = new Map(rows.map((r) => [`${r.table_name}.${r.column_name}`, r]));
    const mismatches: string[] = [];
    for (const model of dmmf.datamodel.models) {
      const table = model.dbName ?? model.name;
      for (const field of model.fields) {
        if (field.kind === "object") continue;
        const key = `${table}.${field.dbName ?? field.name}`;
        const column = columns.get(key);
        if (!column) {
          mismatches.push(`${key}: in schema.prisma (${model.name}.${field.name}) but not in the migrated database`);
          continue;
        }
        const expected = expectedDataType(field as never);
        if (column.data_type !== expected) mismatches.push(`${key}: database type ${column.data_type}, Prisma expects ${expected}`);
        const nullable = !field.isRequired && !field.isList;
        if ((column.is_nullable === "YES") !== nullable && !(field.isList && column.is_nullable === "NO")) {
          mismatches.push(`${key}: database nullable=${column.is_nullable}, Prisma ${field.isRequired ? "required" : "optional"}`);
        }
      }
    }
    const modelled = new Set(dmmf.datamodel.models.flatMap((m) => m.fields.filter((f) => f.kind !== "object").map((f) => `${m.dbName ?? m.name}.${f.dbName ?? f.name}`)));
    const modelTables = new Set(dmmf.datamodel.models.map((m) => m.dbName ?? m.name));
    for (const key of columns.keys()) {
      if (modelTables.has(key.split(".")[0]) && !modelled.has(key)) mismatches.push(`${key}: in the database but not in schema.prisma`);
    }
    expect(mismatches).toEqual([]);
  });

  it("are recorded with checksums and re-running them is a no-op", async () => {
    expect(await migrate(pool)).toEqual([]);
    const { rows } = await pool.query("SELECT name, checksum FROM schema_migration ORDER BY name");
    expect(rows.map((r) => r.name)).toEqual(readMigrations().map((m) => m.name));
  });

  it("refuse a migration edited after it was applied", async () => {
    const [first, ...rest] = readMigrations();
    await expect(migrate(pool, [{ ...first, sql: first.sql + "\n-- edited", checksum: "0".repeat(64) }, ...rest])).rejects.toThrow(/was edited after it was applied/);
  });
});
