import type { App } from "../../app-types.js";
import { dropTables, INGEST_SCHEMA } from "../../ingestion/index.js";
import { defineScheduledTask } from "../../jobs/index.js";

/**
 * Engine tables whose analysis source is gone: sources removed with their analysis or engagement
 * (ON DELETE CASCADE, which knows nothing about the engine's tables), or a drop that failed after
 * the delete committed.
 */
export async function dropOrphanedTables(app: App): Promise<number> {
  const { rows } = await app.pool.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind = 'r' AND c.relname ~ '^(stg|entries|tx)_[0-9a-f]{24}(_ahead)?$'
        AND NOT EXISTS (SELECT 1 FROM analysis_source s WHERE s.id = substring(c.relname from '_([0-9a-f]{24})'))`,
    [INGEST_SCHEMA],
  );
  if (rows.length > 0) await dropTables(app.pool, rows.map((r) => `${INGEST_SCHEMA}.${r.name}`));
  return rows.length;
}

export const orphanedTableCleanup = defineScheduledTask({
  name: "analysis-sources.orphaned-tables",
  interval: (app) => app.config.cleanupIntervalSeconds,
  async run(app) {
    const dropped = await dropOrphanedTables(app);
    if (dropped > 0) app.logger.info("dropped ingestion tables of deleted analysis sources", { dropped });
  },
});
