import { ValidationError, type Problem } from "../../core/errors.js";
import { placeVirtualColumns, validateVirtualColumns, type ColumnDefinition, type VirtualColumnDefinition, type WorkflowState } from "../../ingestion/index.js";
import type { SourceRow } from "./analysis-source.steps.js";

/** The position-bearing parts of an update body (service input, after REST/GraphQL coercion). */
export interface PositionedInput {
  columnMappings?: Array<{ position: number; platformField?: string | null }> | null;
  virtualColumns?: VirtualColumnDefinition[] | null;
  ambiguousColumnResolutions?: Array<{ position: number }> | null;
  transactionIdSelection?: SelectionInput | null;
  proposedColumnMappings?: Array<{ columnPosition?: number | null; virtualColumnIndex?: number | null; platformField?: string | null }> | null;
  proposedVirtualColumns?: VirtualColumnDefinition[] | null;
  proposedAmbiguousColumnResolutions?: Array<{ position: number }> | null;
  proposedTransactionIdSelection?: SelectionInput | null;
}

interface SelectionInput {
  columnSelection: number[];
  virtualColumnSelection?: number[] | null;
}

const length = (value: unknown) => (Array.isArray(value) ? value.length : 0);
const inRange = (value: number, size: number) => Number.isInteger(value) && value >= 0 && value < size;

/**
 * Positions and indexes of an update checked against the source's stored file info and mapping,
 * at request time (400 naming the field, nothing saved). Without these checks such a mistake is
 * found only by the job, which then moves the source to FAILED for good (spec 3.2) although
 * nothing went wrong while processing. Only sources with a file info are checked: before columns
 * are analysed the file's width is unknown, and the job reports what it finds (FAILED).
 *
 * What each list refers to:
 * - file columns: 0 .. width-1 (`columnPosition`, resolution `position`s, `columnSelection`);
 * - proposed virtual columns: `virtualColumnIndex`, and applied-form `columnMappings` positions
 *   past the file's columns (they become the next proposal, see appliedAsProposed);
 * - a selection's `virtualColumnSelection`: the virtual columns applied when it is used (the
 *   proposal when the mapping is still to be applied in this move, else the applied ones).
 */
export function checkPositions(source: Pick<SourceRow, "fileInfo" | "workflowState" | "proposedVirtualColumns" | "virtualColumns">, input: PositionedInput, definitions: ColumnDefinition[]): void {
  const columnData = (source.fileInfo as { columnData?: unknown[] } | null)?.columnData;
  if (!Array.isArray(columnData)) return;
  const width = columnData.length;
  const problems: Problem[] = [];
  const problem = (identifier: string, reason: string, value?: unknown) =>
    problems.push({ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier, reason, ...(value !== undefined ? { values: [JSON.stringify(value)] } : {}) });

  const newVirtual = input.proposedVirtualColumns ?? input.virtualColumns ?? null;
  const proposedVirtualCount = newVirtual ? newVirtual.length : length(source.proposedVirtualColumns);
  const state = source.workflowState as WorkflowState;
  const mappingPending = state === "COLUMNS_ANALYZED" || (state === "DATA_VALIDATION_CONFIRMED" && newVirtual !== null);
  const selectionVirtualCount = mappingPending ? proposedVirtualCount : length(source.virtualColumns);
  const fields = new Set(definitions.map((d) => d.platformFieldName));

  for (const key of ["proposedVirtualColumns", "virtualColumns"] as const) {
    const definitionsOf = input[key];
    if (!definitionsOf) continue;
    for (const reason of validateVirtualColumns(placeVirtualColumns(definitionsOf, width), width)) {
      const index = /^virtual column (\d+)/.exec(reason)?.[1];
      problem(index === undefined ? key : `${key}[${index}]`, `${key}: ${reason}`);
    }
  }
  input.proposedColumnMappings?.forEach((m, i) => {
    const at = `proposedColumnMappings[${i}]`;
    if (typeof m.virtualColumnIndex === "number") {
      if (!inRange(m.virtualColumnIndex, proposedVirtualCount)) problem(`${at}.virtualColumnIndex`, `${at}.virtualColumnIndex ${m.virtualColumnIndex} is not a proposed virtual column (there are ${proposedVirtualCount})`, m.virtualColumnIndex);
    } else if (typeof m.columnPosition === "number") {
      if (!inRange(m.columnPosition, width)) problem(`${at}.columnPosition`, `${at}.columnPosition ${m.columnPosition} is not a column of the file (0 to ${width - 1})`, m.columnPosition);
    } else {
      problem(at, `${at} needs columnPosition or virtualColumnIndex`);
    }
    if (m.platformField && !fields.has(m.platformField)) problem(`${at}.platformField`, `${at}.platformField ${m.platformField} is not a platform field of this source type`, m.platformField);
  });
  input.columnMappings?.forEach((m, i) => {
    const at = `columnMappings[${i}]`;
    if (!inRange(m.position, width + proposedVirtualCount)) problem(`${at}.position`, `${at}.position ${m.position} is neither a column of the file nor a virtual column (0 to ${width + proposedVirtualCount - 1})`, m.position);
    if (m.platformField && !fields.has(m.platformField)) problem(`${at}.platformField`, `${at}.platformField ${m.platformField} is not a platform field of this source type`, m.platformField);
  });
  for (const key of ["proposedAmbiguousColumnResolutions", "ambiguousColumnResolutions"] as const) {
    input[key]?.forEach((r, i) => {
      if (!inRange(r.position, width)) problem(`${key}[${i}].position`, `${key}[${i}].position ${r.position} is not a column of the file (0 to ${width - 1})`, r.position);
    });
  }
  const selections = [
    ["transactionIdSelection", input.transactionIdSelection, length(source.virtualColumns)],
    ["proposedTransactionIdSelection", input.proposedTransactionIdSelection, selectionVirtualCount],
  ] as const;
  for (const [key, selection, virtualCount] of selections) {
    if (!selection) continue;
    selection.columnSelection.forEach((p, j) => {
      if (!inRange(p, width)) problem(`${key}.columnSelection[${j}]`, `${key}.columnSelection: column ${p} is not a column of the file (0 to ${width - 1})`, p);
    });
    (selection.virtualColumnSelection ?? []).forEach((v, j) => {
      if (!inRange(v, virtualCount)) problem(`${key}.virtualColumnSelection[${j}]`, `${key}.virtualColumnSelection: virtual column ${v} does not exist (there are ${virtualCount})`, v);
    });
  }
  if (problems.length > 0) throw ValidationError.of(problems);
}
