import { describe, expect, it } from "vitest";
import type { WorkflowState } from "../../ingestion/index.js";
import { supersededBy, type SourceProgress } from "./analysis-source.progress.js";

const at = (workflowState: WorkflowState, percent: number, sourceVersion?: number): SourceProgress => ({ analysisSourceId: "s", workflowState, percent, stepPercent: null, message: null, sourceVersion });

describe("live progress events against the state read when subscribing", () => {
  const read = at("PARSING", 70, 12);

  it("drops what the read already covers: older versions, the same state at no higher percentage", () => {
    expect(supersededBy(at("CHECKING_INTEGRITY", 50, 11), read)).toBe(true);
    expect(supersededBy(at("PARSING", 70, 11), read)).toBe(true);
    expect(supersededBy(at("PARSING", 65, 12), read)).toBe(true);
    expect(supersededBy(at("PARSING", 70, 12), read)).toBe(true);
  });

  it("keeps what follows it: progress further on, states after it, newer versions, events without a version", () => {
    expect(supersededBy(at("PARSING", 71, 12), read)).toBe(false);
    expect(supersededBy(at("PARSED", 88, 12), read)).toBe(false);
    expect(supersededBy(at("PARSED", 88, 13), read)).toBe(false);
    expect(supersededBy(at("FAILED", 100, 13), read)).toBe(false);
    expect(supersededBy(at("PARSING", 10), read)).toBe(false);
  });
});
