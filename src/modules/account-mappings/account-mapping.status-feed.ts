import { registerStatusFeed } from "../analyses/analysis-status.feeds.js";
import { accountMappingCounts } from "./account-mapping.service.js";

/** An analysis's status (readiness, preflight UNVERIFIED_ACCOUNT_MAPPINGS) counts its engagement's mappings. */
registerStatusFeed("accountMappings", async (ctx, analysis) => {
  const counts = await accountMappingCounts(ctx.prisma, analysis.engagementId);
  return {
    mapped: counts.mappedAccountMappingCount,
    inferred: counts.inferredAccountMappingCount,
    unmapped: counts.unmappedAccountMappingCount,
    unverified: counts.unverifiedAccountMappingCount,
  };
});
