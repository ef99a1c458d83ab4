import { describe, expect, it } from "vitest";
import { ANALYSIS_SOURCE_TYPES } from "../catalogue/analysis-source-types.data.js";
import { ANALYSIS_TYPES } from "../catalogue/analysis-types.data.js";
import { ANALYSIS_SOURCE_TYPE_IDS as S, ANALYSIS_TYPE_IDS } from "../catalogue/ids.js";
import { computeAnalysisStatus, missingRequiredSources, type StatusInput } from "./analysis-status.js";
import type { SourceFact } from "./analysis-status.feeds.js";

// Pure tests of the readiness rules, with the inputs later families (sources, account mappings,
// the engine) will feed; the REST tests cover what exists today.
const features = new Map(ANALYSIS_SOURCE_TYPES.map((t) => [t.id, t.features]));
const typeOf = (id: string) => ANALYSIS_TYPES.find((t) => t.id === id)!;
const PERIODS = [
  { id: "p1", startDate: "2025-01-01", endDate: "2025-06-30" },
  { id: "p2", startDate: "2025-07-01", endDate: "2025-12-31" },
];

function input(overrides: Partial<StatusInput> & { typeId?: string; interim?: boolean } = {}): StatusInput {
  const type = typeOf(overrides.typeId ?? ANALYSIS_TYPE_IDS.GENERAL_LEDGER);
  return {
    analysis: { id: "a", analysisTypeId: type.id, archived: false, interim: overrides.interim ?? false, latestAnalysisResultId: null },
    periods: PERIODS,
    type,
    sourceTypeFeatures: features,
    sources: [],
    accountMappings: { mapped: 10, inferred: 0, unmapped: 0, unverified: 0 },
    run: { status: "NOT_STARTED", inProgress: false },
    ...overrides,
  };
}

const source = (id: string, type: string, periodId: string | null, extra: Partial<SourceFact> = {}): SourceFact => ({
  sourceId: id,
  analysisSourceTypeId: type,
  periodId,
  status: "COMPLETED",
  hasUnignoredWarnings: false,
  ...extra,
});

const journals = [source("s1", S.GENERAL_LEDGER_JOURNAL, "p1"), source("s2", S.GENERAL_LEDGER_JOURNAL, "p2")];

describe("analysis status rules", () => {
  it("needs the required source type in every period", () => {
    expect(missingRequiredSources(input({ sources: [journals[0]] }))).toEqual([{ sourceTypeId: S.GENERAL_LEDGER_JOURNAL, periodId: "p2" }]);
    const status = computeAnalysisStatus(input({ sources: journals }));
    expect(status).toMatchObject({ ready: true, reRunReady: false, preflightErrors: [] });
    expect(status.sourceStatuses).toEqual([
      { sourceId: "s1", analysisSourceTypeId: S.GENERAL_LEDGER_JOURNAL, periodId: "p1", status: "COMPLETED" },
      { sourceId: "s2", analysisSourceTypeId: S.GENERAL_LEDGER_JOURNAL, periodId: "p2", status: "COMPLETED" },
    ]);
  });

  it("reports source progress, failures and unignored warnings", () => {
    const running = computeAnalysisStatus(input({ sources: [journals[0], { ...journals[1], status: "IN_PROGRESS" }] }));
    expect(running.preflightErrors).toEqual(["SOURCES_NOT_READY"]);
    const failed = computeAnalysisStatus(input({ sources: [journals[0], { ...journals[1], status: "FAILED" }] }));
    expect(failed.preflightErrors).toEqual(["SOURCE_ERROR"]);
    const warned = computeAnalysisStatus(input({ sources: [journals[0], { ...journals[1], hasUnignoredWarnings: true }] }));
    expect(warned.preflightErrors).toEqual(["SOURCE_WARNINGS_PRESENT"]);
  });

  it("requires verified account mappings only where the analysis type does", () => {
    const unverified = { mapped: 5, inferred: 2, unmapped: 0, unverified: 3 };
    const ledger = computeAnalysisStatus(input({ sources: journals, accountMappings: unverified }));
    expect(ledger.preflightErrors).toEqual(["UNVERIFIED_ACCOUNT_MAPPINGS"]);
    expect(ledger).toMatchObject({ mappedAccountMappingCount: 5, inferredAccountMappingCount: 2, unmappedAccountMappingCount: 0 });
    const payables = computeAnalysisStatus(
      input({
        typeId: ANALYSIS_TYPE_IDS.ACCOUNTS_PAYABLE_V2,
        periods: [PERIODS[0]],
        sources: [source("ap", S.ACCOUNTS_PAYABLE_DETAIL, "p1")],
        accountMappings: unverified,
      }),
    );
    expect(payables.ready).toBe(true);
  });

  it("reports archived, in-progress runs and overlapping periods, and re-run readiness", () => {
    const archived = computeAnalysisStatus(input({ sources: journals, analysis: { ...input().analysis, archived: true } }));
    expect(archived.preflightErrors).toEqual(["ARCHIVED"]);
    const running = computeAnalysisStatus(input({ sources: journals, run: { status: "PROCESSING", inProgress: true } }));
    expect(running).toMatchObject({ status: "PROCESSING", preflightErrors: ["IN_PROGRESS"] });
    const overlapping = computeAnalysisStatus(input({ sources: journals, periods: [PERIODS[0], { ...PERIODS[1], startDate: "2025-06-30" }] }));
    expect(overlapping.preflightErrors).toEqual(["ANALYSIS_PERIOD_OVERLAP"]);
    const rerun = computeAnalysisStatus(input({ sources: journals, analysis: { ...input().analysis, latestAnalysisResultId: "r" }, run: { status: "COMPLETED", inProgress: false } }));
    expect(rerun).toMatchObject({ ready: true, reRunReady: true, status: "COMPLETED" });
  });
});
