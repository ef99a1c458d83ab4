import { ValidationError } from "../../core/errors.js";

export type LocalizedText = Record<string, string>;
const LANGUAGE = /^[a-z]{2,3}([-_][A-Za-z0-9]{2,8})*$/;

/** `{lang}` fields (name, description): an object of language code to non-blank text, at least one entry. */
export function assertLocalizedText(value: unknown, identifier: string): LocalizedText {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ValidationError(`${identifier} must be an object of language code to text, e.g. {"en": "Assets"}`, { identifier, values: [value], problemType: "INCORRECT_DATA_TYPE" });
  }
  const entries = Object.entries(value);
  if (entries.length === 0) throw new ValidationError(`${identifier} needs at least one language, e.g. {"en": "Assets"}`, { identifier });
  for (const [language, text] of entries) {
    if (!LANGUAGE.test(language)) throw new ValidationError(`${identifier} has "${language}", which is not a language code such as en or fr-CA`, { identifier: `${identifier}.${language}`, values: [language] });
    if (typeof text !== "string" || text.trim() === "") throw new ValidationError(`${identifier}.${language} must be non-blank text`, { identifier: `${identifier}.${language}`, values: [text] });
  }
  return value as LocalizedText;
}

export function english(text: string): LocalizedText {
  return { en: text };
}

/** The text to show when one string is needed: English, else the first language given. */
export function displayText(value: unknown): string {
  if (typeof value !== "object" || value === null) return "";
  const record = value as Record<string, unknown>;
  const text = record.en ?? Object.values(record)[0];
  return typeof text === "string" ? text : "";
}
