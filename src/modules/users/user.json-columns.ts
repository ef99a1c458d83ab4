/**
 * The types of `app_user.recent_logins` (kept by src/auth/recent-logins.ts in SQL) and
 * `app_user.role`, named in `prisma/schema/users.prisma` and written into the generated client by
 * prisma-json-types-generator.
 */
import type { ROLES } from "./user.columns.js";

declare global {
  namespace PrismaJson {
    type UserRecentLogins = Array<{ ipAddress: string; timestamp: string }>;
    /** A user's role (wire reference 7). */
    type UserRole = (typeof ROLES)[number];
  }
}
