/**
 * What the workbook readers share: the reader interface the row source consumes, and how typed
 * cells become the text the profiler and staging read. Dates come from the cell's type (a number
 * shown with a date format, or a date cell) and are written as ISO `yyyy-MM-dd` (with
 * ` HH:mm:ss` when they carry a time), which no field order can misread; numbers are written
 * plainly, as Excel keeps them (15 significant digits), never as displayed.
 */

/** Receives one row: its index in the sheet (row number - 1) and its cells; false stops reading. */
export type SheetReader = (index: number, cells: readonly string[]) => boolean | void;

export interface WorkbookReader {
  kind: "XLSX" | "XLS";
  sheetNames: string[];
  /** Streams the rows of a sheet in order (rows the sheet leaves out are not reported). */
  rows(sheet: number, onRow: SheetReader, afterChunk?: () => Promise<void> | void): Promise<void>;
  close(): void;
}

/**
 * Whether a number format shows dates or times: any of d, m, y, h, s outside quoted text, escaped
 * characters and [bracketed] colours or locales ([h] elapsed time counts), as spreadsheet
 * programs decide it.
 */
export function isDateFormat(code: string): boolean {
  if (/^general$/i.test(code.trim())) return false;
  const stripped = code
    .replace(/"[^"]*"/g, "")
    .replace(/\\./g, "")
    .replace(/_./g, "")
    .replace(/\*./g, "")
    .replace(/\[(h+|m+|s+)\]/gi, "h")
    .replace(/\[[^\]]*\]/g, "");
  // The section for positive numbers decides.
  const section = stripped.split(";")[0];
  return /[dmyhs]/i.test(section) && !/^[#0.,%E+\- ]*$/i.test(section);
}

const DAY_MS = 86_400_000;
const EPOCH_1900 = Date.UTC(1899, 11, 30);
const EPOCH_1904 = Date.UTC(1904, 0, 1);

/**
 * A date serial number as ISO text. The 1900 system counts 1900-02-29 (serial 60), which never
 * existed: serials below 61 are a day off from the usual epoch.
 */
export function renderSerialDate(serial: number, date1904 = false): string | null {
  if (!Number.isFinite(serial) || serial < 0 || serial > 2_958_465) return null;
  let days = Math.floor(serial);
  let seconds = Math.round((serial - days) * 86_400);
  if (seconds >= 86_400) {
    days++;
    seconds = 0;
  }
  const epoch = date1904 ? EPOCH_1904 : EPOCH_1900;
  const shift = !date1904 && days < 61 ? 1 : 0;
  const date = new Date(epoch + (days + shift) * DAY_MS).toISOString().slice(0, 10);
  if (seconds === 0) return date;
  const hh = String(Math.floor(seconds / 3600)).padStart(2, "0");
  const mm = String(Math.floor((seconds % 3600) / 60)).padStart(2, "0");
  const ss = String(seconds % 60).padStart(2, "0");
  return `${date} ${hh}:${mm}:${ss}`;
}

/**
 * A number cell's value as plain text: as stored when it has at most 15 significant digits (what
 * Excel keeps), else rounded to 15, so that binary artefacts (1234.5599999999999) read as the
 * number the user typed.
 */
export function renderNumber(raw: string | number): string {
  const text = typeof raw === "number" ? String(raw) : raw.trim();
  if (/^-?\d{1,15}$/.test(text)) return text;
  const plain = /^-?(\d+)\.(\d+)$/.exec(text);
  if (plain && (plain[1].replace(/^0+/, "") + plain[2]).replace(/^0+/, "").length <= 15) return text;
  const value = Number(text);
  if (!Number.isFinite(value)) return text;
  const rounded = Number(value.toPrecision(15));
  const out = String(rounded);
  // Plain decimals for what JavaScript would write with an exponent (1e-7, 1.5e+21).
  if (!out.includes("e")) return out;
  return Math.abs(rounded) >= 1e21 ? out.toUpperCase() : rounded.toFixed(20).replace(/\.?0+$/, "");
}
