import type { PlannedPoint, RunPlan } from "./run-plan.js";
import type { EngineRiskGroup } from "./spec.js";
import { int, text } from "./sql.js";

/**
 * Scores as the platform documents them (control-points.md, "Scoring rules"): a risk group's score
 * of an entry or transaction is sum(control point score x weight) / sum(weights), over the
 * control points of the group that this run computed (a point that could not run, e.g. for want of
 * a mapped memo, is left out of both sums); 0..10000. A group whose weights sum to 0 scores
 * nothing (risk NULL, level UNSCORED).
 */
export function weightedScore(plan: RunPlan, group: EngineRiskGroup, scoreOf: (point: PlannedPoint) => string): string {
  const { terms, total } = weightedTerms(plan, group);
  if (total === 0) return "NULL::integer";
  return `round((${terms.map((t) => `${scoreOf(t.p)}::integer * ${int(t.w)}`).join(" + ")})::numeric / ${int(total)})::integer`;
}

/** The group's terms (the points this run computed, with a weight above 0) and their weights' sum. */
function weightedTerms(plan: RunPlan, group: EngineRiskGroup): { terms: Array<{ p: PlannedPoint; w: number }>; total: number } {
  const terms = plan.points.filter((p) => p.available && (group.weights[p.definition.name] ?? 0) > 0).map((p) => ({ p, w: group.weights[p.definition.name] }));
  return { terms, total: terms.reduce((sum, t) => sum + t.w, 0) };
}

/**
 * weightedScore in two parts, for a statement that computes many rows' scores: the weighted sum
 * (`sum`, an integer, its terms grouped by weight: one multiplication per distinct weight, not
 * per point) for a column of its own, and `rounded(column)`, the score from that column. Both give
 * weightedScore's value: integer addition is exact whatever the grouping, and for a non-negative
 * sum s, round(s::numeric / w) (half away from zero) is floor((2s + w) / 2w), computed in bigint
 * (numeric division keeps at least 16 significant digits, and a quotient whose fraction is not
 * exactly one half is at least 1/(2w) from it). A negative sum takes the numeric path. The numeric
 * division per row and group, and the multiplication per point, cost 0.8 CPU-s of the 1M-line
 * ledger's transaction table (250,000 rows, 4 groups of 36 points). Null when weightedScore is NULL.
 */
export function weightedSum(plan: RunPlan, group: EngineRiskGroup, scoreOf: (point: PlannedPoint) => string): { sum: string; rounded: (column: string) => string } | null {
  const { terms, total } = weightedTerms(plan, group);
  if (total === 0) return null;
  const byWeight = new Map<number, string[]>();
  for (const t of terms) byWeight.set(t.w, [...(byWeight.get(t.w) ?? []), scoreOf(t.p)]);
  // The first term of each group as integer: the scores are smallints, whose own sum could overflow.
  const sum = [...byWeight].map(([w, scores]) => `(${scores.map((s, i) => (i === 0 ? `${s}::integer` : s)).join(" + ")}) * ${int(w)}`).join(" + ");
  return {
    sum,
    rounded: (column) => `CASE WHEN ${column} >= 0 THEN ((${column}::bigint * 2 + ${int(total)}) / ${int(2 * total)})::integer ELSE round(${column}::numeric / ${int(total)})::integer END`,
  };
}

/**
 * HIGH / MEDIUM / LOW from the group's selected risk range: the highest band whose low threshold
 * the score reaches (bands are half-open and touch; a score below the low band, or in a gap
 * between bands, takes the band below it). UNSCORED when there is no score or no selected range.
 */
export function riskLevel(group: EngineRiskGroup, score: string): string {
  const range = group.riskRange;
  if (!range) return "'UNSCORED'";
  return `CASE WHEN ${score} IS NULL THEN 'UNSCORED' WHEN ${score} >= ${int(range.high.lowThreshold)} THEN 'HIGH' WHEN ${score} >= ${int(range.medium.lowThreshold)} THEN 'MEDIUM' ELSE 'LOW' END`;
}

/**
 * The level of a score as a small code (0 HIGH, 1 MEDIUM, 2 LOW, 3 UNSCORED, RISK_LEVEL_CODES) when
 * every enabled group maps a score to the same level (each has a risk range, all with the same
 * high and medium thresholds): an entry's level is then its score's, whatever its group. Null otherwise.
 */
export function sharedRiskLevelCode(plan: RunPlan, score: string): string | null {
  const groups = enabledGroups(plan);
  const ranges = groups.map(({ group }) => group.riskRange);
  const first = ranges[0];
  if (!first || ranges.some((r) => !r || r.high.lowThreshold !== first.high.lowThreshold || r.medium.lowThreshold !== first.medium.lowThreshold)) return null;
  return `CASE WHEN ${score} >= ${int(first.high.lowThreshold)} THEN 0 WHEN ${score} >= ${int(first.medium.lowThreshold)} THEN 1 WHEN ${score} IS NOT NULL THEN 2 ELSE 3 END`;
}

/** The levels of sharedRiskLevelCode's codes, in code order. */
export const RISK_LEVEL_CODES = ["HIGH", "MEDIUM", "LOW", "UNSCORED"] as const;

/** Failed: rules-based and expert points whenever they score; graded ones from the flag threshold. */
export function failedExpression(plan: RunPlan, point: PlannedPoint, score: string): string {
  if (!point.available) return "FALSE";
  return point.graded ? `(${score} >= ${int(plan.flagThreshold)})` : `(${score} > 0)`;
}

/** The enabled groups a run scores, with their position in the configuration. */
export function enabledGroups(plan: RunPlan): Array<{ group: EngineRiskGroup; index: number }> {
  return plan.spec.riskGroups.map((group, index) => ({ group, index })).filter(({ group }) => !group.disabled);
}

/** `CASE <groupColumn> WHEN i THEN <per group i> ... END`. */
export function byGroup(plan: RunPlan, groupColumn: string, per: (index: number, group: EngineRiskGroup) => string, otherwise = "NULL"): string {
  const groups = enabledGroups(plan);
  if (groups.length === 0) return otherwise;
  return `CASE ${groupColumn} ${groups.map(({ group, index }) => `WHEN ${index} THEN ${per(index, group)}`).join(" ")} ELSE ${otherwise} END`;
}

export function categoryLiteral(group: EngineRiskGroup): string {
  return text(group.category);
}
