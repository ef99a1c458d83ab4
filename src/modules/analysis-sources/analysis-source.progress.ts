import type { App } from "../../app-services.js";

/** Transient event type of analysis source progress (not stored; subscribers see it live). */
export const SOURCE_PROGRESS_EVENT = "analysis-source.progress";

export interface SourceProgress {
  analysisSourceId: string;
  workflowState: string;
  /** Overall percentage of the move (0..100). */
  percent: number;
  /** Percentage within the current step, for long steps (staging), else null. */
  stepPercent: number | null;
  message: string | null;
}

export function publishSourceProgress(app: App, progress: SourceProgress): void {
  app.pubsub.publish("transient-event", {
    type: SOURCE_PROGRESS_EVENT,
    entityType: "ANALYSIS_SOURCE",
    entityId: progress.analysisSourceId,
    payload: { ...progress },
    occurredAt: new Date().toISOString(),
  });
}
