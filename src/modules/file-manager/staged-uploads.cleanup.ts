import { defineScheduledTask } from "../../jobs/index.js";

/** An upload or write still unfinished after a day was cut off by a crash; its bytes are garbage. */
export const stagingCleanup = defineScheduledTask({
  name: "storage.staging-cleanup",
  interval: (app) => app.config.cleanupIntervalSeconds,
  async run(app) {
    const removed = await app.storage.removeStaleTemporaries(24 * 3600 * 1000);
    if (removed > 0) app.logger.info("removed stale temporary uploads", { removed });
  },
});
