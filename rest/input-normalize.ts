import {
  coerceInputValue,
  getNamedType,
  getNullableType,
  isInputObjectType,
  isListType,
  isObjectType,
  type GraphQLInputType,
  type GraphQLNamedType,
} from "graphql";
import { ValidationError, type Problem } from "../src/core/errors.js";

/**
 * Spec 2.1 rules 1-3 for REST bodies: a key that belongs to the read model but not to this
 * operation's input is read-only and dropped; a key in neither is a mistake and reported by name.
 */
export function normalizeInput(value: unknown, inputType: GraphQLInputType, readType: GraphQLNamedType | undefined, path: string, problems: Problem[]): unknown {
  const type = getNullableType(inputType);
  if (value === null || value === undefined) return value;
  if (isListType(type)) {
    if (!Array.isArray(value)) return value;
    return value.map((item, index) => normalizeInput(item, type.ofType, readType, `${path}[${index}]`, problems));
  }
  if (!isInputObjectType(type) || typeof value !== "object" || Array.isArray(value)) return value;
  const inputFields = type.getFields();
  const readFields = readType && isObjectType(readType) ? readType.getFields() : undefined;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    const keyPath = path ? `${path}.${key}` : key;
    const inputField = inputFields[key];
    if (inputField) {
      const readField = readFields?.[key];
      out[key] = normalizeInput(child, inputField.type, readField ? getNamedType(readField.type) : undefined, keyPath, problems);
    } else if (!readFields?.[key]) {
      problems.push({
        problemType: "ILLEGAL_ARGUMENT",
        severity: "ERROR",
        identifier: keyPath,
        reason: `${keyPath} is not a property of this model`,
        values: [key],
        suggestedValues: Object.keys(inputFields),
      });
    }
  }
  return out;
}

/** Coerces a variable as GraphQL will, turning each failure into a problem naming the field. */
export function coercionProblems(value: unknown, type: GraphQLInputType, variable: string, isBodyRoot: boolean): Problem[] {
  const problems: Problem[] = [];
  coerceInputValue(value, type, (path, invalid, error) => {
    const parent = path.map((p) => (typeof p === "number" ? `[${p}]` : `.${p}`)).join("").replace(/^\./, "");
    // A missing required field is reported at its parent; name the field itself.
    const missing = /^Field "(\w+)" of required type "([^"]+)" was not provided/.exec(error.message);
    const identifier = missing ? (parent ? `${parent}.${missing[1]}` : missing[1]) : parent || (isBodyRoot ? "body" : variable);
    problems.push({
      problemType: missing ? "ILLEGAL_ARGUMENT" : "INCORRECT_DATA_TYPE",
      severity: "ERROR",
      identifier,
      reason: missing ? `${identifier} is required (${missing[2]})` : `${identifier}: ${error.message}`,
      ...(invalid !== undefined && !missing ? { values: [typeof invalid === "string" ? invalid : JSON.stringify(invalid) ?? String(invalid)] } : {}),
    });
  });
  return problems;
}

export function throwIfProblems(problems: Problem[]): void {
  if (problems.length > 0) throw ValidationError.of(problems);
}
