import { ValidationError, type Problem } from "../../core/errors.js";
import type { App } from "../../app-types.js";
import type { TabularColumn } from "../connections/warehouse-types.js";
import type { CATALOG_SOURCES, OPERATION_TYPES } from "./catalog.columns.js";

type DataCatalogSource = (typeof CATALOG_SOURCES)[number];

/**
 * How an entry or flow reads its rows, resolved down to where they live: a warehouse table or a
 * data table, and for each resulting column the origin column it comes from. REMAP only renames
 * and duplicates columns, so any chain of entries and flows reduces to this.
 */
export type Origin = { kind: "CONNECTION"; connectionId: string; tableId: string } | { kind: "DATA_TABLE"; dataTableId: string };
export interface PlanColumn extends TabularColumn {
  /** The origin column: warehouse column name, or the data table column's physical name. */
  from: string;
}
export interface Resolved {
  origin: Origin;
  columns: PlanColumn[];
}

export interface SourceRef {
  source: DataCatalogSource;
  dataTableId?: string | null;
  connectionId?: string | null;
  tableId?: string | null;
  dataFlowId?: string | null;
}
/** An entry's column as given or stored: `nullable` left out takes the source column's. */
export type EntryColumn = Pick<TabularColumn, "name" | "displayName" | "description" | "columnType" | "scale"> & { nullable?: boolean | null };
export interface EntryLike extends SourceRef {
  id?: string;
  schema: { columns: EntryColumn[] };
}
export interface RemapOperation {
  type: (typeof OPERATION_TYPES)[number];
  remapOperations: Array<{ source: string; destination: string }>;
}
export interface FlowLike {
  id?: string;
  inputDataCatalogEntryId: string;
  operations: RemapOperation[];
}

const problem = (identifier: string, reason: string, values?: string[]): Problem => ({ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier, reason, ...(values ? { values } : {}) });

function cycle(trail: string[], id: string): ValidationError {
  return new ValidationError(`Circular dependency between data flows and data catalog entries: ${[...trail, id].join(" -> ")}`, { identifier: "dataFlowId", values: [...trail, id] });
}

/** The columns a source offers (spec 2.6): a discovered warehouse table, a data table, or a flow's output. */
export async function resolveSource(app: App, ref: SourceRef, trail: string[]): Promise<Resolved> {
  if (ref.source === "CONNECTION") {
    if (!ref.connectionId || !ref.tableId) throw ValidationError.of([problem(ref.connectionId ? "tableId" : "connectionId", "source CONNECTION needs connectionId and tableId")]);
    const connection = await app.prisma.connection.findUnique({ where: { id: ref.connectionId }, select: { id: true } });
    if (!connection) throw new ValidationError(`connectionId ${ref.connectionId} refers to no connection`, { identifier: "connectionId", values: [ref.connectionId] });
    const table = await app.prisma.connectionTable.findUnique({ where: { connectionId_tableId: { connectionId: ref.connectionId, tableId: ref.tableId } } });
    if (!table) throw new ValidationError(`Connection ${ref.connectionId} has no table ${ref.tableId} (discover its tables with POST /connections/{id}/tables)`, { identifier: "tableId", values: [ref.tableId] });
    const schema = table.schema;
    return { origin: { kind: "CONNECTION", connectionId: ref.connectionId, tableId: ref.tableId }, columns: schema.columns.map((c) => ({ ...c, from: c.name })) };
  }
  if (ref.source === "DATA_TABLE") {
    if (!ref.dataTableId) throw ValidationError.of([problem("dataTableId", "source DATA_TABLE needs dataTableId")]);
    const table = await app.prisma.dataTable.findUnique({ where: { id: ref.dataTableId } });
    if (!table) throw new ValidationError(`dataTableId ${ref.dataTableId} refers to no data table`, { identifier: "dataTableId", values: [ref.dataTableId] });
    const columns = table.columns.filter((c) => c.sql !== "row_no");
    return { origin: { kind: "DATA_TABLE", dataTableId: table.id }, columns: columns.map((c) => ({ name: c.field, displayName: c.originalName ?? c.field, columnType: c.type, nullable: c.nullable, precision: null, scale: null, from: c.sql })) };
  }
  if (ref.source === "DATA_FLOW") {
    if (!ref.dataFlowId) throw ValidationError.of([problem("dataFlowId", "source DATA_FLOW needs dataFlowId")]);
    if (trail.includes(ref.dataFlowId)) throw cycle(trail, ref.dataFlowId);
    const flow = await app.prisma.dataFlow.findUnique({ where: { id: ref.dataFlowId } });
    if (!flow) throw new ValidationError(`dataFlowId ${ref.dataFlowId} refers to no data flow`, { identifier: "dataFlowId", values: [ref.dataFlowId] });
    return resolveFlow(app, { id: flow.id, inputDataCatalogEntryId: flow.inputDataCatalogEntryId, operations: flow.operations }, trail);
  }
  throw new ValidationError("source must be one of DATA_TABLE, CONNECTION, DATA_FLOW", { identifier: "source", values: [ref.source] });
}

/**
 * Spec 2.6 column rules: the entry's columns are a subset of the source's, each with the exact name
 * and columnType (no implicit conversion), and a column non-nullable in the source is non-nullable
 * in the entry. `nullable` left out takes the source's. Returns every problem at once.
 */
export function columnProblems(entryColumns: EntryColumn[], source: PlanColumn[]): { problems: Problem[]; columns: PlanColumn[] } {
  const problems: Problem[] = [];
  const columns: PlanColumn[] = [];
  const byName = new Map(source.map((c) => [c.name, c]));
  const seen = new Set<string>();
  entryColumns.forEach((column, i) => {
    const at = `schema.columns[${i}]`;
    if (seen.has(column.name)) problems.push(problem(`${at}.name`, `Column ${column.name} appears twice`, [column.name]));
    seen.add(column.name);
    const remote = byName.get(column.name);
    if (!remote) {
      const near = source.find((c) => c.name.toLowerCase() === column.name.toLowerCase());
      problems.push({ ...problem(`${at}.name`, `The source has no column ${column.name} (names must match exactly)`, [column.name]), ...(near ? { suggestedValues: [near.name] } : {}) });
      return;
    }
    if (column.columnType !== remote.columnType) {
      problems.push({ ...problem(`${at}.columnType`, `Column ${column.name} is ${remote.columnType} in the source; there is no implicit conversion to ${column.columnType}`, [column.columnType]), problemType: "INCORRECT_DATA_TYPE", suggestedValues: [remote.columnType] });
      return;
    }
    const nullable = column.nullable ?? remote.nullable;
    if (!remote.nullable && nullable) {
      problems.push(problem(`${at}.nullable`, `Column ${column.name} is non-nullable in the source and must not be nullable in the entry`, ["true"]));
      return;
    }
    columns.push({
      name: column.name,
      displayName: column.displayName ?? remote.displayName ?? column.name,
      description: column.description ?? remote.description ?? null,
      columnType: remote.columnType,
      nullable,
      precision: remote.precision ?? null,
      scale: column.scale ?? remote.scale ?? null,
      from: remote.from,
    });
  });
  return { problems, columns };
}

/** An entry's rows: its source resolved, then its own columns picked by the spec 2.6 rules (400 otherwise). */
export async function resolveEntry(app: App, entry: EntryLike, trail: string[]): Promise<Resolved> {
  const nextTrail = entry.id ? [...trail, entry.id] : trail;
  const source = await resolveSource(app, entry, nextTrail);
  const { problems, columns } = columnProblems(entry.schema.columns, source.columns);
  if (problems.length > 0) throw ValidationError.of(problems);
  return { origin: source.origin, columns };
}

/** REMAP (spec 2.5): each pair yields `destination` with the values of `source`; a source column is replaced by its pairs, so one pair renames and two duplicate. */
export function applyOperations(columns: PlanColumn[], operations: RemapOperation[]): PlanColumn[] {
  let current = columns;
  const problems: Problem[] = [];
  operations.forEach((operation, i) => {
    if (operation.type !== "REMAP") {
      problems.push(problem(`operations[${i}].type`, "Only REMAP operations are supported", [operation.type]));
      return;
    }
    const pairs = operation.remapOperations ?? [];
    if (pairs.length === 0) problems.push(problem(`operations[${i}].remapOperations`, "remapOperations needs at least one element"));
    const names = new Set(current.map((c) => c.name));
    pairs.forEach((pair, j) => {
      if (!names.has(pair.source)) problems.push(problem(`operations[${i}].remapOperations[${j}].source`, `There is no column ${pair.source} at this step`, [pair.source]));
    });
    const next: PlanColumn[] = [];
    for (const column of current) {
      const own = pairs.filter((p) => p.source === column.name);
      if (own.length === 0) next.push(column);
      else for (const pair of own) next.push({ ...column, name: pair.destination, displayName: pair.destination });
    }
    const seen = new Set<string>();
    for (const column of next) {
      if (seen.has(column.name)) problems.push(problem(`operations[${i}].remapOperations`, `Column ${column.name} would appear twice after this operation`, [column.name]));
      seen.add(column.name);
    }
    current = next;
  });
  if (problems.length > 0) throw ValidationError.of(problems);
  return current;
}

export async function resolveFlow(app: App, flow: FlowLike, trail: string[]): Promise<Resolved> {
  const nextTrail = flow.id ? [...trail, flow.id] : trail;
  if (trail.includes(flow.inputDataCatalogEntryId)) throw cycle(nextTrail, flow.inputDataCatalogEntryId);
  const input = await app.prisma.dataCatalogEntry.findUnique({ where: { id: flow.inputDataCatalogEntryId } });
  if (!input) throw new ValidationError(`inputDataCatalogEntryId ${flow.inputDataCatalogEntryId} refers to no data catalog entry`, { identifier: "inputDataCatalogEntryId", values: [flow.inputDataCatalogEntryId] });
  const base = await resolveEntry(app, input, nextTrail);
  return { origin: base.origin, columns: applyOperations(base.columns, flow.operations) };
}
