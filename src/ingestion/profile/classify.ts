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

/** Trims ASCII spaces and tabs around buf[s, e); returns the trimmed bounds packed as [s, e]. */
export function trimBounds(buf: Uint8Array, s: number, e: number, out: Int32Array): void {
  while (s < e && (buf[s] === 0x20 || buf[s] === 0x09)) s++;
  while (e > s && (buf[e - 1] === 0x20 || buf[e - 1] === 0x09)) e--;
  out[0] = s;
  out[1] = e;
}
