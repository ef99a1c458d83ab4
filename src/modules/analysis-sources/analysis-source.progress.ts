import type { App } from "../../app-services.js";
import type { WorkflowState } from "../../ingestion/index.js";

/** Transient event type of analysis source progress (not stored; subscribers see it live). */
export const SOURCE_PROGRESS_EVENT = "analysis-source.progress";

export interface SourceProgress {
  analysisSourceId: string;
  workflowState: string;
  /** Overall percentage of the move (0..100). */
  percent: number;
  /** Percentage within the current step, for long steps (staging, effective dates, parse), else null. */
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

/**
 * The percentages of one walk along the source type's workflow path: each state owns the share
 * between the previous state and itself. Entering a state reports the start of its share (its
 * step's work lies ahead), progress within the step moves through the share, and reaching a
 * resting state reports its end; so the overall percentage never goes back.
 */
export function walkProgress(app: App, sourceId: string, path: readonly WorkflowState[], jobProgress: (percent: number, message: string) => void) {
  let current: WorkflowState | null = null;
  const share = (state: WorkflowState) => {
    const index = Math.max(0, path.indexOf(state));
    const last = Math.max(1, path.length - 1);
    return { from: (Math.max(0, index - 1) / last) * 100, to: (index / last) * 100 };
  };
  const publish = (state: WorkflowState, percent: number, stepPercent: number | null) => {
    jobProgress(percent, state);
    publishSourceProgress(app, { analysisSourceId: sourceId, workflowState: state, percent: Math.round(percent), stepPercent: stepPercent === null ? null : Math.round(stepPercent), message: null });
  };
  return {
    entered(state: WorkflowState) {
      current = state;
      // COMPLETED ends the subscriptions: it is announced once committed (reached), not on entry.
      if (state !== "COMPLETED") publish(state, share(state).from, null);
    },
    reached(state: WorkflowState) {
      current = state;
      publish(state, share(state).to, null);
    },
    /** Progress within the step of the state last entered (0..100 of the step). */
    within(stepPercent: number) {
      if (!current) return;
      const p = Math.max(0, Math.min(100, stepPercent));
      const { from, to } = share(current);
      publish(current, from + ((to - from) * p) / 100, p);
    },
  };
}
