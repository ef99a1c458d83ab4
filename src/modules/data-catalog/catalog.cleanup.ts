import { defineScheduledTask } from "../../jobs/index.js";
import { quoteIdent } from "../../query-language/index.js";
import { IMPORT_SCHEMA } from "./catalog.import.js";

/**
 * Imported rows live in `imports.t_<taskId>`; deleting an analysis or engagement cascades to the data
 * table's definition but cannot drop the table. This drops every such table no data table names and
 * no running import writes.
 */
export const orphanedImportTables = defineScheduledTask({
  name: "data-catalog.orphaned-tables",
  interval: (app) => app.config.cleanupIntervalSeconds,
  async run(app) {
    const { rows } = await app.pool.query<{ tablename: string }>(
      `SELECT t.tablename FROM pg_tables t
        WHERE t.schemaname = $1
          AND NOT EXISTS (SELECT 1 FROM data_table d WHERE d.table_name = $1 || '.' || t.tablename)
          AND NOT EXISTS (SELECT 1 FROM data_source_import_task i WHERE 't_' || i.id = t.tablename AND i.status = 'IN_PROGRESS')`,
      [IMPORT_SCHEMA],
    );
    for (const { tablename } of rows) await app.pool.query(`DROP TABLE IF EXISTS ${quoteIdent(IMPORT_SCHEMA)}.${quoteIdent(tablename)}`);
    if (rows.length > 0) app.logger.info("dropped imported tables no data table uses", { dropped: rows.length });
  },
});
