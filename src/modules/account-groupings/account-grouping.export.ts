import { Readable } from "node:stream";
import { NotFoundError } from "../../core/errors.js";
import { inTransaction } from "../../events/outbox.js";
import type { RequestContext } from "../../graphql/context.js";
import { defineJob, jobStarter } from "../../jobs/index.js";
import { startFileResultJob, writeFileResult } from "../file-results/file-result.service.js";
import { accountGroupingWorkbook } from "./account-grouping.service.js";
import { safeFileName } from "./grouping-workbook.js";
import { displayText } from "./localized-text.js";

export const XLSX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

/** ACCOUNT_GROUPING_EXPORT of a library-level grouping: the template workbook, into a file result. */
export const accountGroupingExportJob = defineJob<{ accountGroupingId: string }>({
  name: "account-groupings.export",
  type: "ACCOUNT_GROUPING_EXPORT",
  retry: { attempts: 3, backoffSeconds: 5 },
  async run(ctx, payload) {
    // A grouping deleted before the job ran is a NotFoundError: permanent, its message is the async result's error.
    const { bytes } = await accountGroupingWorkbook(ctx.app.prisma, payload.accountGroupingId);
    await writeFileResult(ctx, Readable.from([bytes]));
  },
});

/**
 * POST /account-groupings/{id}/export (and /account-groupings/export {accountGroupingId}): 404 at
 * once for an unknown grouping; otherwise the async result, whose target is the file result.
 */
export async function startAccountGroupingExport(ctx: RequestContext, accountGroupingId: string) {
  const startedBy = jobStarter(ctx);
  return inTransaction(ctx.app, async (tx) => {
    const grouping = await tx.accountGrouping.findUnique({ where: { id: accountGroupingId }, select: { name: true } });
    if (!grouping) throw new NotFoundError("AccountGrouping", accountGroupingId);
    return startFileResultJob(tx, {
      job: accountGroupingExportJob,
      payload: { accountGroupingId },
      fileName: `${safeFileName(displayText(grouping.name) || accountGroupingId)}.xlsx`,
      contentType: XLSX_CONTENT_TYPE,
      startedBy,
    });
  });
}
