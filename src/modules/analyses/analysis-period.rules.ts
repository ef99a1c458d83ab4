import type { Problem, ProblemType } from "../../core/errors.js";

export interface PeriodInput {
  id?: string | null;
  startDate: string;
  endDate: string;
  interimAsAtDate?: string | null;
}

export interface PeriodGap {
  analysisPeriodId: string;
  previousAnalysisPeriodId: string;
  days: number;
}

export interface TypeLimits {
  interimSupported: boolean;
  periodicSupported: boolean;
  maxPeriod: number;
}

const DAY = 86_400_000;
const day = (date: string) => Date.parse(`${date}T00:00:00Z`) / DAY;

function problem(problemType: ProblemType, identifier: string, reason: string, value?: unknown): Problem {
  return { problemType, severity: "ERROR", identifier, reason, ...(value !== undefined ? { values: [String(value)] } : {}) };
}

/** Periods with their input positions, earliest first. */
function chronological<P extends PeriodInput>(periods: readonly P[]) {
  return periods.map((period, index) => ({ period, index })).sort((a, b) => day(a.period.startDate) - day(b.period.startDate));
}

/**
 * Analysis periods (spec 2.12 and issue rules): each ends after it starts; periods do not overlap;
 * a non-periodic analysis has one period, a periodic one at most the type's maximum. An interim
 * analysis has an interim "as at" date on its latest period, on or after that period's start and
 * before its end; no other period (and no period of a non-interim analysis) has one.
 */
export function analysisPeriodProblems(periods: readonly PeriodInput[], options: { interim: boolean; periodic: boolean }, limits: TypeLimits): Problem[] {
  const problems: Problem[] = [];
  if (options.interim && !limits.interimSupported) problems.push(problem("ILLEGAL_ARGUMENT", "interim", "This analysis type does not support interim analyses", true));
  if (options.periodic && !limits.periodicSupported) problems.push(problem("ILLEGAL_ARGUMENT", "periodic", "This analysis type does not support periodic analyses", true));
  if (!options.periodic && periods.length > 1) {
    problems.push(problem("LESS_VALUE_REQUIRED", "analysisPeriods", `A non-periodic analysis has exactly one analysis period; ${periods.length} were given`, periods.length));
  }
  if (options.periodic && periods.length > limits.maxPeriod) {
    problems.push(problem("LESS_VALUE_REQUIRED", "analysisPeriods", `This analysis type allows at most ${limits.maxPeriod} analysis periods; ${periods.length} were given`, periods.length));
  }
  periods.forEach((p, i) => {
    if (day(p.endDate) <= day(p.startDate)) problems.push(problem("GREATER_VALUE_REQUIRED", `analysisPeriods[${i}].endDate`, `endDate ${p.endDate} must be after startDate ${p.startDate}`, p.endDate));
  });
  const ordered = chronological(periods);
  for (let k = 1; k < ordered.length; k++) {
    const previous = ordered[k - 1].period;
    const { period, index } = ordered[k];
    if (day(period.startDate) <= day(previous.endDate)) {
      problems.push(problem("ILLEGAL_ARGUMENT", `analysisPeriods[${index}].startDate`, `The period ${period.startDate}..${period.endDate} overlaps the period ${previous.startDate}..${previous.endDate}`, period.startDate));
    }
  }
  const latest = ordered[ordered.length - 1];
  ordered.forEach(({ period, index }) => {
    const at = `analysisPeriods[${index}].interimAsAtDate`;
    const asAt = period.interimAsAtDate;
    if (!options.interim) {
      if (asAt) problems.push(problem("ILLEGAL_ARGUMENT", at, "Only interim analyses have an interimAsAtDate", asAt));
    } else if (index !== latest.index) {
      if (asAt) problems.push(problem("ILLEGAL_ARGUMENT", at, "Only the latest analysis period of an interim analysis has an interimAsAtDate", asAt));
    } else if (!asAt) {
      problems.push(problem("ILLEGAL_ARGUMENT", at, "An interim analysis needs an interimAsAtDate on its latest analysis period"));
    } else if (day(asAt) < day(period.startDate)) {
      problems.push(problem("GREATER_VALUE_REQUIRED", at, `interimAsAtDate ${asAt} must not be before the period's startDate ${period.startDate}`, asAt));
    } else if (day(asAt) >= day(period.endDate)) {
      problems.push(problem("LESS_VALUE_REQUIRED", at, `interimAsAtDate ${asAt} must be before the period's endDate ${period.endDate}`, asAt));
    }
  });
  return problems;
}

/** Days without coverage between consecutive periods (only where there is a gap). */
export function analysisPeriodGaps(periods: ReadonlyArray<PeriodInput & { id: string }>): PeriodGap[] {
  const ordered = chronological(periods);
  const gaps: PeriodGap[] = [];
  for (let k = 1; k < ordered.length; k++) {
    const previous = ordered[k - 1].period;
    const period = ordered[k].period;
    const days = day(period.startDate) - day(previous.endDate) - 1;
    if (days > 0) gaps.push({ analysisPeriodId: period.id, previousAnalysisPeriodId: previous.id, days });
  }
  return gaps;
}

export function periodsOverlap(periods: readonly PeriodInput[]): boolean {
  const ordered = chronological(periods);
  return ordered.some((entry, k) => k > 0 && day(entry.period.startDate) <= day(ordered[k - 1].period.endDate));
}

/** Shifts a date by whole years, keeping month ends at month ends (Feb 29 -> Feb 28). */
export function addYears(date: string, years: number): string {
  const [y, m, d] = date.split("-").map(Number);
  const lastDay = new Date(Date.UTC(y + years, m, 0)).getUTCDate();
  const wasMonthEnd = d === new Date(Date.UTC(y, m, 0)).getUTCDate();
  const dayOfMonth = wasMonthEnd ? lastDay : Math.min(d, lastDay);
  return `${String(y + years).padStart(4, "0")}-${String(m).padStart(2, "0")}-${String(dayOfMonth).padStart(2, "0")}`;
}
