import type { App } from "../../app-types.js";
import { dropResultTables, resultIdsWithTables } from "../../engine/index.js";
import { defineScheduledTask } from "../../jobs/index.js";

/**
 * Tables of results that are gone: results removed with their analysis or engagement (ON DELETE
 * CASCADE knows nothing of the engine's tables), or a drop that failed after a failed run.
 */
export async function dropOrphanedResultTables(app: App): Promise<number> {
  const ids = await resultIdsWithTables(app.pool);
  if (ids.length === 0) return 0;
  const { rows } = await app.pool.query<{ id: string }>("SELECT id FROM analysis_result WHERE id = ANY($1::text[]) AND status <> 'FAILED'", [ids]);
  const alive = new Set(rows.map((r) => r.id));
  const orphans = ids.filter((id) => !alive.has(id));
  for (const id of orphans) await dropResultTables(app.pool, id);
  return orphans.length;
}

export const orphanedResultTableCleanup = defineScheduledTask({
  name: "analysis-results.orphaned-tables",
  interval: (app) => app.config.cleanupIntervalSeconds,
  async run(app) {
    const dropped = await dropOrphanedResultTables(app);
    if (dropped > 0) app.logger.info("dropped the tables of deleted or failed analysis results", { dropped });
  },
});
