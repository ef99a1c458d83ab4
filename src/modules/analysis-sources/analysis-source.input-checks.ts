import { ValidationError, type Problem } from "../../core/errors.js";
import { placeVirtualColumns, validateVirtualColumns, type ColumnDefinition, type VirtualColumnDefinition, type WorkflowState } from "../../ingestion/index.js";
import type { SourceRow } from "./analysis-source.steps.js";

/** The position-bearing parts of an update body (service input, after REST/GraphQL coercion). */
export interface PositionedInput {
  columnMappings?: Array<{ position: number; platformField?: string | null; additionalColumnName?: string | null }> | null;
  virtualColumns?: VirtualColumnDefinition[] | null;
  ambiguousColumnResolutions?: ResolutionInput[] | null;
  transactionIdSelection?: SelectionInput | null;
  proposedColumnMappings?: Array<{ columnPosition?: number | null; virtualColumnIndex?: number | null; platformField?: string | null; additionalColumnName?: string | null }> | null;
  proposedVirtualColumns?: VirtualColumnDefinition[] | null;
  proposedAmbiguousColumnResolutions?: ResolutionInput[] | null;
  proposedTransactionIdSelection?: SelectionInput | null;
}

interface ResolutionInput {
  position: number;
  selectedFormat?: string | null;
}

interface SelectionInput {
  columnSelection: number[];
  virtualColumnSelection?: number[] | null;
}

const length = (value: unknown) => (Array.isArray(value) ? value.length : 0);
const inRange = (value: number, size: number) => Number.isInteger(value) && value >= 0 && value < size;
const text = (value: string | null | undefined) => value?.trim() || null;

/** The format analysis of a file column as stored in its column data (`format` metric), if any. */
interface FormatAnalysis {
  detectedFormat: string | null;
  ambiguousFormats: string[];
  validCounts: Record<string, number>;
}

function formatAnalysisOf(column: unknown): FormatAnalysis | null {
  const format = (column as { columnMetadata?: { format?: Partial<FormatAnalysis> } } | null)?.columnMetadata?.format;
  if (!format) return null;
  return { detectedFormat: format.detectedFormat ?? null, ambiguousFormats: format.ambiguousFormats ?? [], validCounts: format.validCounts ?? {} };
}

/** The column's name as the file info gives it, for reasons. */
const columnLabel = (column: unknown, position: number) => {
  const name = (column as { columnName?: unknown } | null)?.columnName;
  return typeof name === "string" && name !== "" ? `column ${position} (${name})` : `column ${position}`;
};

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
 *
 * Beyond positions, what applying the mapping would refuse (`applyColumnMappings`) and the stored
 * column analysis already tells: a platform field or a column mapped twice in one list, a proposed
 * mapping that names neither a platform field nor an additional column, a column resolved twice,
 * and a `selectedFormat` the column cannot take: an ambiguous column takes one of its
 * `ambiguousFormats`; a column that is not ambiguous takes only a format its analysis found valid
 * (forcing one, as the mapping step allows); a column without dates or amounts has no format.
 */
export function checkPositions(source: Pick<SourceRow, "fileInfo" | "workflowState" | "proposedVirtualColumns" | "virtualColumns">, input: PositionedInput, definitions: ColumnDefinition[]): void {
  const columnData = (source.fileInfo as { columnData?: unknown[] } | null)?.columnData;
  if (!Array.isArray(columnData)) return;
  const width = columnData.length;
  const problems: Problem[] = [];
  const problem = (identifier: string, reason: string, value?: unknown, suggestedValues?: string[]) =>
    problems.push({
      problemType: "ILLEGAL_ARGUMENT",
      severity: "ERROR",
      identifier,
      reason,
      ...(value !== undefined ? { values: [JSON.stringify(value)] } : {}),
      ...(suggestedValues && suggestedValues.length > 0 ? { suggestedValues } : {}),
    });
  /** First index of each key in one list: a later entry with the same key is a duplicate. */
  const firstOf = () => {
    const seen = new Map<string | number, number>();
    return (key: string | number, index: number): number | undefined => {
      const first = seen.get(key);
      if (first === undefined) seen.set(key, index);
      return first;
    };
  };

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
  {
    const fieldSeen = firstOf();
    const columnSeen = firstOf();
    const virtualSeen = firstOf();
    input.proposedColumnMappings?.forEach((m, i) => {
      const at = `proposedColumnMappings[${i}]`;
      if (typeof m.virtualColumnIndex === "number") {
        if (!inRange(m.virtualColumnIndex, proposedVirtualCount)) problem(`${at}.virtualColumnIndex`, `${at}.virtualColumnIndex ${m.virtualColumnIndex} is not a proposed virtual column (there are ${proposedVirtualCount})`, m.virtualColumnIndex);
        const first = virtualSeen(m.virtualColumnIndex, i);
        if (first !== undefined) problem(`${at}.virtualColumnIndex`, `${at}.virtualColumnIndex: virtual column ${m.virtualColumnIndex} is already mapped by proposedColumnMappings[${first}]; a column feeds one field`, m.virtualColumnIndex);
      } else if (typeof m.columnPosition === "number") {
        if (!inRange(m.columnPosition, width)) problem(`${at}.columnPosition`, `${at}.columnPosition ${m.columnPosition} is not a column of the file (0 to ${width - 1})`, m.columnPosition);
        const first = columnSeen(m.columnPosition, i);
        if (first !== undefined) problem(`${at}.columnPosition`, `${at}.columnPosition: ${columnLabel(columnData[m.columnPosition], m.columnPosition)} is already mapped by proposedColumnMappings[${first}]; a column feeds one field`, m.columnPosition);
      } else {
        problem(at, `${at} needs columnPosition or virtualColumnIndex`);
      }
      const field = text(m.platformField);
      if (field && !fields.has(field)) problem(`${at}.platformField`, `${at}.platformField ${field} is not a platform field of this source type`, field);
      const first = field ? fieldSeen(field, i) : undefined;
      if (field && first !== undefined) problem(`${at}.platformField`, `${at}.platformField ${field} is already mapped by proposedColumnMappings[${first}]; a platform field takes one column`, field);
      if (!field && !text(m.additionalColumnName)) problem(at, `${at} needs platformField or additionalColumnName`);
    });
  }
  {
    const fieldSeen = firstOf();
    const columnSeen = firstOf();
    input.columnMappings?.forEach((m, i) => {
      const at = `columnMappings[${i}]`;
      if (!inRange(m.position, width + proposedVirtualCount)) problem(`${at}.position`, `${at}.position ${m.position} is neither a column of the file nor a virtual column (0 to ${width + proposedVirtualCount - 1})`, m.position);
      const field = text(m.platformField);
      if (field && !fields.has(field)) problem(`${at}.platformField`, `${at}.platformField ${field} is not a platform field of this source type`, field);
      // An entry without platformField or additionalColumnName is a NOT_MAPPED column sent back: it maps nothing.
      if (!field && !text(m.additionalColumnName)) return;
      const firstColumn = columnSeen(m.position, i);
      if (firstColumn !== undefined) problem(`${at}.position`, `${at}.position: column ${m.position} is already mapped by columnMappings[${firstColumn}]; a column feeds one field`, m.position);
      const firstField = field ? fieldSeen(field, i) : undefined;
      if (field && firstField !== undefined) problem(`${at}.platformField`, `${at}.platformField ${field} is already mapped by columnMappings[${firstField}]; a platform field takes one column`, field);
    });
  }
  for (const key of ["proposedAmbiguousColumnResolutions", "ambiguousColumnResolutions"] as const) {
    const positionSeen = firstOf();
    input[key]?.forEach((r, i) => {
      const at = `${key}[${i}]`;
      if (!inRange(r.position, width)) {
        problem(`${at}.position`, `${at}.position ${r.position} is not a column of the file (0 to ${width - 1})`, r.position);
        return;
      }
      const first = positionSeen(r.position, i);
      if (first !== undefined) problem(`${at}.position`, `${at}.position: column ${r.position} is already resolved by ${key}[${first}]`, r.position);
      checkFormat(at, columnData[r.position], r.position, r.selectedFormat ?? null, problem);
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

/**
 * A resolution's `selectedFormat` against the column's stored analysis, as applying the mapping
 * would judge it: an ambiguous column takes one of its `ambiguousFormats`; another date or number
 * column takes its detected format or one of the formats its values were checked against (a forced
 * choice); a column holding neither has nothing to resolve.
 */
function checkFormat(at: string, column: unknown, position: number, selected: string | null, problem: (identifier: string, reason: string, value?: unknown, suggestedValues?: string[]) => void): void {
  const label = columnLabel(column, position);
  const analysis = formatAnalysisOf(column);
  const candidates = analysis ? [...new Set([...(analysis.detectedFormat ? [analysis.detectedFormat] : []), ...Object.keys(analysis.validCounts)])] : [];
  if (!analysis || (analysis.ambiguousFormats.length < 2 && candidates.length === 0)) {
    problem(`${at}.position`, `${at}.position: ${label} holds no dates or amounts, so it has no ambiguous format to resolve`, position);
    return;
  }
  if (selected === null) return;
  if (analysis.ambiguousFormats.length >= 2) {
    if (!analysis.ambiguousFormats.includes(selected)) {
      problem(`${at}.selectedFormat`, `${at}.selectedFormat ${selected} is not one of the ambiguous formats of ${label}: ${analysis.ambiguousFormats.join(", ")}`, selected, analysis.ambiguousFormats);
    }
    return;
  }
  if (!candidates.includes(selected)) {
    problem(`${at}.selectedFormat`, `${at}.selectedFormat ${selected} is not a format of ${label}, which is not ambiguous (its format: ${candidates.join(", ")})`, selected, candidates);
  }
}
