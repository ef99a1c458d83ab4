import { describe, expect, it } from "vitest";
import { nextStep, planWorkflow, validateMove, WorkflowMoveError } from "./planner.js";
import {
  effectiveDateMetricsAvailable,
  stateDefinition,
  updateRefusal,
  UPDATABLE_STATES,
  WORKFLOW_STATES,
  workflowPath,
  type WorkflowFeature,
  type WorkflowState,
} from "./states.js";

const GL: WorkflowFeature[] = ["FORMAT_DETECTION", "DATA_VALIDATION", "COLUMN_MAPPING", "EFFECTIVE_DATE_METRICS", "TRANSACTION_ID_SELECTION", "PARSE", "CONFIRM_SETTINGS"];
const FUND_GL: WorkflowFeature[] = [...GL, "REVIEW_FUNDS"];
const BALANCES: WorkflowFeature[] = ["FORMAT_DETECTION", "DATA_VALIDATION", "COLUMN_MAPPING", "PARSE"];
const ALL_GL_PATH = workflowPath(GL);

function expectMoveError(fn: () => unknown, reason: WorkflowMoveError["reason"]) {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(WorkflowMoveError);
    expect((error as WorkflowMoveError).reason).toBe(reason);
    return;
  }
  throw new Error("expected a WorkflowMoveError");
}

describe("workflow definition (spec 3.1)", () => {
  it("lists every state with the spec's kind and feature, in order", () => {
    const table: [WorkflowState, string, string | null][] = [
      ["STARTED", "Transition", null],
      ["DETECTING_FORMAT", "Transition", "FORMAT_DETECTION"],
      ["FORMAT_DETECTED", "Step", "FORMAT_DETECTION"],
      ["FORMAT_DETECTION_COMPLETED", "Transition", "FORMAT_DETECTION"],
      ["ANALYZING_COLUMNS", "Transition", "DATA_VALIDATION"],
      ["COLUMNS_ANALYZED", "Step", "DATA_VALIDATION"],
      ["DATA_VALIDATION_CONFIRMED", "Step", "COLUMN_MAPPING"],
      ["COLUMN_MAPPINGS_CONFIRMED", "Transition", "COLUMN_MAPPING"],
      ["ANALYZING_EFFECTIVE_DATE_METRICS", "Transition", "EFFECTIVE_DATE_METRICS"],
      ["EFFECTIVE_DATE_METRICS_ANALYZED", "Step", "EFFECTIVE_DATE_METRICS"],
      ["ANALYSIS_PERIOD_SELECTED", "Transition", "EFFECTIVE_DATE_METRICS"],
      ["CHECKING_INTEGRITY", "Transition", "TRANSACTION_ID_SELECTION"],
      ["INTEGRITY_CHECKED", "Step", "TRANSACTION_ID_SELECTION"],
      ["PARSING", "Transition", "PARSE"],
      ["PARSED", "Step", "PARSE"],
      ["FUNDS_REVIEWED", "Step", "REVIEW_FUNDS"],
      ["SETTINGS_CONFIRMED", "Transition", "CONFIRM_SETTINGS"],
      ["COMPLETED", "Step", null],
      ["FAILED", "Step", null],
    ];
    expect(WORKFLOW_STATES.map((d) => [d.state, d.kind, d.feature])).toEqual(table);
  });

  it("builds each source type's path from its features", () => {
    expect(workflowPath(FUND_GL)).toContain("FUNDS_REVIEWED");
    expect(workflowPath(GL)).not.toContain("FUNDS_REVIEWED");
    expect(workflowPath(BALANCES)).toEqual([
      "STARTED", "DETECTING_FORMAT", "FORMAT_DETECTED", "FORMAT_DETECTION_COMPLETED", "ANALYZING_COLUMNS", "COLUMNS_ANALYZED",
      "DATA_VALIDATION_CONFIRMED", "COLUMN_MAPPINGS_CONFIRMED", "PARSING", "PARSED", "COMPLETED",
    ]);
    expect(workflowPath(GL)).not.toContain("FAILED");
  });
});

describe("moves (spec 3.2), one block per row", () => {
  it("any current state + target: every state between is passed, a Step target stops there", () => {
    // Every resting (Step) state combined with every later Step target of the GL path.
    const steps = ALL_GL_PATH.filter((s) => stateDefinition(s).kind === "Step" && s !== "COMPLETED" && s !== "FORMAT_DETECTED");
    for (const current of steps) {
      for (const target of steps.filter((s) => stateDefinition(s).order > stateDefinition(current).order)) {
        const plan = planWorkflow({ features: GL, current, target, groupedFormatDetected: false });
        const expected = ALL_GL_PATH.slice(ALL_GL_PATH.indexOf(current) + 1, ALL_GL_PATH.indexOf(target) + 1);
        expect(plan.states, `${current} -> ${target}`).toEqual(expected);
        expect(plan.stop).toBe(target);
      }
    }
  });

  it("any current state + Transition target: the workflow continues to the next Step", () => {
    const transitions = ALL_GL_PATH.filter((s) => stateDefinition(s).kind === "Transition" && stateDefinition(s).order > stateDefinition("COLUMNS_ANALYZED").order);
    for (const target of transitions) {
      const plan = planWorkflow({ features: GL, current: "COLUMNS_ANALYZED", target, groupedFormatDetected: false });
      const nextStepAfter = ALL_GL_PATH.slice(ALL_GL_PATH.indexOf(target)).find((s) => stateDefinition(s).kind === "Step");
      expect(plan.stop, `target ${target}`).toBe(nextStepAfter);
      expect(plan.states).toContain(target);
    }
    expect(planWorkflow({ features: GL, current: "COLUMNS_ANALYZED", target: "ANALYSIS_PERIOD_SELECTED" }).stop).toBe("INTEGRITY_CHECKED");
    expect(planWorkflow({ features: GL, current: "PARSED", target: "SETTINGS_CONFIRMED" }).stop).toBe("COMPLETED");
  });

  it("creation without targetWorkflowState: first valid Step, then stops", () => {
    const plan = planWorkflow({ features: GL, current: null, groupedFormatDetected: false });
    expect(plan.states).toEqual(["STARTED", "DETECTING_FORMAT", "FORMAT_DETECTED", "FORMAT_DETECTION_COMPLETED", "ANALYZING_COLUMNS", "COLUMNS_ANALYZED"]);
    expect(plan.stop).toBe("COLUMNS_ANALYZED");
    // A source type without format detection and data validation stops at its own first Step.
    expect(planWorkflow({ features: ["COLUMN_MAPPING", "PARSE"], current: null }).stop).toBe("DATA_VALIDATION_CONFIRMED");
  });

  it("creation with targetWorkflowState COMPLETED: full automation to COMPLETED", () => {
    const plan = planWorkflow({ features: GL, current: null, target: "COMPLETED", groupedFormatDetected: false });
    expect(plan.states).toEqual(ALL_GL_PATH);
    expect(plan.stop).toBe("COMPLETED");
    expect(planWorkflow({ features: FUND_GL, current: null, target: "COMPLETED", groupedFormatDetected: false }).states).toEqual(workflowPath(FUND_GL));
  });

  it("DETECTING_FORMAT, grouped format and applyDegrouper not set: FORMAT_DETECTED stops, whatever the target", () => {
    for (const target of [undefined, "COLUMNS_ANALYZED", "COMPLETED"] as const) {
      const plan = planWorkflow({ features: GL, current: null, target, groupedFormatDetected: true, applyDegrouper: false });
      expect(plan.stop).toBe("FORMAT_DETECTED");
      expect(plan.degroup).toBe(false);
    }
    expect(nextStep({ features: GL, current: null, groupedFormatDetected: true }, "DETECTING_FORMAT")).toEqual({ state: "FORMAT_DETECTED", stop: true });
  });

  it("DETECTING_FORMAT, grouped format and applyDegrouper true (set at creation): continues, formatter applied", () => {
    const plan = planWorkflow({ features: GL, current: null, target: "COMPLETED", groupedFormatDetected: true, applyDegrouper: true });
    expect(plan.stop).toBe("COMPLETED");
    expect(plan.degroup).toBe(true);
    const noTarget = planWorkflow({ features: GL, current: null, groupedFormatDetected: true, applyDegrouper: true });
    expect(noTarget.stop).toBe("COLUMNS_ANALYZED");
    expect(noTarget.degroup).toBe(true);
  });

  it("FORMAT_DETECTED target with an ungrouped format: ignored, continues to the next Step", () => {
    const plan = planWorkflow({ features: GL, current: null, target: "FORMAT_DETECTED", groupedFormatDetected: false });
    expect(plan.stop).toBe("COLUMNS_ANALYZED");
    expect(plan.states).toContain("FORMAT_DETECTED");
    expect(plan.degroup).toBe(false);
  });

  it("FORMAT_DETECTED, advance with applyDegrouper true: next state, formatter applied", () => {
    const plan = planWorkflow({ features: GL, current: "FORMAT_DETECTED", target: "COLUMNS_ANALYZED", groupedFormatDetected: true, applyDegrouper: true });
    expect(plan.states).toEqual(["FORMAT_DETECTION_COMPLETED", "ANALYZING_COLUMNS", "COLUMNS_ANALYZED"]);
    expect(plan.degroup).toBe(true);
  });

  it("ANALYZING_COLUMNS completes: COLUMNS_ANALYZED, after the column analysis job", () => {
    expect(stateDefinition("ANALYZING_COLUMNS").job).toBe("ANALYZE_COLUMNS");
    expect(nextStep({ features: GL, current: null }, "ANALYZING_COLUMNS")).toEqual({ state: "COLUMNS_ANALYZED", stop: true });
  });

  it("DATA_VALIDATION_CONFIRMED reached: column mappings applied there", () => {
    expect(stateDefinition("DATA_VALIDATION_CONFIRMED").job).toBe("APPLY_COLUMN_MAPPINGS");
    const plan = planWorkflow({ features: GL, current: "COLUMNS_ANALYZED", target: "DATA_VALIDATION_CONFIRMED" });
    expect(plan.states).toEqual(["DATA_VALIDATION_CONFIRMED"]);
  });

  it("EFFECTIVE_DATE_METRICS_ANALYZED reached: the effective-date-metrics endpoint becomes usable", () => {
    const order = ALL_GL_PATH;
    for (const state of order) {
      const usable = order.indexOf(state) >= order.indexOf("EFFECTIVE_DATE_METRICS_ANALYZED");
      expect(effectiveDateMetricsAvailable(state), state).toBe(usable);
    }
    expect(effectiveDateMetricsAvailable("FAILED")).toBe(false);
  });

  it("CHECKING_INTEGRITY entered: previews generated, INTEGRITY_CHECKED next", () => {
    expect(stateDefinition("CHECKING_INTEGRITY").job).toBe("CHECK_INTEGRITY");
    expect(nextStep({ features: GL, current: null, target: "COMPLETED" }, "CHECKING_INTEGRITY")).toEqual({ state: "INTEGRITY_CHECKED", stop: false });
    expect(nextStep({ features: GL, current: null, target: "INTEGRITY_CHECKED" }, "CHECKING_INTEGRITY")).toEqual({ state: "INTEGRITY_CHECKED", stop: true });
  });

  it("INTEGRITY_CHECKED with a changed transactionIdSelection: stays at INTEGRITY_CHECKED", () => {
    for (const target of [undefined, "INTEGRITY_CHECKED"] as const) {
      const plan = planWorkflow({ features: GL, current: "INTEGRITY_CHECKED", target });
      expect(plan).toEqual({ states: [], stop: "INTEGRITY_CHECKED", degroup: false });
    }
    expect(updateRefusal("INTEGRITY_CHECKED", false)).toBeNull();
  });

  it("final Step of the source type, advance: COMPLETED", () => {
    expect(planWorkflow({ features: BALANCES, current: "PARSED", target: "COMPLETED" }).states).toEqual(["COMPLETED"]);
    expect(planWorkflow({ features: GL, current: "PARSED", target: "COMPLETED" }).states).toEqual(["SETTINGS_CONFIRMED", "COMPLETED"]);
    expect(planWorkflow({ features: FUND_GL, current: "FUNDS_REVIEWED", target: "COMPLETED" }).states).toEqual(["SETTINGS_CONFIRMED", "COMPLETED"]);
    expect(nextStep({ features: GL, current: null }, "COMPLETED")).toBeNull();
  });

  it("any state, error in a workflow process: FAILED, which is terminal", () => {
    expect(stateDefinition("FAILED").kind).toBe("Step");
    expectMoveError(() => validateMove({ features: GL, current: "FAILED", target: "COMPLETED" }), "TERMINAL");
    expectMoveError(() => validateMove({ features: GL, current: "COMPLETED", target: "PARSED" }), "TERMINAL");
    expectMoveError(() => validateMove({ features: GL, current: "PARSED", target: "FAILED" }), "INVALID_TARGET");
  });

  it("refuses moves backwards and targets outside the source type's path", () => {
    expectMoveError(() => planWorkflow({ features: GL, current: "INTEGRITY_CHECKED", target: "COLUMNS_ANALYZED" }), "BACKWARDS");
    expectMoveError(() => planWorkflow({ features: GL, current: "PARSED", target: "FUNDS_REVIEWED" }), "NOT_IN_PATH");
    expectMoveError(() => planWorkflow({ features: GL, current: null, target: "COMPLETED" }), "DETECTION_PENDING");
  });

  it("update and delete rules", () => {
    expect(UPDATABLE_STATES).toEqual(["FORMAT_DETECTED", "COLUMNS_ANALYZED", "DATA_VALIDATION_CONFIRMED", "EFFECTIVE_DATE_METRICS_ANALYZED", "INTEGRITY_CHECKED", "PARSED", "FUNDS_REVIEWED"]);
    expect(updateRefusal("COMPLETED", false)).toMatch(/only in/);
    expect(updateRefusal("PARSING", false)).toMatch(/only in/);
    expect(updateRefusal("PARSED", true)).toMatch(/in progress/);
  });
});
