import { defineScheduledTask } from "../../jobs/index.js";
import { deleteOldTestResults } from "./connection.service.js";

/** Spec 8: connection test results older than 7 days are deleted. */
export const connectionTestResultCleanup = defineScheduledTask({
  name: "connections.test-results-cleanup",
  interval: (app) => app.config.cleanupIntervalSeconds,
  async run(app) {
    const removed = await deleteOldTestResults(app);
    if (removed > 0) app.logger.info("removed connection test results older than 7 days", { removed });
  },
});
