/**
 * The type of `app_user.recent_logins` (kept by src/auth/recent-logins.ts in SQL), named in
 * `prisma/schema/users.prisma` and written into the generated client by prisma-json-types-generator.
 */
declare global {
  namespace PrismaJson {
    type UserRecentLogins = Array<{ ipAddress: string; timestamp: string }>;
  }
}

export {};
