import type { CellValue } from "exceljs";
import { binaryFormat } from "../../tabular/bytes.js";

/** The text of a spreadsheet cell as a person reads it: codes stay strings, formulas give their result. */
export function cellText(value: CellValue | undefined): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value.trim();
  if (typeof value === "number") return String(value);
  if (typeof value === "boolean") return value ? "TRUE" : "FALSE";
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if (typeof value === "object") {
    if ("richText" in value && Array.isArray(value.richText)) return value.richText.map((part) => part.text).join("").trim();
    if ("text" in value && typeof value.text === "string") return value.text.trim();
    if ("result" in value) return cellText(value.result as CellValue);
    if ("error" in value) return "";
  }
  return String(value).trim();
}

/** Excel files are ZIP archives; anything else is refused before the parser sees it. */
export function looksLikeXlsx(bytes: Uint8Array): boolean {
  return bytes.length > 4 && binaryFormat(bytes) === "zip";
}
