import { ValidationError, type Problem } from "../../core/errors.js";

export interface FileProblem {
  reason: string;
  /** Where in the file, e.g. "row 7" or "sheet Account grouping". */
  location?: string;
  values?: string[];
}

/** 400 INVALID_ACCOUNT_GROUPING_FILE: the file cannot be read as the declared layout at all. */
export function invalidGroupingFile(problems: FileProblem[]): ValidationError {
  return ValidationError.of(
    problems.map(
      (p): Problem => ({
        problemType: "INVALID_ACCOUNT_GROUPING_FILE",
        severity: "ERROR",
        reason: p.reason,
        ...(p.location ? { identifier: p.location } : {}),
        ...(p.values ? { values: p.values } : {}),
      }),
    ),
  );
}
