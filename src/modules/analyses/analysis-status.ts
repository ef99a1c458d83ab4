import type { SourceConfiguration } from "../catalogue/analysis-types.data.js";
import { FEATURES, type Feature } from "../catalogue/analysis-source-types.data.js";
import { periodsOverlap, type PeriodInput } from "./analysis-period.rules.js";
import type { AccountMappingCounts, AnalysisRunStatus, SourceFact } from "./analysis-status.feeds.js";

export type PreflightError =
  | "IN_PROGRESS"
  | "NOT_READY"
  | "ARCHIVED"
  | "REQUIRED_FILES_MISSING"
  | "SOURCES_NOT_READY"
  | "SOURCE_ERROR"
  | "UNVERIFIED_ACCOUNT_MAPPINGS"
  | "ANALYSIS_PERIOD_OVERLAP"
  | "SOURCE_WARNINGS_PRESENT";

export interface AnalysisStatus {
  analysisId: string;
  analysisTypeId: string;
  ready: boolean;
  reRunReady: boolean;
  status: AnalysisRunStatus;
  preflightErrors: PreflightError[];
  availableFeatures: Record<Feature, boolean>;
  sourceStatuses: Array<{ sourceId: string; analysisSourceTypeId: string; periodId: string | null; status: string }>;
  mappedAccountMappingCount: number;
  inferredAccountMappingCount: number;
  unmappedAccountMappingCount: number;
}

export interface StatusInput {
  analysis: { id: string; analysisTypeId: string; archived: boolean; interim: boolean; latestAnalysisResultId: string | null };
  periods: ReadonlyArray<PeriodInput & { id: string }>;
  type: { sourceConfigurations: readonly SourceConfiguration[]; accountMappingRequired: boolean };
  /** Features of each source type the analysis type uses. */
  sourceTypeFeatures: ReadonlyMap<string, readonly string[]>;
  sources: readonly SourceFact[];
  accountMappings: AccountMappingCounts;
  run: { status: AnalysisRunStatus; inProgress: boolean };
}

/** Source configurations that must be satisfied before a run: required, not post-analysis, fitting interim-ness. */
export function requiredSources(configurations: readonly SourceConfiguration[], interim: boolean): SourceConfiguration[] {
  return configurations.filter((c) => c.required && !c.postAnalysis && !(interim && c.disableForInterim) && !(!interim && c.interimOnly));
}

/** Which required source configurations have no source yet, per period where the scope is the period. */
export function missingRequiredSources(input: Pick<StatusInput, "analysis" | "periods" | "type" | "sources">): Array<{ sourceTypeId: string; periodId: string | null }> {
  const missing: Array<{ sourceTypeId: string; periodId: string | null }> = [];
  const present = (typeIds: string[], periodId: string | null) => input.sources.some((s) => typeIds.includes(s.analysisSourceTypeId) && (periodId === null || s.periodId === periodId));
  for (const config of requiredSources(input.type.sourceConfigurations, input.analysis.interim)) {
    const accepted = [config.sourceTypeId, ...config.alternativeRequiredSourceTypes];
    if (config.sourceScope === "CURRENT_PERIOD") {
      for (const period of input.periods) if (!present(accepted, period.id)) missing.push({ sourceTypeId: config.sourceTypeId, periodId: period.id });
    } else if (config.sourceScope === "ANALYSIS" && !present(accepted, null)) {
      missing.push({ sourceTypeId: config.sourceTypeId, periodId: null });
    }
  }
  return missing;
}

/** GET /analyses/{id}/status (wire reference section 8): readiness from what exists now. */
export function computeAnalysisStatus(input: StatusInput): AnalysisStatus {
  const errors = new Set<PreflightError>();
  if (input.analysis.archived) errors.add("ARCHIVED");
  if (input.run.inProgress) errors.add("IN_PROGRESS");
  if (periodsOverlap(input.periods)) errors.add("ANALYSIS_PERIOD_OVERLAP");
  if (missingRequiredSources(input).length > 0) errors.add("REQUIRED_FILES_MISSING");
  if (input.sources.some((s) => s.status === "FAILED")) errors.add("SOURCE_ERROR");
  if (input.sources.some((s) => s.status !== "COMPLETED" && s.status !== "FAILED" && s.status !== "CANCELLED")) errors.add("SOURCES_NOT_READY");
  if (input.sources.some((s) => s.hasUnignoredWarnings)) errors.add("SOURCE_WARNINGS_PRESENT");
  // Verified accounts without a group do not hold the run back (spec 4.3: verify marks all mappings
  // verified); they stay visible in unmappedAccountMappingCount.
  if (input.type.accountMappingRequired && input.accountMappings.unverified > 0) errors.add("UNVERIFIED_ACCOUNT_MAPPINGS");
  const usedFeatures = new Set(input.type.sourceConfigurations.flatMap((c) => input.sourceTypeFeatures.get(c.sourceTypeId) ?? []));
  const ready = errors.size === 0;
  return {
    analysisId: input.analysis.id,
    analysisTypeId: input.analysis.analysisTypeId,
    ready,
    reRunReady: ready && input.analysis.latestAnalysisResultId !== null,
    status: input.run.status,
    preflightErrors: [...errors],
    availableFeatures: Object.fromEntries(FEATURES.map((f) => [f, usedFeatures.has(f)])) as Record<Feature, boolean>,
    sourceStatuses: input.sources.map((s) => ({ sourceId: s.sourceId, analysisSourceTypeId: s.analysisSourceTypeId, periodId: s.periodId, status: s.status })),
    mappedAccountMappingCount: input.accountMappings.mapped,
    inferredAccountMappingCount: input.accountMappings.inferred,
    unmappedAccountMappingCount: input.accountMappings.unmapped,
  };
}
