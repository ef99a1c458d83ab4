import type { SourceMessage } from "./analysis-source.messages.js";
import type { App } from "../../app-types.js";
import { transientEventKind } from "../../events/transient-kind.js";
import { sourceTypeOf } from "./analysis-source.source-types.js";
import { isWorkflowState, stateDefinition, workflowPath, type WorkflowFeature, type WorkflowState } from "../../ingestion/index.js";


export interface SourceProgress {
  analysisSourceId: string;
  workflowState: WorkflowState;
  /** Overall percentage of the move (0..100). */
  percent: number;
  /** Percentage within the current step, for long steps (staging, effective dates, parse), else null. */
  stepPercent: number | null;
  message: string | null;
  /**
   * The source's version when the event was published (not on the wire): orders live events
   * against a read of the source. Absent in events of processes that predate it.
   */
  sourceVersion?: number;
  /** The source's analysis and engagement (not on the wire): scope for engagement-wide subscriptions (`events`). */
  analysisId?: string;
  engagementId?: string;
}

/** Transient events of analysis source progress (not stored; subscribers see them live). */
export const sourceProgressEvents = transientEventKind<SourceProgress>("analysis-source.progress", "ANALYSIS_SOURCE");

/** States after which nothing follows: the subscription ends with them. */
export function isTerminalState(state: string): boolean {
  return state === "COMPLETED" || state === "FAILED";
}

/** The share of the overall percentage a state of the path owns: from the previous state to itself. */
function shareOf(path: readonly WorkflowState[], state: WorkflowState): { from: number; to: number } {
  const index = Math.max(0, path.indexOf(state));
  const last = Math.max(1, path.length - 1);
  return { from: (Math.max(0, index - 1) / last) * 100, to: (index / last) * 100 };
}

export function publishSourceProgress(app: App, progress: SourceProgress): void {
  sourceProgressEvents.publish(app.pubsub, progress.analysisSourceId, progress);
}

/**
 * The percentages of one walk along the source type's workflow path: each state owns the share
 * between the previous state and itself. Entering a state reports the start of its share (its
 * step's work lies ahead), progress within the step moves through the share, and reaching a
 * resting state reports its end; so the overall percentage never goes back.
 */
export function walkProgress(
  app: App,
  source: { id: string; analysisId: string; engagementId: string },
  path: readonly WorkflowState[],
  jobProgress: (percent: number, message: string) => void,
  sourceVersion: () => number,
) {
  let current: WorkflowState | null = null;
  const share = (state: WorkflowState) => shareOf(path, state);
  const publish = (state: WorkflowState, percent: number, stepPercent: number | null) => {
    jobProgress(percent, state);
    publishSourceProgress(app, {
      analysisSourceId: source.id,
      analysisId: source.analysisId,
      engagementId: source.engagementId,
      workflowState: state,
      percent: Math.round(percent),
      stepPercent: stepPercent === null ? null : Math.round(stepPercent),
      message: null,
      sourceVersion: sourceVersion(),
    });
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

/**
 * The source as last saved, as a progress event (what a subscriber gets first): a Step (resting,
 * or passed by a running walk) at the end of its share, a Transition at the start of its share or,
 * while its job runs, at the job's last recorded percentage within it; COMPLETED and FAILED at 100
 * (FAILED with its cause as message, like the live event).
 */
export async function currentSourceProgress(
  app: Pick<App, "prisma">,
  source: { id: string; version: number; workflowState: WorkflowState; analysisSourceTypeId: string; errors: SourceMessage[] },
): Promise<SourceProgress> {
  const state = source.workflowState;
  const base = { analysisSourceId: source.id, workflowState: state, stepPercent: null, message: null, sourceVersion: source.version };
  if (state === "COMPLETED") return { ...base, percent: 100 };
  if (state === "FAILED") return { ...base, percent: 100, message: source.errors[0]?.defaultMessage ?? null };
  if (!isWorkflowState(state)) return { ...base, percent: 0 };
  const type = await sourceTypeOf(app, source.analysisSourceTypeId);
  const { from, to } = shareOf(workflowPath((type?.features ?? []) as WorkflowFeature[]), state);
  if (stateDefinition(state).kind === "Step") return { ...base, percent: Math.round(to) };
  const job = await app.prisma.asyncResult.findFirst({ where: { entityId: source.id, entityType: "ANALYSIS_SOURCE", status: "IN_PROGRESS" }, select: { progress: true } });
  const recorded = job?.progress;
  if (recorded != null && recorded > from && recorded <= to) return { ...base, percent: recorded, stepPercent: Math.round(((recorded - from) / (to - from)) * 100) };
  return { ...base, percent: Math.round(from) };
}

/**
 * Whether a live event tells nothing the state read (`current`) did not: published before the
 * save that read saw (an older source version), or, at the same version, the same state at no
 * higher percentage. Every save of the source bumps its version and only the walk's job and
 * updates (refused while a job runs) save it, so events of one version follow that save.
 */
export function supersededBy(event: SourceProgress, current: SourceProgress): boolean {
  if (event.sourceVersion === undefined || current.sourceVersion === undefined) return false;
  if (event.sourceVersion !== current.sourceVersion) return event.sourceVersion < current.sourceVersion;
  return event.workflowState === current.workflowState && event.percent <= current.percent;
}
