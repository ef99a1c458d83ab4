import { stateDefinition, workflowPath, type WorkflowFeature, type WorkflowState } from "./states.js";

/** A move the spec does not allow; the integrator reports it as a 400 (or 409 for terminal states). */
export class WorkflowMoveError extends Error {
  constructor(
    message: string,
    readonly reason: "NOT_IN_PATH" | "BACKWARDS" | "TERMINAL" | "INVALID_TARGET" | "DETECTION_PENDING",
  ) {
    super(message);
  }
}

export interface MoveInput {
  /** The source type's features; they decide the path. */
  features: readonly WorkflowFeature[];
  /** Where the source rests now; null while it is being created. */
  current: WorkflowState | null;
  /** `targetWorkflowState` of the create/update body, if any. */
  target?: WorkflowState | null;
  /** Result of format detection; undefined while DETECTING_FORMAT has not run. */
  groupedFormatDetected?: boolean;
  /** `applyDegrouper` of the source (may be set at creation). */
  applyDegrouper?: boolean;
}

export interface StepDecision {
  /** The state entered next. */
  state: WorkflowState;
  /** True when the workflow rests in `state` (a Step reached and nothing asks to go further). */
  stop: boolean;
}

export interface WorkflowPlan {
  /** States entered in order (each Transition's job runs when entered); the last one is `stop`. Empty: no move. */
  states: WorkflowState[];
  /** Where the source rests afterwards. */
  stop: WorkflowState;
  /** True when the grouped-format formatter runs on the way (a grouped file and `applyDegrouper`). */
  degroup: boolean;
}

function pathOf(input: MoveInput): WorkflowState[] {
  return workflowPath(input.features);
}

/** Checks the target against the path and the current state; returns nothing when the move is allowed. */
export function validateMove(input: MoveInput): void {
  const path = pathOf(input);
  const { current, target } = input;
  if (current === "COMPLETED" || current === "FAILED") {
    if (target) throw new WorkflowMoveError(`The analysis source is ${current}; it cannot move to ${target}`, "TERMINAL");
    return;
  }
  if (current && !path.includes(current)) throw new WorkflowMoveError(`${current} is not a state of this source type's workflow`, "NOT_IN_PATH");
  if (!target) return;
  if (target === "FAILED" || target === "STARTED") throw new WorkflowMoveError(`${target} cannot be requested as targetWorkflowState`, "INVALID_TARGET");
  if (!path.includes(target)) throw new WorkflowMoveError(`${target} is not a state of this source type's workflow (${path.join(", ")})`, "NOT_IN_PATH");
  if (current && stateDefinition(target).order < stateDefinition(current).order) {
    throw new WorkflowMoveError(`The analysis source is at ${current}; it cannot move back to ${target}`, "BACKWARDS");
  }
}

/**
 * Decides the state after `from` (null: creation, the walk starts by entering STARTED), and whether
 * the workflow stops there. Returns null when there is nothing after `from` (COMPLETED).
 *
 * Rules (spec 3.2): a Step stops the walk when it is at or after the target (a Transition target
 * therefore continues to the next Step); without a target, creation stops at the first Step;
 * FORMAT_DETECTED stops the walk, whatever the target, only for a grouped file without
 * `applyDegrouper`, and is passed for ungrouped files; COMPLETED ends every walk.
 */
export function nextStep(input: MoveInput, from: WorkflowState | null): StepDecision | null {
  const path = pathOf(input);
  const index = from === null ? 0 : path.indexOf(from) + 1;
  if (from !== null && index === 0) throw new WorkflowMoveError(`${from} is not a state of this source type's workflow`, "NOT_IN_PATH");
  if (index >= path.length) return null;
  const state = path[index];
  const definition = stateDefinition(state);
  if (definition.kind === "Transition") return { state, stop: false };
  if (state === "COMPLETED") return { state, stop: true };
  if (state === "FORMAT_DETECTED") {
    if (input.groupedFormatDetected === undefined) {
      throw new WorkflowMoveError("FORMAT_DETECTED needs the result of format detection", "DETECTION_PENDING");
    }
    return { state, stop: input.groupedFormatDetected && !input.applyDegrouper };
  }
  const target = input.target ?? null;
  if (target === null) return { state, stop: true };
  return { state, stop: definition.order >= stateDefinition(target).order };
}

/**
 * The whole move from `current` to where the workflow will rest, given what is known. A caller that
 * runs the jobs as it goes uses `nextStep` instead (format detection is only known after
 * DETECTING_FORMAT ran); this function needs `groupedFormatDetected` whenever the walk crosses
 * FORMAT_DETECTED.
 */
export function planWorkflow(input: MoveInput): WorkflowPlan {
  validateMove(input);
  const { current } = input;
  const target = input.target ?? null;
  const noMove: WorkflowPlan = { states: [], stop: current ?? "STARTED", degroup: false };
  if (current === "COMPLETED" || current === "FAILED") return noMove;
  // An update without a target, or with the current Step as target, leaves the source where it is.
  if (current !== null && (target === null || target === current) && stateDefinition(current).kind === "Step") return noMove;

  const states: WorkflowState[] = [];
  let degroup = false;
  let from: WorkflowState | null = current;
  // Advancing from FORMAT_DETECTED (the user's decision point) applies the formatter when asked.
  if (current === "FORMAT_DETECTED" && input.applyDegrouper) degroup = true;
  for (;;) {
    const decision = nextStep(input, from);
    if (!decision) break;
    states.push(decision.state);
    if (decision.state === "FORMAT_DETECTED" && input.groupedFormatDetected && input.applyDegrouper) degroup = true;
    if (decision.stop) break;
    from = decision.state;
  }
  return { states, stop: states.at(-1) ?? noMove.stop, degroup };
}
