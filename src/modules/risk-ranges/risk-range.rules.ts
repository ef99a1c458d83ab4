import type { Problem, ProblemType } from "../../core/errors.js";
import type { RiskRangeBounds, ThresholdBound } from "../catalogue/system-libraries.data.js";

export const MAX_THRESHOLD = 10_000;
const BOUNDS = ["low", "medium", "high"] as const;

function problem(problemType: ProblemType, identifier: string, reason: string, value: number): Problem {
  return { problemType, severity: "ERROR", identifier, reason, values: [String(value)] };
}

/**
 * Risk range bounds (spec 2.12, limits 0..10000): each bound's thresholds inside the range, its
 * high threshold above its low one, and the bounds ordered low < medium < high without overlap
 * (a bound may start where the previous one ends: bounds are half-open).
 */
export function riskRangeProblems(bounds: RiskRangeBounds): Problem[] {
  const problems: Problem[] = [];
  for (const name of BOUNDS) {
    const bound = bounds[name];
    for (const key of ["lowThreshold", "highThreshold"] as const) {
      const value = bound[key];
      if (value < 0) problems.push(problem("GREATER_VALUE_REQUIRED", `${name}.${key}`, `${name}.${key} must be at least 0`, value));
      if (value > MAX_THRESHOLD) problems.push(problem("LESS_VALUE_REQUIRED", `${name}.${key}`, `${name}.${key} must be at most ${MAX_THRESHOLD}`, value));
    }
    if (bound.highThreshold <= bound.lowThreshold) {
      problems.push(problem("GREATER_VALUE_REQUIRED", `${name}.highThreshold`, `${name}.highThreshold (${bound.highThreshold}) must be greater than ${name}.lowThreshold (${bound.lowThreshold})`, bound.highThreshold));
    }
  }
  for (let i = 1; i < BOUNDS.length; i++) {
    const previous = BOUNDS[i - 1];
    const name = BOUNDS[i];
    if (bounds[name].lowThreshold < bounds[previous].highThreshold) {
      problems.push(
        problem(
          "GREATER_VALUE_REQUIRED",
          `${name}.lowThreshold`,
          `${name}.lowThreshold (${bounds[name].lowThreshold}) overlaps the ${previous} bound, which ends at ${bounds[previous].highThreshold}`,
          bounds[name].lowThreshold,
        ),
      );
    }
  }
  return problems;
}

type Row = { lowLowThreshold: number; lowHighThreshold: number; mediumLowThreshold: number; mediumHighThreshold: number; highLowThreshold: number; highHighThreshold: number };

export function boundsOf(row: Row): RiskRangeBounds {
  return {
    low: { lowThreshold: row.lowLowThreshold, highThreshold: row.lowHighThreshold },
    medium: { lowThreshold: row.mediumLowThreshold, highThreshold: row.mediumHighThreshold },
    high: { lowThreshold: row.highLowThreshold, highThreshold: row.highHighThreshold },
  };
}

export function boundColumns(bounds: { low: ThresholdBound; medium: ThresholdBound; high: ThresholdBound }): Row {
  return {
    lowLowThreshold: bounds.low.lowThreshold,
    lowHighThreshold: bounds.low.highThreshold,
    mediumLowThreshold: bounds.medium.lowThreshold,
    mediumHighThreshold: bounds.medium.highThreshold,
    highLowThreshold: bounds.high.lowThreshold,
    highHighThreshold: bounds.high.highThreshold,
  };
}
