import { AUDIT_COLUMNS, defineColumns, enumOf, TEXT } from "../../query-language/index.js";

/** Reporting period configuration `type`, as stored (the GraphQL enum ReportingPeriodType). */
export const REPORTING_PERIOD_TYPES = ["MONTHLY", "MONTHLY_AND_WEEKLY"] as const;

/** Spec 4.4: reporting period configurations filter on id, type, name and originalName. */
export const reportingPeriodColumns = defineColumns("reporting period configurations", {
  ...AUDIT_COLUMNS,
  type: enumOf(REPORTING_PERIOD_TYPES),
  name: TEXT,
  originalName: TEXT,
});
