/**
 * The types of the reporting period configuration's Json columns and its `type`, named in
 * `prisma/schema/reporting-periods.prisma` and written into the generated client by
 * prisma-json-types-generator: reads and writes are typed.
 */
import type { MonthlyEntry, ReportingPeriodType as ReportingPeriodTypeValue, WeeklyEntry } from "./reporting-period.rules.js";

declare global {
  namespace PrismaJson {
    type ReportingPeriodMonthlyEntries = MonthlyEntry[];
    type ReportingPeriodWeeklyEntries = WeeklyEntry[];
    /** reporting_period_configuration.type (a text column holding the GraphQL enum's values). */
    type ReportingPeriodType = ReportingPeriodTypeValue;
  }
}
