import { defineScheduledTask } from "../../jobs/index.js";
import { deleteOrphanedFiles } from "./file-manager.service.js";

/** Files of deleted engagements (the engagement module knows nothing about files) go too. */
export const orphanedFileCleanup = defineScheduledTask({
  name: "file-manager.orphans",
  interval: (app) => app.config.cleanupIntervalSeconds,
  async run(app) {
    const removed = await deleteOrphanedFiles(app);
    if (removed > 0) app.logger.info("removed files of deleted engagements", { removed });
  },
});
