/**
 * The type of `engagement.email_subscriptions`, named in `prisma/schema/engagements.prisma` and
 * written into the generated client by prisma-json-types-generator: reads and writes are typed.
 */
declare global {
  namespace PrismaJson {
    type EngagementEmailSubscriptions = Array<{ userId: string; eventTypes: string[] }>;
  }
}

export {};
