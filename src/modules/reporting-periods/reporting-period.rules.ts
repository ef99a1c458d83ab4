import type { Problem, ProblemType } from "../../core/errors.js";
import type { REPORTING_PERIOD_TYPES } from "./reporting-period.columns.js";

export interface MonthlyEntry {
  period: number;
  quarter: number;
  year: number;
  startDate: string;
  endDate: string;
}

export interface WeeklyEntry {
  week: number;
  year: number;
  startDate: string;
  endDate: string;
}

export type ReportingPeriodType = (typeof REPORTING_PERIOD_TYPES)[number];

const DAY = 86_400_000;
export const dayNumber = (date: string) => Date.parse(`${date}T00:00:00Z`) / DAY;

function problem(problemType: ProblemType, identifier: string, reason: string, value: unknown): Problem {
  return { problemType, severity: "ERROR", identifier, reason, values: [String(value)] };
}

function rangeProblem(identifier: string, value: number, min: number, max: number): Problem | null {
  if (value < min) return problem("GREATER_VALUE_REQUIRED", identifier, `${identifier} must be at least ${min}`, value);
  if (value > max) return problem("LESS_VALUE_REQUIRED", identifier, `${identifier} must be at most ${max}`, value);
  return null;
}

interface Entry {
  startDate: string;
  endDate: string;
  year: number;
}

/**
 * Checks one list on its own: numbers in range, each entry ending on or after its start, numbers
 * unique within a year, and the entries (in date order) following each other without gap or overlap.
 */
function listProblems<E extends Entry>(list: readonly E[], name: string, numbering: { key: "period" | "week"; of: (e: E) => number; max: number; quarterOf?: (e: E) => number }, label: (e: E) => string): Problem[] {
  const { key: numberKey, max } = numbering;
  const problems: Problem[] = [];
  const seen = new Map<string, number>();
  list.forEach((entry, i) => {
    const at = `${name}[${i}]`;
    const number = numbering.of(entry);
    for (const p of [rangeProblem(`${at}.${numberKey}`, number, 1, max), rangeProblem(`${at}.year`, entry.year, 1900, 2999)]) if (p) problems.push(p);
    if (numbering.quarterOf) {
      const p = rangeProblem(`${at}.quarter`, numbering.quarterOf(entry), 1, 4);
      if (p) problems.push(p);
    }
    if (dayNumber(entry.endDate) < dayNumber(entry.startDate)) {
      problems.push(problem("GREATER_VALUE_REQUIRED", `${at}.endDate`, `${label(entry)} ends ${entry.endDate}, before it starts (${entry.startDate})`, entry.endDate));
    }
    const key = `${entry.year}/${number}`;
    if (seen.has(key)) problems.push(problem("NON_UNIQUE_VALUE", `${at}.${numberKey}`, `${label(entry)} appears twice (also ${name}[${seen.get(key)}])`, number));
    else seen.set(key, i);
  });
  const ordered = list.map((entry, index) => ({ entry, index })).sort((a, b) => dayNumber(a.entry.startDate) - dayNumber(b.entry.startDate));
  for (let k = 1; k < ordered.length; k++) {
    const previous = ordered[k - 1].entry;
    const { entry, index } = ordered[k];
    const expected = dayNumber(previous.endDate) + 1;
    const actual = dayNumber(entry.startDate);
    if (actual !== expected) {
      const how = actual < expected ? `overlaps ${label(previous)} (${previous.startDate}..${previous.endDate})` : `leaves a gap after ${label(previous)}, which ends ${previous.endDate}`;
      problems.push(problem("ILLEGAL_ARGUMENT", `${name}[${index}].startDate`, `${label(entry)} starts ${entry.startDate} and ${how}`, entry.startDate));
    }
  }
  return problems;
}

const monthLabel = (m: MonthlyEntry) => `period ${m.period} of ${m.year}`;
const weekLabel = (w: WeeklyEntry) => `week ${w.week} of ${w.year}`;

/**
 * Spec 2.12: monthly and weekly entries must describe the same date ranges. Both lists cover the
 * same first and last day, every period starts where a week starts and ends where a week ends
 * (no week straddles two periods), and each week carries the year of the period it falls in.
 */
export function reportingPeriodProblems(monthly: readonly MonthlyEntry[], weekly: readonly WeeklyEntry[]): Problem[] {
  const problems = [
    ...listProblems(monthly, "monthlyEntries", { key: "period", of: (m) => m.period, max: 13, quarterOf: (m) => m.quarter }, monthLabel),
    ...listProblems(weekly, "weeklyEntries", { key: "week", of: (w) => w.week, max: 53 }, weekLabel),
  ];
  if (problems.length > 0 || weekly.length === 0 || monthly.length === 0) return problems;

  const months = [...monthly].map((m, index) => ({ m, index })).sort((a, b) => dayNumber(a.m.startDate) - dayNumber(b.m.startDate));
  const weeks = [...weekly].map((w, index) => ({ w, index })).sort((a, b) => dayNumber(a.w.startDate) - dayNumber(b.w.startDate));
  const first = { month: months[0], week: weeks[0] };
  const last = { month: months[months.length - 1], week: weeks[weeks.length - 1] };
  if (first.week.w.startDate !== first.month.m.startDate) {
    problems.push(problem("ILLEGAL_ARGUMENT", `weeklyEntries[${first.week.index}].startDate`, `Weekly entries start ${first.week.w.startDate} but monthly entries start ${first.month.m.startDate}`, first.week.w.startDate));
  }
  if (last.week.w.endDate !== last.month.m.endDate) {
    problems.push(problem("ILLEGAL_ARGUMENT", `weeklyEntries[${last.week.index}].endDate`, `Weekly entries end ${last.week.w.endDate} but monthly entries end ${last.month.m.endDate}`, last.week.w.endDate));
  }
  const weekStarts = new Set(weekly.map((w) => w.startDate));
  const weekEnds = new Set(weekly.map((w) => w.endDate));
  const weekContaining = (date: string) => weeks.find(({ w }) => dayNumber(w.startDate) <= dayNumber(date) && dayNumber(date) <= dayNumber(w.endDate))?.w;
  for (const { m, index } of months) {
    if (!weekStarts.has(m.startDate)) {
      const straddling = weekContaining(m.startDate);
      const detail = straddling ? `; ${weekLabel(straddling)} runs ${straddling.startDate}..${straddling.endDate} across the boundary` : "; no weekly entry covers that day";
      problems.push(problem("ILLEGAL_ARGUMENT", `monthlyEntries[${index}].startDate`, `${monthLabel(m)} starts ${m.startDate}, which is no weekly entry's start${detail}`, m.startDate));
    }
    if (!weekEnds.has(m.endDate)) {
      const straddling = weekContaining(m.endDate);
      const detail = straddling ? `; ${weekLabel(straddling)} runs ${straddling.startDate}..${straddling.endDate} across the boundary` : "; no weekly entry covers that day";
      problems.push(problem("ILLEGAL_ARGUMENT", `monthlyEntries[${index}].endDate`, `${monthLabel(m)} ends ${m.endDate}, which is no weekly entry's end${detail}`, m.endDate));
    }
  }
  if (problems.length > 0) return problems;
  for (const { w, index } of weeks) {
    const month = months.find(({ m }) => dayNumber(m.startDate) <= dayNumber(w.startDate) && dayNumber(w.endDate) <= dayNumber(m.endDate))?.m;
    if (month && month.year !== w.year) {
      problems.push(problem("ILLEGAL_ARGUMENT", `weeklyEntries[${index}].year`, `${weekLabel(w)} falls in ${monthLabel(month)}, so its year must be ${month.year}`, w.year));
    }
  }
  return problems;
}

/** The type follows from the entries; a type that contradicts them is a mistake. */
export function typeProblems(type: ReportingPeriodType | null | undefined, weekly: readonly WeeklyEntry[]): Problem[] {
  if (type === "MONTHLY_AND_WEEKLY" && weekly.length === 0) return [problem("ILLEGAL_ARGUMENT", "weeklyEntries", "A MONTHLY_AND_WEEKLY configuration needs weekly entries", "[]")];
  if (type === "MONTHLY" && weekly.length > 0) return [problem("ILLEGAL_ARGUMENT", "type", "A MONTHLY configuration has no weekly entries; use MONTHLY_AND_WEEKLY", type)];
  return [];
}
