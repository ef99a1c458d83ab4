import { defineScheduledTask } from "../../jobs/index.js";
import type { App } from "../../app-types.js";

/**
 * An upload or write still unfinished after TEMP_FILE_MAX_AGE_SECONDS was cut off by a crash:
 * writes touch their temporary file with every chunk, and an idle connection is closed long
 * before (HTTP idle timeout), so its bytes are garbage.
 */
export const stagingCleanup = defineScheduledTask({
  name: "storage.staging-cleanup",
  interval: (app) => app.config.cleanupIntervalSeconds,
  async run(app) {
    const removed = await app.storage.removeStaleTemporaries(app.config.tempFileMaxAgeSeconds * 1000);
    if (removed > 0) app.logger.info("removed stale temporary uploads", { removed });
    const orphans = await removeUnreferencedObjects(app);
    if (orphans > 0) app.logger.info("removed stored bytes no entity refers to", { removed: orphans });
  },
});

/**
 * Stored bytes whose entity does not exist: a process that died between writing the bytes (an
 * atomic rename) and committing the row that names them (`files/<id>` of a file manager file, an
 * export's file result, a chunked file's parts, a JSON table's pages). Only entries older than
 * TEMP_FILE_MAX_AGE_SECONDS are considered, so a write about to commit is never touched.
 */
const REFERENCES: Array<{ prefix: string; table: string }> = [
  { prefix: "files", table: "file_manager_entity" },
  { prefix: "file-results", table: "file_result" },
  { prefix: "chunked", table: "chunked_file" },
  { prefix: "json-tables", table: "json_table" },
];

export async function removeUnreferencedObjects(app: App): Promise<number> {
  const cutoff = Date.now() - app.config.tempFileMaxAgeSeconds * 1000;
  let removed = 0;
  for (const { prefix, table } of REFERENCES) {
    const candidates: string[] = [];
    for await (const entry of app.storage.list(prefix)) if (entry.modifiedMs < cutoff && /^[0-9a-f]{24}$/.test(entry.name)) candidates.push(entry.name);
    for (let i = 0; i < candidates.length; i += 1000) {
      const batch = candidates.slice(i, i + 1000);
      const { rows } = await app.pool.query<{ id: string }>(`SELECT id FROM ${table} WHERE id = ANY($1)`, [batch]);
      const known = new Set(rows.map((r) => r.id));
      for (const id of batch) {
        if (known.has(id)) continue;
        await app.storage.deletePrefix(`${prefix}/${id}`);
        removed++;
      }
    }
  }
  return removed;
}
