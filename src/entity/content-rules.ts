import { ValidationError, type Problem } from "../core/errors.js";

/**
 * Spec 2.1 rule 5: a string that is supplied needs a non-blank character; the arrays named in
 * `nonEmpty` (dotted paths, array items as `[]`) need an element. Other arrays may be empty,
 * because a read body (with its `[]` lists) must be acceptable as a create body (rule 2).
 */
export function assertContent(input: unknown, nonEmpty: readonly string[] = []): void {
  const problems: Problem[] = [];
  const visit = (value: unknown, path: string, shape: string) => {
    if (typeof value === "string") {
      if (value.trim() === "") problems.push({ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier: path, reason: `${path} must contain at least one non-blank character`, values: [value] });
    } else if (Array.isArray(value)) {
      if (value.length === 0 && nonEmpty.includes(shape)) problems.push({ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier: path, reason: `${path} must contain at least one element` });
      value.forEach((item, index) => visit(item, `${path}[${index}]`, `${shape}[]`));
    } else if (typeof value === "object" && value !== null && !(value instanceof Date)) {
      for (const [key, child] of Object.entries(value)) {
        visit(child, path ? `${path}.${key}` : key, shape ? `${shape}.${key}` : key);
      }
    }
  };
  visit(input, "", "");
  if (problems.length > 0) throw ValidationError.of(problems);
}
