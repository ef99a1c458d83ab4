import { Readable } from "node:stream";
import { NotFoundError, ValidationError } from "../../core/errors.js";
import { inTransaction } from "../../events/outbox.js";
import type { RequestContext } from "../../graphql/context.js";
import { defineJob, jobStarter } from "../../jobs/index.js";
import { safeFileName } from "../account-groupings/grouping-workbook.js";
import { XLSX_CONTENT_TYPE } from "../account-groupings/account-grouping.export.js";
import { displayText } from "../account-groupings/localized-text.js";
import { startFileResultJob, writeFileResult } from "../file-results/file-result.service.js";
import { engagementAccountGroupingWorkbook } from "./engagement-account-grouping.service.js";

/** ACCOUNT_GROUPING_EXPORT of an engagement's grouping (hidden groups included), into a file result. */
export const engagementAccountGroupingExportJob = defineJob<{ engagementAccountGroupingId: string }>({
  name: "engagement-account-groupings.export",
  type: "ACCOUNT_GROUPING_EXPORT",
  retry: { attempts: 3, backoffSeconds: 5 },
  async run(ctx, payload) {
    const { bytes } = await engagementAccountGroupingWorkbook(ctx.app.prisma, payload.engagementAccountGroupingId);
    await writeFileResult(ctx, Readable.from([bytes]));
  },
});

/**
 * POST /engagement-account-groupings/{id}/export, or /engagement-account-groupings/export with
 * `{engagementAccountGroupingId}` or `{engagementId}` (an engagement has exactly one grouping).
 */
export async function startEngagementAccountGroupingExport(ctx: RequestContext, target: { id?: string | null; engagementId?: string | null }) {
  if ((target.id == null) === (target.engagementId == null)) {
    throw new ValidationError("Name the grouping to export: engagementAccountGroupingId or engagementId (exactly one)", {
      identifier: "engagementAccountGroupingId",
    });
  }
  const startedBy = jobStarter(ctx);
  return inTransaction(ctx.app, async (tx) => {
    const grouping =
      target.id != null
        ? await tx.engagementAccountGrouping.findUnique({ where: { id: target.id }, select: { id: true, name: true } })
        : await tx.engagementAccountGrouping.findUnique({ where: { engagementId: target.engagementId! }, select: { id: true, name: true } });
    if (!grouping) {
      throw target.id != null ? new NotFoundError("EngagementAccountGrouping", target.id) : new NotFoundError("Engagement", target.engagementId!);
    }
    return startFileResultJob(tx, {
      job: engagementAccountGroupingExportJob,
      payload: { engagementAccountGroupingId: grouping.id },
      fileName: `${safeFileName(displayText(grouping.name) || grouping.id)}.xlsx`,
      contentType: XLSX_CONTENT_TYPE,
      startedBy,
    });
  });
}
