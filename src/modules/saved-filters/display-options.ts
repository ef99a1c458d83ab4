import { ValidationError, type Problem } from "../../core/errors.js";

/**
 * `displayCurrencyCode` (an ISO 4217 code: the plain-English descriptions print amounts in it) and
 * `displayLocale` (a BCP 47 language tag) of saved filters and populations.
 */
export function displayOptionProblems(input: { displayCurrencyCode?: string | null; displayLocale?: string | null }): Problem[] {
  const problems: Problem[] = [];
  if (input.displayCurrencyCode != null && !/^[A-Z]{3}$/.test(input.displayCurrencyCode)) {
    problems.push({ identifier: "displayCurrencyCode", problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", reason: "displayCurrencyCode must be an ISO 4217 currency code (three capital letters, like USD)", values: [input.displayCurrencyCode] });
  }
  if (input.displayLocale != null && !validLocale(input.displayLocale)) {
    problems.push({ identifier: "displayLocale", problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", reason: "displayLocale must be a BCP 47 language tag (like en or en-US)", values: [input.displayLocale] });
  }
  return problems;
}

export function assertDisplayOptions(input: { displayCurrencyCode?: string | null; displayLocale?: string | null }): void {
  const problems = displayOptionProblems(input);
  if (problems.length > 0) throw ValidationError.of(problems);
}

function validLocale(tag: string): boolean {
  if (!/^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$/.test(tag)) return false;
  try {
    return Intl.getCanonicalLocales(tag.replace(/_/g, "-")).length === 1;
  } catch {
    return false;
  }
}
