import { ConflictError } from "../../core/errors.js";
import type { RequestContext } from "../../graphql/context.js";
import { sourceConfigurationsOf } from "../analysis-types/analysis-type.service.js";
import { getAnalysis, periodsOf } from "./analysis.service.js";
import { computeAnalysisStatus, type AnalysisStatus } from "./analysis-status.js";
import { statusFeeds } from "./analysis-status.feeds.js";

export async function getAnalysisStatus(ctx: RequestContext, id: string): Promise<AnalysisStatus> {
  const analysis = await getAnalysis(ctx, id);
  const type = await ctx.prisma.analysisType.findUniqueOrThrow({ where: { id: analysis.analysisTypeId } });
  const configurations = sourceConfigurationsOf(type);
  const sourceTypes = await ctx.prisma.analysisSourceType.findMany({ where: { id: { in: configurations.map((c) => c.sourceTypeId) } }, select: { id: true, features: true } });
  const feeds = statusFeeds();
  const [sources, accountMappings, run] = await Promise.all([feeds.sources(ctx, analysis), feeds.accountMappings(ctx, analysis), feeds.run(ctx, analysis)]);
  return computeAnalysisStatus({
    analysis,
    periods: periodsOf(analysis),
    type: { sourceConfigurations: configurations, accountMappingRequired: type.accountMappingRequired },
    sourceTypeFeatures: new Map(sourceTypes.map((t) => [t.id, t.features])),
    sources,
    accountMappings,
    run,
  });
}

/** Refuses (409, naming every preflight error) unless the analysis is ready to run. */
export async function assertReadyToRun(ctx: RequestContext, id: string): Promise<AnalysisStatus> {
  const status = await getAnalysisStatus(ctx, id);
  if (!status.ready) {
    throw new ConflictError(`Analysis ${id} is not ready to run: ${status.preflightErrors.join(", ")}; see GET /analyses/${id}/status`, {
      identifier: "preflightErrors",
      values: status.preflightErrors,
      entityId: id,
      entityType: "Analysis",
    });
  }
  return status;
}
