import type pg from "pg";
import { recordFromTexts } from "../csv/tokenizer.js";
import { buildFileInfo } from "../profile/file-info.js";
import { Profiler } from "../profile/profiler.js";
import { literal, qualifiedTable, stagingColumn } from "../sql/identifiers.js";
import type { ColumnData, TabularFileInfo } from "../types.js";
import type { VirtualColumn, VirtualColumnDefinition } from "./model.js";

export class MappingError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join("; "));
  }
}

/** Gives proposed virtual columns their positions after the file's columns. */
export function placeVirtualColumns(definitions: VirtualColumnDefinition[], physicalCount: number): VirtualColumn[] {
  return definitions.map((d, i) => ({ ...d, position: physicalCount + i }));
}

/** Problems of virtual column definitions (references, required keys per type), as sentences. */
export function validateVirtualColumns(columns: VirtualColumn[], physicalCount: number): string[] {
  const problems: string[] = [];
  const positions = new Set(columns.map((c) => c.position));
  const exists = (p: number | null | undefined) => typeof p === "number" && Number.isInteger(p) && p >= 0 && (p < physicalCount || positions.has(p));
  for (const [i, c] of columns.entries()) {
    const label = `virtual column ${i} (${c.name || "unnamed"})`;
    if (!c.name || c.name.trim() === "") problems.push(`${label} needs a name`);
    switch (c.type) {
      case "DUPLICATE":
        if (!exists(c.columnIndex)) problems.push(`${label}: columnIndex must name an existing column`);
        break;
      case "SPLIT_BY_DELIMITER":
        if (!exists(c.columnIndex)) problems.push(`${label}: columnIndex must name an existing column`);
        if (!c.delimiter) problems.push(`${label}: delimiter is required`);
        if (typeof c.splitIndex !== "number" || c.splitIndex < 0) problems.push(`${label}: splitIndex must be 0 or more`);
        break;
      case "SPLIT_BY_POSITION":
        if (!exists(c.columnIndex)) problems.push(`${label}: columnIndex must name an existing column`);
        if (typeof c.startPosition !== "number" || c.startPosition < 0) problems.push(`${label}: startPosition must be 0 or more`);
        if (typeof c.endPosition !== "number" || c.endPosition <= (c.startPosition ?? 0)) problems.push(`${label}: endPosition must be after startPosition`);
        break;
      case "JOIN":
        if (!c.columnIndices || c.columnIndices.length < 2 || !c.columnIndices.every(exists)) problems.push(`${label}: columnIndices must name at least two existing columns`);
        break;
      default:
        problems.push(`${label}: unknown type ${String((c as { type: unknown }).type)}`);
    }
  }
  // References must not loop (a virtual column built from itself); checked once the rest is sound.
  if (problems.length > 0) return [...new Set(problems)];
  for (const c of columns) {
    try {
      columnTextExpression(c.position, physicalCount, columns);
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  return [...new Set(problems)];
}

const NO_PADDING: ReadonlySet<number> = new Set();

/** File columns with values that had spaces around them (the `padding` column metric). */
export function paddedPositions(fileInfo: TabularFileInfo): Set<number> {
  return new Set(fileInfo.columnData.filter((c) => (c.columnMetadata.padding?.count ?? 0) > 0).map((c) => c.position));
}

/**
 * The SQL text expression of a column position over the staging table: a staging column, or the
 * virtual column's definition applied set-based (split_part, substr, concat_ws) at query time, so
 * virtual columns cost no extra pass and no rewrite of the staged rows.
 */
export function columnTextExpression(position: number, physicalCount: number, virtualColumns: VirtualColumn[], padded: ReadonlySet<number> = NO_PADDING, seen: number[] = []): string {
  // Rows staged as they are keep surrounding spaces; columns where the profile saw some are trimmed here.
  if (position < physicalCount) return padded.has(position) ? `NULLIF(btrim(${stagingColumn(position)}), '')` : stagingColumn(position);
  const column = virtualColumns.find((c) => c.position === position);
  if (!column) throw new Error(`column ${position} does not exist`);
  if (seen.includes(position)) throw new Error(`virtual column ${column.name} refers to itself`);
  const inner = (p: number) => columnTextExpression(p, physicalCount, virtualColumns, padded, [...seen, position]);
  switch (column.type) {
    case "DUPLICATE":
      return inner(column.columnIndex!);
    case "SPLIT_BY_DELIMITER":
      return `NULLIF(btrim(split_part(${inner(column.columnIndex!)}, ${literal(column.delimiter!)}, ${column.splitIndex! + 1})), '')`;
    case "SPLIT_BY_POSITION":
      return `NULLIF(btrim(substr(${inner(column.columnIndex!)}, ${column.startPosition! + 1}, ${column.endPosition! - column.startPosition!})), '')`;
    case "JOIN":
      return `NULLIF(concat_ws(${literal(column.delimiter ?? "")}, ${column.columnIndices!.map(inner).join(", ")}), '')`;
  }
}

/**
 * Column data of virtual columns, profiled from a sample of staged rows through the same profiler
 * as file columns, so that their types and formats feed recommendations and typed parsing.
 */
export async function profileVirtualColumns(pool: pg.Pool, staging: string, fileInfo: TabularFileInfo, virtualColumns: VirtualColumn[], sampleRows = 5000): Promise<ColumnData[]> {
  if (virtualColumns.length === 0) return [];
  const physical = fileInfo.columnData.length;
  const padded = paddedPositions(fileInfo);
  const expressions = virtualColumns.map((c) => `${columnTextExpression(c.position, physical, virtualColumns, padded)} AS v${c.position}`);
  const { rows } = await pool.query<Record<string, string | null> & { row_no: string }>(
    `SELECT row_no, ${expressions.join(", ")} FROM ${qualifiedTable(staging)} ORDER BY row_no LIMIT ${Math.max(1, Math.floor(sampleRows))}`,
  );
  const profiler = new Profiler(
    virtualColumns.map((c) => c.name),
    virtualColumns.map(() => false),
  );
  for (const row of rows) profiler.add(recordFromTexts(virtualColumns.map((c) => row[`v${c.position}`] ?? ""), Number(row.row_no)));
  const info = buildFileInfo(
    { encoding: { encoding: "UTF-8", bom: false }, delimiter: ",", quote: '"', firstLine: "", headerRowIndex: null, rowContentSnippets: [], format: null, degrouped: false, invalidCharacters: 0 },
    profiler.finish(),
  );
  return info.columnData.map((c, i) => ({ ...c, position: virtualColumns[i].position, columnName: virtualColumns[i].name }));
}
