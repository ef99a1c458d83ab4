/**
 * The types of the reporting period configuration's Json columns, named in
 * `prisma/schema/reporting-periods.prisma` and written into the generated client by
 * prisma-json-types-generator: reads and writes are typed.
 */
import type { MonthlyEntry, WeeklyEntry } from "./reporting-period.rules.js";

declare global {
  namespace PrismaJson {
    type ReportingPeriodMonthlyEntries = MonthlyEntry[];
    type ReportingPeriodWeeklyEntries = WeeklyEntry[];
  }
}
