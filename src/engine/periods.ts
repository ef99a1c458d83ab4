import type { EngineSpec } from "./spec.js";
import { date } from "./sql.js";

/**
 * Period arithmetic as SQL expressions over a date column. Analysis periods are the analysis's;
 * reporting periods are the monthly entries of the analysis's reporting period configuration when
 * it has one, else calendar months (docs/control-points.md, "Periods").
 */
export function periodExpressions(spec: Pick<EngineSpec, "periods" | "reportingPeriods">) {
  const periods = [...spec.periods].sort((a, b) => a.startDate.localeCompare(b.startDate));
  const reporting = [...spec.reportingPeriods].sort((a, b) => a.startDate.localeCompare(b.startDate));
  const analysis = (column: string, pick: "startDate" | "endDate") =>
    periods.length === 0 ? "NULL::date" : `CASE ${periods.map((p) => `WHEN ${column} BETWEEN ${date(p.startDate)} AND ${date(p.endDate)} THEN ${date(p[pick])}`).join(" ")} END`;
  const reportingBound = (column: string, pick: "startDate" | "endDate") => {
    if (reporting.length === 0) {
      // As timestamp, not timestamptz (a date's implicit cast): the same dates (the 1st of a month,
      // infinities kept) without a time zone lookup per row, half the cost on a million entries.
      const month = `date_trunc('month', (${column})::timestamp)`;
      return pick === "startDate" ? `${month}::date` : `(${month} + interval '1 month - 1 day')::date`;
    }
    return `CASE ${reporting.map((p) => `WHEN ${column} BETWEEN ${date(p.startDate)} AND ${date(p.endDate)} THEN ${date(p[pick])}`).join(" ")} END`;
  };
  return {
    /** Start of the analysis period holding the date (NULL outside every period). */
    analysisStart: (column: string) => analysis(column, "startDate"),
    analysisEnd: (column: string) => analysis(column, "endDate"),
    /** Start of the reporting period (month) holding the date. */
    reportingStart: (column: string) => reportingBound(column, "startDate"),
    reportingEnd: (column: string) => reportingBound(column, "endDate"),
    /** The reporting period before the one starting at `startColumn`. */
    previousReportingStart: (startColumn: string) => {
      if (reporting.length === 0) return `(${startColumn} - interval '1 month')::date`;
      const pairs = reporting.slice(1).map((p, i) => `WHEN ${date(p.startDate)} THEN ${date(reporting[i].startDate)}`);
      return pairs.length === 0 ? "NULL::date" : `CASE ${startColumn} ${pairs.join(" ")} END`;
    },
    /** Last day of the last analysis period. */
    lastEnd: periods.length === 0 ? null : periods[periods.length - 1].endDate,
    periods,
  };
}
