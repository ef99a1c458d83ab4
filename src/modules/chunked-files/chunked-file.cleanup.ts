import { defineScheduledTask } from "../../jobs/index.js";
import { deleteExpiredChunkedFiles } from "./chunked-file.service.js";

export const chunkedFileCleanup = defineScheduledTask({
  name: "chunked-files.cleanup",
  interval: (app) => app.config.cleanupIntervalSeconds,
  async run(app) {
    const removed = await deleteExpiredChunkedFiles(app);
    if (removed > 0) app.logger.info("removed expired chunked files", { removed });
  },
});
