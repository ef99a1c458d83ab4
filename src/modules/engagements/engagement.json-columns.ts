/**
 * The types of `engagement.email_subscriptions` and `engagement.frequency`, named in
 * `prisma/schema/engagements.prisma` and written into the generated client by
 * prisma-json-types-generator: reads and writes are typed.
 */
import type { FREQUENCIES } from "./engagement.columns.js";

declare global {
  namespace PrismaJson {
    type EngagementEmailSubscriptions = Array<{ userId: string; eventTypes: string[] }>;
    /** Accounting period frequency (wire reference 7). */
    type EngagementFrequency = (typeof FREQUENCIES)[number];
  }
}
