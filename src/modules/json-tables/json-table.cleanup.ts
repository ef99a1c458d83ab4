import { defineScheduledTask } from "../../jobs/index.js";
import { deleteExpiredJsonTables } from "./json-table.service.js";

export const jsonTableCleanup = defineScheduledTask({
  name: "json-tables.cleanup",
  interval: (app) => app.config.cleanupIntervalSeconds,
  async run(app) {
    const removed = await deleteExpiredJsonTables(app);
    if (removed > 0) app.logger.info("removed expired JSON tables", { removed });
  },
});
