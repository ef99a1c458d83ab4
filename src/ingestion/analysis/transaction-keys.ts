import type { AppliedMapping } from "../mapping/model.js";
import { columnTextExpression } from "../mapping/virtual-columns.js";
import type { ParsePlan } from "../sql/parse-plan.js";

export const TRANSACTION_ID_TYPES = ["COMBINATION", "RUNNING_TOTAL"] as const;
export type TransactionIdType = (typeof TRANSACTION_ID_TYPES)[number];

/** The wire's transaction id selection. */
export interface TransactionIdSelection {
  type: TransactionIdType;
  /** File column positions whose values together identify a transaction (COMBINATION). */
  columnSelection: number[];
  /** Indices into the applied virtual columns, also part of the combination (a GraphQL client may send null: none). */
  virtualColumnSelection?: number[] | null;
  /** Split each combination further where its running total returns to zero (null: no). */
  applySmartSplitter?: boolean | null;
}

/** A selection with every property present, as stored once chosen. */
export type NormalizedSelection = { [K in keyof TransactionIdSelection]-?: NonNullable<TransactionIdSelection[K]> };

/** A preview carries its selection as type, columnSelection, virtualColumnSelection and smartSplitter. */
export interface SelectionLike {
  type: TransactionIdType;
  columnSelection: number[];
  virtualColumnSelection?: number[] | null;
  smartSplitter?: boolean;
  applySmartSplitter?: boolean | null;
}

function asSelection(s: SelectionLike): TransactionIdSelection {
  return { type: s.type, columnSelection: s.columnSelection, virtualColumnSelection: s.virtualColumnSelection, applySmartSplitter: s.applySmartSplitter ?? s.smartSplitter ?? false };
}

export function normalizeSelection(selection: TransactionIdSelection): NormalizedSelection {
  return {
    type: selection.type,
    columnSelection: selection.type === "RUNNING_TOTAL" ? [] : [...(selection.columnSelection ?? [])],
    virtualColumnSelection: selection.type === "RUNNING_TOTAL" ? [] : [...(selection.virtualColumnSelection ?? [])],
    applySmartSplitter: selection.type === "RUNNING_TOTAL" ? false : !!selection.applySmartSplitter,
  };
}

/** Same properties: a preview generated for one serves the other (spec 3.2, INTEGRITY_CHECKED). */
export function sameSelection(a: TransactionIdSelection | SelectionLike, b: TransactionIdSelection | SelectionLike): boolean {
  const x = normalizeSelection(asSelection(a));
  const y = normalizeSelection(asSelection(b));
  return (
    x.type === y.type &&
    x.applySmartSplitter === y.applySmartSplitter &&
    x.columnSelection.join(",") === y.columnSelection.join(",") &&
    x.virtualColumnSelection.join(",") === y.virtualColumnSelection.join(",")
  );
}

export function selectionProblems(selection: TransactionIdSelection, physicalCount: number, applied: AppliedMapping): string[] {
  const s = normalizeSelection(selection);
  const problems: string[] = [];
  if (s.type !== "COMBINATION" && s.type !== "RUNNING_TOTAL") problems.push(`transaction id type ${String(s.type)} is not COMBINATION or RUNNING_TOTAL`);
  if (s.type === "COMBINATION" && s.columnSelection.length + s.virtualColumnSelection.length === 0) problems.push("a COMBINATION transaction id selects at least one column");
  for (const p of s.columnSelection) if (!Number.isInteger(p) || p < 0 || p >= physicalCount) problems.push(`columnSelection: column ${p} does not exist`);
  for (const i of s.virtualColumnSelection) if (!applied.virtualColumns[i]) problems.push(`virtualColumnSelection: virtual column ${i} does not exist`);
  return problems;
}

/** Positions (file and virtual) of a combination. */
export function selectionPositions(selection: TransactionIdSelection, virtualColumns: AppliedMapping["virtualColumns"]): number[] {
  const s = normalizeSelection(selection);
  return [...s.columnSelection, ...s.virtualColumnSelection.map((i) => virtualColumns[i].position)];
}

/** SQL text of a combination's key over the staging table; NULL when every selected column is blank. */
export function combinationKey(selection: TransactionIdSelection, plan: ParsePlan): string {
  const parts = selectionPositions(selection, plan.virtualColumns).map((p) => columnTextExpression(p, plan.physicalCount, plan.virtualColumns, new Set(plan.padded)));
  if (parts.length === 1) return parts[0];
  return `NULLIF(concat_ws('|', ${parts.join(", ")}), '')`;
}

/** True when computing the id needs a pass in file order (running totals). */
export function needsWindow(selection: TransactionIdSelection): boolean {
  const s = normalizeSelection(selection);
  return s.type === "RUNNING_TOTAL" || s.applySmartSplitter;
}

/**
 * Wraps `base` (which yields at least row_no, a (signed amount) and key) so that every row also
 * gets `k`, its transaction id under a selection that needs file order: running totals over row_no
 * (RUNNING_TOTAL, or per key with the smart splitter) start a new transaction after each row where
 * the total returns to zero. All columns of `base` pass through.
 */
export function windowedKeys(selection: TransactionIdSelection, base: string): string {
  const s = normalizeSelection(selection);
  const partition = s.type === "RUNNING_TOTAL" ? "" : "PARTITION BY key ";
  const id = s.type === "RUNNING_TOTAL" ? `'T' || lpad(g::text, 7, '0')` : `key || CASE WHEN g > 1 THEN '#' || g ELSE '' END`;
  return `SELECT s2.*, ${id} AS k
    FROM (SELECT s1.*, sum(CASE WHEN prev = 0 THEN 1 ELSE 0 END) OVER (${partition}ORDER BY row_no) AS g
            FROM (SELECT b.*, coalesce(sum(coalesce(a, 0)) OVER (${partition}ORDER BY row_no ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS prev
                    FROM (${base}) b) s1) s2`;
}
