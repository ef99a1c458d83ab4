import { DateShape } from "./date-shape.js";
import { NumberShape } from "./number-shape.js";

export type DetectedType = "TEXT" | "NUMBER" | "DATE" | "UNKNOWN";

const numberShape = new NumberShape();
const dateShape = new DateShape();
const encoder = new TextEncoder();

/** Type of one value as the profiler sees it (for headers, samples and degroupers; strings). */
export function classifyText(value: string): DetectedType | "BLANK" {
  const text = value.trim();
  if (text === "") return "BLANK";
  const bytes = encoder.encode(text);
  if (dateShape.parse(bytes, 0, bytes.length) && !/^\d{8}$/.test(text)) return "DATE";
  if (numberShape.parse(bytes, 0, bytes.length)) return "NUMBER";
  return "TEXT";
}
