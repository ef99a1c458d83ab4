import type { App } from "../../app-types.js";
import { dropTables, INGEST_SCHEMA } from "../../ingestion/index.js";
import { defineScheduledTask } from "../../jobs/index.js";
import { ARRIVAL_TABLE_TTL_MS, arrivalTableCreated } from "./file-arrival.js";

/**
 * Staging tables loaded while files arrived that no analysis source took over within
 * ARRIVAL_TABLE_TTL_MS (nobody ingested the file, or a source read it otherwise, e.g. degrouped),
 * or whose upload never became a file (the process died before it could drop them).
 */
export async function dropStaleArrivalTables(app: App, now = Date.now()): Promise<number> {
  const { rows } = await app.pool.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r' AND c.relname LIKE 'arr\\_%'`,
    [INGEST_SCHEMA],
  );
  const stale = rows.map((r) => r.name).filter((name) => {
    const created = arrivalTableCreated(name);
    return created !== null && now - created.getTime() > ARRIVAL_TABLE_TTL_MS;
  });
  if (stale.length > 0) await dropTables(app.pool, stale.map((name) => `${INGEST_SCHEMA}.${name}`));
  return stale.length;
}

/** The arrival staging tables of files about to be deleted (drop them once the delete committed). */
export async function arrivalTablesOf(db: Pick<App, "pool">, fileManagerFileIds: string[]): Promise<string[]> {
  if (fileManagerFileIds.length === 0) return [];
  const { rows } = await db.pool.query<{ t: string | null }>(
    "SELECT tabular_reading->'staged'->>'table' AS t FROM file_info WHERE file_manager_file_id = ANY($1) AND tabular_reading ? 'staged'",
    [fileManagerFileIds],
  );
  return rows.map((r) => r.t).filter((t): t is string => !!t && arrivalTableCreated(t) !== null);
}

export const arrivalTableCleanup = defineScheduledTask({
  name: "file-infos.arrival-tables",
  interval: (app) => app.config.cleanupIntervalSeconds,
  async run(app) {
    const dropped = await dropStaleArrivalTables(app);
    if (dropped > 0) app.logger.info("dropped staging tables of arrived files no analysis source took over", { dropped });
  },
});
