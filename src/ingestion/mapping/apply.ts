import type { ColumnData, ColumnDefinition, TabularFileInfo } from "../types.js";
import { summarizeColumns, type ColumnSummary } from "./columns.js";
import type {
  AmbiguousColumnResolution,
  AppliedMapping,
  ColumnMapping,
  ProposedAmbiguousColumnResolution,
  ProposedColumnMapping,
  VirtualColumn,
  VirtualColumnDefinition,
} from "./model.js";
import { recommendMappings, recommendResolutions, unmetRequirements, type MappingRecommendation, type RecommendOptions } from "./recommend.js";
import { MappingError, placeVirtualColumns, validateVirtualColumns } from "./virtual-columns.js";

export interface ApplyMappingInput {
  fileInfo: TabularFileInfo;
  columnDefinitions: ColumnDefinition[];
  proposedColumnMappings?: ProposedColumnMapping[] | null;
  proposedVirtualColumns?: VirtualColumnDefinition[] | null;
  proposedAmbiguousColumnResolutions?: ProposedAmbiguousColumnResolution[] | null;
  /** Column data of the proposed virtual columns (`profileVirtualColumns`), for their types and formats. */
  virtualColumnData?: ColumnData[];
  options?: RecommendOptions;
}

export interface ApplyMappingResult {
  applied: AppliedMapping;
  /** The recommendation over file and virtual columns (applied when nothing was proposed). */
  recommendation: MappingRecommendation;
}

/**
 * What DATA_VALIDATION_CONFIRMED applies (spec 3.2): the proposed virtual columns get positions,
 * the proposed column mappings (or, with none, the recommended ones) become the column mappings,
 * and every mapped ambiguous column gets a resolution (proposed `selectedFormat`, else the
 * recommended one). Throws MappingError listing every problem (unknown field, a field mapped twice,
 * a position that does not exist, a required field left unmapped, a format that is not a
 * candidate).
 */
export function applyColumnMappings(input: ApplyMappingInput): ApplyMappingResult {
  const physicalCount = input.fileInfo.columnData.length;
  const virtualColumns = placeVirtualColumns(input.proposedVirtualColumns ?? [], physicalCount);
  const problems = validateVirtualColumns(virtualColumns, physicalCount);
  if (problems.length > 0) throw new MappingError(problems);
  const columns = summarizeColumns(input.fileInfo, virtualColumnData(virtualColumns, input.virtualColumnData));
  const recommendation = recommendMappings(columns, input.columnDefinitions, { delimiter: input.fileInfo.delimiter, ...input.options });
  const proposed = input.proposedColumnMappings ?? [];
  const columnMappings = proposed.length > 0 ? proposedMappings(proposed, columns, virtualColumns, input.columnDefinitions) : recommendation.columnMappings;
  const mapped = new Set(columnMappings.map((m) => m.platformField).filter((f): f is string => !!f));
  const missing = unmetRequirements(input.columnDefinitions, mapped);
  if (missing.length > 0) throw new MappingError(missing.map((f) => `required platform field ${f} is not mapped to a column`));
  const ambiguousColumnResolutions = resolutions(columns, columnMappings, input.proposedAmbiguousColumnResolutions ?? [], { delimiter: input.fileInfo.delimiter, ...input.options });
  return { applied: { columnMappings, virtualColumns, ambiguousColumnResolutions }, recommendation };
}

function virtualColumnData(virtualColumns: VirtualColumn[], data: ColumnData[] = []): ColumnData[] {
  return virtualColumns.map(
    (v) =>
      data.find((d) => d.position === v.position) ?? {
        position: v.position,
        columnName: v.name,
        synthetic: false,
        rowSample: [],
        columnMetadata: {},
      },
  );
}

function proposedMappings(proposed: ProposedColumnMapping[], columns: ColumnSummary[], virtualColumns: VirtualColumn[], definitions: ColumnDefinition[]): ColumnMapping[] {
  const problems: string[] = [];
  const fields = new Set(definitions.map((d) => d.platformFieldName));
  const byPosition = new Map<number, ProposedColumnMapping>();
  const seenFields = new Set<string>();
  for (const [i, p] of proposed.entries()) {
    let position: number | null = null;
    if (typeof p.virtualColumnIndex === "number") {
      const v = virtualColumns[p.virtualColumnIndex];
      if (!v) problems.push(`proposedColumnMappings[${i}]: virtualColumnIndex ${p.virtualColumnIndex} is not a proposed virtual column`);
      else position = v.position;
    } else if (typeof p.columnPosition === "number") {
      if (!columns.some((c) => c.position === p.columnPosition)) problems.push(`proposedColumnMappings[${i}]: column ${p.columnPosition} does not exist`);
      else position = p.columnPosition;
    } else {
      problems.push(`proposedColumnMappings[${i}]: columnPosition or virtualColumnIndex is required`);
    }
    const field = p.platformField?.trim() || null;
    const additional = p.additionalColumnName?.trim() || null;
    if (field && !fields.has(field)) problems.push(`proposedColumnMappings[${i}]: ${field} is not a platform field of this source type`);
    if (!field && !additional) problems.push(`proposedColumnMappings[${i}]: platformField or additionalColumnName is required`);
    if (field && seenFields.has(field)) problems.push(`proposedColumnMappings[${i}]: ${field} is mapped more than once`);
    if (field) seenFields.add(field);
    if (position !== null && byPosition.has(position)) problems.push(`proposedColumnMappings[${i}]: column ${position} is mapped more than once`);
    if (position !== null) byPosition.set(position, { ...p, platformField: field, additionalColumnName: additional });
  }
  if (problems.length > 0) throw new MappingError(problems);
  return columns.map((c) => {
    const p = byPosition.get(c.position);
    if (!p) return { position: c.position, field: c.name, platformField: null, mappingType: "NOT_MAPPED" };
    return { position: c.position, field: c.name, platformField: p.platformField ?? null, additionalColumnName: p.additionalColumnName ?? null, mappingType: "MANUAL" };
  });
}

function resolutions(columns: ColumnSummary[], mappings: ColumnMapping[], proposed: ProposedAmbiguousColumnResolution[], options: RecommendOptions): AmbiguousColumnResolution[] {
  const recommended = recommendResolutions(columns, mappings, options);
  const problems: string[] = [];
  const result = recommended.map((r) => {
    const p = proposed.find((x) => x.position === r.position);
    if (!p) return r;
    if (!r.ambiguousFormats.includes(p.selectedFormat)) {
      problems.push(`column ${r.position}: selectedFormat ${p.selectedFormat} is not one of ${r.ambiguousFormats.join(", ")}`);
      return r;
    }
    return { ...r, selectedFormat: p.selectedFormat };
  });
  for (const p of proposed) {
    if (!recommended.some((r) => r.position === p.position)) {
      const column = columns.find((c) => c.position === p.position);
      // A choice for a column that is not ambiguous is accepted when the format is one of its candidates.
      if (column && (column.detectedFormat === p.selectedFormat || Object.keys(column.validCounts).includes(p.selectedFormat))) {
        result.push({ position: p.position, ambiguousFormats: Object.keys(column.validCounts), selectedFormat: p.selectedFormat });
      } else {
        problems.push(`column ${p.position}: no ambiguous format to resolve with ${p.selectedFormat}`);
      }
    }
  }
  if (problems.length > 0) throw new MappingError(problems);
  return result;
}

/** Applied mappings changed on update (INTEGRITY_CHECKED and earlier Steps): re-checked against the file. */
export function validateAppliedMapping(applied: AppliedMapping, fileInfo: TabularFileInfo, definitions: ColumnDefinition[]): string[] {
  const problems = validateVirtualColumns(applied.virtualColumns, fileInfo.columnData.length);
  const positions = new Set([...fileInfo.columnData.map((c) => c.position), ...applied.virtualColumns.map((v) => v.position)]);
  const fields = new Set(definitions.map((d) => d.platformFieldName));
  const seen = new Set<string>();
  for (const m of applied.columnMappings) {
    if (!positions.has(m.position)) problems.push(`column ${m.position} does not exist`);
    if (m.platformField && !fields.has(m.platformField)) problems.push(`${m.platformField} is not a platform field of this source type`);
    if (m.platformField && seen.has(m.platformField)) problems.push(`${m.platformField} is mapped more than once`);
    if (m.platformField) seen.add(m.platformField);
  }
  problems.push(...unmetRequirements(definitions, seen).map((f) => `required platform field ${f} is not mapped to a column`));
  return problems;
}
