import { ConflictError } from "../../core/errors.js";
import type { RequestContext } from "../../graphql/context.js";
import type { startJob } from "../../jobs/index.js";
import { assertReadyToRun } from "./analysis-status.service.js";

type AsyncResultRow = Awaited<ReturnType<typeof startJob>>;

/**
 * Starts an ANALYSIS_RUN job for a ready analysis and returns its async result (wire reference
 * section 4: the run creates its analysis result before answering). The analysis engine
 * registers it; this module only guards readiness.
 */
export type AnalysisRunner = (ctx: RequestContext, analysisId: string) => Promise<AsyncResultRow>;

let runner: AnalysisRunner | null = null;

export function registerAnalysisRunner(start: AnalysisRunner): void {
  runner = start;
}

export async function runAnalysis(ctx: RequestContext, id: string): Promise<AsyncResultRow> {
  await assertReadyToRun(ctx, id);
  if (!runner) {
    throw new ConflictError(`Analysis ${id} is ready, but this deployment has no analysis engine to run it yet`, { entityId: id, entityType: "Analysis" });
  }
  return runner(ctx, id);
}
