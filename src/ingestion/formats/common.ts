import { classifyText } from "../profile/classify.js";
import type { GroupedFormat } from "../types.js";

/** One flattened row and the file record it came from. */
export interface FlatRow {
  values: string[];
  index: number;
}

/**
 * Turns the records of a grouped report (after its header row) into flat rows, one record at a
 * time: it only remembers the group it is in (the transaction or the account section), never rows.
 */
export interface Degrouper {
  /** Column names of the flat rows. */
  readonly header: string[];
  push(values: string[], index: number): FlatRow[];
}

export interface GroupedFormatDefinition {
  format: GroupedFormat;
  /** Confidence in 0..1 from the header row and sample rows below it. */
  detect(header: string[], rows: string[][]): number;
  create(header: string[]): Degrouper;
}

/** Lower-case, accents and punctuation folded, spaces collapsed: "Memo/Description" -> "memo description". */
export function normalizeHeader(value: string): string {
  return value
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/#/g, " no ")
    .replace(/[^a-z0-9]+/g, " ")
    .trim()
    .replace(/\s+/g, " ");
}

/** Index of the first header cell whose normalized name is one of `names`, or -1. */
export function findColumn(header: string[], names: string[]): number {
  const normalized = header.map(normalizeHeader);
  for (const name of names) {
    const i = normalized.indexOf(name);
    if (i >= 0) return i;
  }
  return -1;
}

export function blank(value: string | undefined): boolean {
  return value === undefined || value.trim() === "";
}

export function isAmount(value: string | undefined): boolean {
  return value !== undefined && classifyText(value) === "NUMBER";
}

export function isDate(value: string | undefined): boolean {
  return value !== undefined && classifyText(value) === "DATE";
}

/** Positions of the header cells that carry a name (report exports add unnamed leading columns). */
export function namedPositions(header: string[]): number[] {
  return header.map((h, i) => (h.trim() === "" ? -1 : i)).filter((i) => i >= 0);
}

export function nonBlankCount(values: string[]): number {
  let n = 0;
  for (const v of values) if (v.trim() !== "") n++;
  return n;
}

export function cell(values: string[], i: number): string {
  return i >= 0 && i < values.length ? values[i].trim() : "";
}
