import type { App } from "../../app-types.js";
import { transientEventKind } from "../../events/transient-kind.js";
import type { EngineStep, RunPlan } from "../../engine/index.js";

export type RunState = "RUNNING" | "COMPLETED" | "FAILED";

export interface RunProgress {
  analysisResultId: string;
  analysisId: string;
  status: RunState;
  /** Overall percentage of the run (0..100). */
  percent: number;
  /** The step running (prepare, statistics, entries, transactions, flows, scores-tx, scores, typeahead, publish). */
  step: string | null;
  /** The control point just computed, when the event is about one. */
  controlPoint: string | null;
  controlPointsDone: number;
  controlPointsTotal: number;
  message: string | null;
}

/** Transient events of analysis run progress (subscribers see them live; not stored). */
export const runProgressEvents = transientEventKind<RunProgress>("analysis-result.progress", "ANALYSIS_RESULT");

export function publishRunProgress(app: App, progress: RunProgress): void {
  runProgressEvents.publish(app.pubsub, progress.analysisResultId, progress);
}

/** Share of the run that publishing (summary and data tables) takes after the steps. */
const PUBLISH_SHARE = 5;

/**
 * Percentages of one run: each step owns a share proportional to its cost; within a step, the
 * control points it has finished move the percentage through the share (so a step of 8 control
 * points reports each). Steps already done by an earlier attempt count as done. Steps may run side
 * by side (runSteps): each running one adds its part; an event names the step it is about.
 */
export function runProgress(app: App, plan: RunPlan, steps: readonly EngineStep[], ids: { analysisResultId: string; analysisId: string }, done: readonly string[], jobProgress: (percent: number, message: string) => void) {
  const total = steps.reduce((sum, s) => sum + s.cost, 0);
  const available = new Set(plan.points.filter((p) => p.available).map((p) => p.definition.name));
  const finished = new Set<string>();
  for (const step of steps) if (done.includes(step.name)) for (const p of step.points) if (available.has(p)) finished.add(p);
  let before = steps.filter((s) => done.includes(s.name)).reduce((sum, s) => sum + s.cost, 0);
  /** Running steps with the control points each reported so far. */
  const running = new Map<EngineStep, number>();
  const publish = (step: EngineStep | null, controlPoint: string | null, message: string | null) => {
    let inSteps = 0;
    for (const [s, n] of running) inSteps += s.points.length > 0 ? s.cost * Math.min(1, n / s.points.length) : 0;
    const percent = Math.round(((before + inSteps) / Math.max(total, 1)) * (100 - PUBLISH_SHARE));
    jobProgress(percent, message ?? step?.name ?? "");
    publishRunProgress(app, {
      ...ids,
      status: "RUNNING",
      percent,
      step: step?.name ?? null,
      controlPoint,
      controlPointsDone: finished.size,
      controlPointsTotal: available.size,
      message,
    });
  };
  return {
    started(step: EngineStep) {
      running.set(step, 0);
      publish(step, null, `step ${step.name}`);
    },
    points(step: EngineStep, names: readonly string[]) {
      for (const name of names) {
        running.set(step, (running.get(step) ?? 0) + 1);
        if (!available.has(name) || finished.has(name)) continue;
        finished.add(name);
        publish(step, name, `computed ${name} (${finished.size} of ${available.size} control points)`);
      }
    },
    finished(step: EngineStep) {
      for (const p of step.points) if (available.has(p)) finished.add(p);
      before += step.cost;
      running.delete(step);
      publish(step, null, `step ${step.name} done`);
    },
    publishing() {
      publish(null, null, "publishing the result's data tables");
    },
  };
}
