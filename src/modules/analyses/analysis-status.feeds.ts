import type { RequestContext } from "../../graphql/context.js";

export type SourceStatus = "IMPORTING" | "UPLOADING" | "IN_PROGRESS" | "COMPLETED" | "CANCELLED" | "FAILED";
export type AnalysisRunStatus = "NOT_STARTED" | "IMPORTING_FILE" | "PREPARING_DATA" | "PROCESSING" | "CONSOLIDATING_RESULTS" | "COMPLETED" | "FAILED";

/** What the status needs to know about one analysis source. */
export interface SourceFact {
  sourceId: string;
  analysisSourceTypeId: string;
  periodId: string | null;
  status: SourceStatus;
  /** Warnings the user has not chosen to ignore. */
  hasUnignoredWarnings: boolean;
}

export interface AccountMappingCounts {
  mapped: number;
  inferred: number;
  /** Accounts without a group, verified or not (verified ones do not block a run). */
  unmapped: number;
  /** Mappings not yet verified, mapped or not (spec 4.3: verify before general ledger analyses run). */
  unverified: number;
}

export interface AnalysisRef {
  id: string;
  engagementId: string;
  latestAnalysisResultId: string | null;
}

/**
 * The status is computed from whatever exists now. Families built later (analysis sources,
 * account mappings, the analysis engine) feed it by registering here at import time; until one
 * registers, its part reads as empty: no sources, no mappings, no run in progress.
 */
export interface StatusFeeds {
  sources(ctx: RequestContext, analysis: AnalysisRef): Promise<SourceFact[]>;
  accountMappings(ctx: RequestContext, analysis: AnalysisRef): Promise<AccountMappingCounts>;
  run(ctx: RequestContext, analysis: AnalysisRef): Promise<{ status: AnalysisRunStatus; inProgress: boolean }>;
}

const feeds: StatusFeeds = {
  sources: async () => [],
  accountMappings: async () => ({ mapped: 0, inferred: 0, unmapped: 0, unverified: 0 }),
  run: async (_ctx, analysis) => ({ status: analysis.latestAnalysisResultId ? "COMPLETED" : "NOT_STARTED", inProgress: false }),
};

export function registerStatusFeed<K extends keyof StatusFeeds>(kind: K, feed: StatusFeeds[K]): void {
  feeds[kind] = feed;
}

export function statusFeeds(): Readonly<StatusFeeds> {
  return feeds;
}
