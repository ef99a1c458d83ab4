/**
 * Progress within the set-based steps (ANALYZING_EFFECTIVE_DATE_METRICS, PARSING). Each is one or
 * two long SQL statements (an aggregate, a CREATE TABLE AS) about which PostgreSQL reports nothing
 * while they run: its progress views cover COPY, CREATE INDEX, ANALYZE, VACUUM and CLUSTER only,
 * and a table being created is invisible to other sessions. So these steps report milestones (a
 * statement done) and, between them, an estimate from the time elapsed against the time expected.
 * The timer only publishes an event: it adds no work to the database or the step.
 */

/** What staging (the one step with real progress) tells about the machine: rows and duration. */
export interface StagingPace {
  rowCount: number;
  /** Wall time of the staging pass, when it was measured. */
  ms?: number | null;
}

export type SetBasedWork = "effectiveDates" | "parse" | "transactions";

/** Duration relative to staging the same rows, from the 1M-line benchmark (docs/benchmarks.md). */
const RELATIVE_TO_STAGING: Record<SetBasedWork, number> = { effectiveDates: 0.34, parse: 0.62, transactions: 0.3 };
/** The same per row, for sources staged before the staging time was kept. */
const MICROSECONDS_PER_ROW: Record<SetBasedWork, number> = { effectiveDates: 1.15, parse: 2.1, transactions: 1.0 };

/** Expected duration of `work` over this source's staged rows, scaled by how fast its staging went. */
export function expectedMs(pace: StagingPace | null | undefined, work: SetBasedWork): number {
  if (pace?.ms && pace.ms > 0) return pace.ms * RELATIVE_TO_STAGING[work];
  return ((pace?.rowCount ?? 0) * MICROSECONDS_PER_ROW[work]) / 1000;
}

/**
 * Reports `from` at once, then every `intervalMs` the share of `from..to` that the elapsed time is
 * of `expectedMs`, held below `to` (a slower run waits there rather than claiming to be done).
 * Returns the function that stops the timer; the caller then reports the next milestone.
 */
export function estimatePhase(report: (stepPercent: number) => void, from: number, to: number, expected: number, intervalMs = 250): () => void {
  report(from);
  const started = performance.now();
  const timer = setInterval(() => {
    const fraction = Math.min(0.95, (performance.now() - started) / Math.max(1, expected));
    report(from + (to - from) * fraction);
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
