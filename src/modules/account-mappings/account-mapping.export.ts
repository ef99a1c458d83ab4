import { PassThrough } from "node:stream";
import { NotFoundError } from "../../core/errors.js";
import { inTransaction } from "../../events/outbox.js";
import type { RequestContext } from "../../graphql/context.js";
import { defineJob, jobStarter, type JobContext } from "../../jobs/index.js";
import type { App } from "../../app-types.js";
import { safeFileName } from "../account-groupings/grouping-workbook.js";
import { XLSX_CONTENT_TYPE } from "../account-groupings/account-grouping.export.js";
import { displayText } from "../account-groupings/localized-text.js";
import { startFileResultJob, writeFileResult } from "../file-results/file-result.service.js";
import { writeAccountMappingWorkbook, type MappingRow } from "./account-mapping-workbook.js";

const PAGE = 1000;

/** The engagement's mappings in account order, a page at a time, with their group's description and MAC code. */
async function* mappingRows(app: App, engagementId: string, signal: AbortSignal): AsyncGenerator<MappingRow> {
  const groups = await app.prisma.engagementAccountGroup.findMany({
    where: { engagementAccountGrouping: { engagementId } },
    select: { code: true, description: true, alias: true, macCode: true },
  });
  const byCode = new Map(groups.map((g) => [g.code, g]));
  let cursor: string | undefined;
  for (;;) {
    if (signal.aborted) throw signal.reason ?? new Error("aborted");
    const page = await app.prisma.accountMapping.findMany({
      where: { engagementId },
      orderBy: [{ account: "asc" }, { id: "asc" }],
      take: PAGE,
      ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}),
    });
    for (const m of page) {
      const group = m.code != null ? byCode.get(m.code) : undefined;
      yield {
        account: m.account,
        accountDescription: m.accountDescription,
        fundId: m.fundId,
        code: m.code,
        groupDescription: group ? group.alias || displayText(group.description) || null : null,
        macCode: group?.macCode ?? null,
        status: m.status,
        accountTags: m.accountTags,
        usedByAnalysisSources: m.usedByAnalysisSources,
      };
    }
    if (page.length < PAGE) return;
    cursor = page[page.length - 1].id;
  }
}

/** Writes the workbook into the file result while the rows stream in, never holding the whole file. */
async function exportMappings(ctx: JobContext, engagementId: string): Promise<void> {
  const output = new PassThrough();
  const writing = writeAccountMappingWorkbook(mappingRows(ctx.app, engagementId, ctx.signal), output).then(
    () => {
      if (!output.writableEnded) output.end();
    },
    (error: unknown) => {
      output.destroy(error as Error);
      throw error;
    },
  );
  const storing = writeFileResult(ctx, output).catch((error: unknown) => {
    output.destroy(error as Error); // unblocks a writer waiting on back-pressure
    throw error;
  });
  await Promise.all([writing, storing]);
}

/** ACCOUNT_MAPPING_EXPORT: one row per account mapping of the engagement, into a file result. */
export const accountMappingExportJob = defineJob<{ engagementId: string }>({
  name: "account-mappings.export",
  type: "ACCOUNT_MAPPING_EXPORT",
  retry: { attempts: 3, backoffSeconds: 5 },
  async run(ctx, payload) {
    await exportMappings(ctx, payload.engagementId);
  },
});

/** POST /account-mappings/export {engagementId}: 404 at once for an unknown engagement, else the async result. */
export async function startAccountMappingExport(ctx: RequestContext, engagementId: string) {
  const startedBy = jobStarter(ctx);
  return inTransaction(ctx.app, async (tx) => {
    const engagement = await tx.engagement.findUnique({ where: { id: engagementId }, select: { name: true } });
    if (!engagement) throw new NotFoundError("Engagement", engagementId);
    return startFileResultJob(tx, {
      job: accountMappingExportJob,
      payload: { engagementId },
      fileName: `${safeFileName(`Account mappings ${engagement.name}`)}.xlsx`,
      contentType: XLSX_CONTENT_TYPE,
      startedBy,
    });
  });
}
