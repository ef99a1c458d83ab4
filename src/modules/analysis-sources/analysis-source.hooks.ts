import { registerStatusFeed, type SourceStatus } from "../analyses/analysis-status.feeds.js";
import { registerFileDeleteGuard } from "../file-manager/file-manager.guards.js";

/** Workflow state -> the status the analysis status reports for a source. */
function statusOf(workflowState: string): SourceStatus {
  if (workflowState === "COMPLETED") return "COMPLETED";
  if (workflowState === "FAILED") return "FAILED";
  return "IN_PROGRESS";
}

/** An analysis's readiness counts its sources: a missing, unfinished or failed one is a preflight error. */
registerStatusFeed("sources", async (ctx, analysis) => {
  const sources = await ctx.prisma.analysisSource.findMany({
    where: { analysisId: analysis.id },
    select: { id: true, analysisSourceTypeId: true, analysisPeriodId: true, workflowState: true, warnings: true, warningsIgnored: true },
    orderBy: { creationDate: "asc" },
  });
  return sources.map((s) => ({
    sourceId: s.id,
    analysisSourceTypeId: s.analysisSourceTypeId,
    periodId: s.analysisPeriodId,
    status: statusOf(s.workflowState),
    hasUnignoredWarnings: s.warnings.length > 0 && !s.warningsIgnored,
  }));
});

/** A file read by an analysis source whose ingestion job is running cannot be deleted. */
registerFileDeleteGuard(async (tx, fileIds) => {
  const rows = await tx.$queryRaw<Array<{ file_manager_file_id: string; id: string }>>`
    SELECT s.file_manager_file_id, s.id FROM analysis_source s
     WHERE s.file_manager_file_id = ANY(${fileIds}::text[])
       AND EXISTS (SELECT 1 FROM async_result a WHERE a.entity_id = s.id AND a.entity_type = 'ANALYSIS_SOURCE' AND a.status = 'IN_PROGRESS')`;
  return new Map(rows.map((r) => [r.file_manager_file_id, `analysis source ${r.id} is ingesting it`]));
});
