import { createHash } from "node:crypto";
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type pg from "pg";

/** prisma/migrations of the project this module belongs to, whether it runs from src/ or dist/src/. */
function migrationsDir(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json")) && existsSync(join(dir, "prisma", "migrations"))) return join(dir, "prisma", "migrations");
  }
  throw new Error("prisma/migrations not found above " + import.meta.url);
}

export const MIGRATIONS_DIR = migrationsDir();

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, "migration.sql")))
    .map((entry) => {
      const sql = readFileSync(join(dir, entry.name, "migration.sql"), "utf8");
      return { name: entry.name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

// Any constant works; it only has to be the same in every process of the deployment.
const MIGRATION_LOCK = 727_215_001;

/**
 * Applies the plain SQL migrations under prisma/migrations, each in its own transaction, while
 * holding an advisory lock so several starting processes do not race. An applied migration whose
 * file changed afterwards is refused: the database and the code would disagree silently otherwise.
 */
export async function migrate(pool: pg.Pool, migrations = readMigrations()): Promise<string[]> {
  const client = await pool.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migration (
      name text PRIMARY KEY,
      checksum text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const applied = new Map<string, string>(
      (await client.query<{ name: string; checksum: string }>("SELECT name, checksum FROM schema_migration")).rows.map((r) => [r.name, r.checksum]),
    );
    const ran: string[] = [];
    for (const migration of migrations) {
      const checksum = applied.get(migration.name);
      if (checksum !== undefined) {
        if (checksum !== migration.checksum) {
          throw new Error(`Migration ${migration.name} was edited after it was applied (checksum ${checksum.slice(0, 12)} in the database, ${migration.checksum.slice(0, 12)} on disk); add a new migration instead`);
        }
        continue;
      }
      await client.query("BEGIN");
      try {
        await client.query(migration.sql);
        await client.query("INSERT INTO schema_migration (name, checksum) VALUES ($1, $2)", [migration.name, migration.checksum]);
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK");
        throw new Error(`Migration ${migration.name} failed: ${(error as Error).message}`);
      }
      ran.push(migration.name);
    }
    return ran;
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK]).catch(() => undefined);
    client.release();
  }
}
