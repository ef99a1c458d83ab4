import { ValidationError, type Problem } from "../errors.js";

/**
 * Spec 2.1 rule 5: strings that are supplied need a non-blank character and arrays need an
 * element. `allowEmpty` names the dotted paths (array items as `[]`) where an empty array is meaningful.
 */
export function assertContent(input: unknown, allowEmpty: readonly string[] = []): void {
  const problems: Problem[] = [];
  const visit = (value: unknown, path: string, shape: string) => {
    if (typeof value === "string") {
      if (value.trim() === "") problems.push({ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier: path, reason: `${path} must contain at least one non-blank character`, values: [value] });
    } else if (Array.isArray(value)) {
      if (value.length === 0 && !allowEmpty.includes(shape)) problems.push({ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier: path, reason: `${path} must contain at least one element` });
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
