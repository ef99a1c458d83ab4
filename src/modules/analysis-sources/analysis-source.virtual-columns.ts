import type { Actor } from "../../entity/index.js";
import { ConflictError } from "../../core/errors.js";
import { newId } from "../../core/ids.js";
import type { VirtualColumn } from "../../ingestion/index.js";

/**
 * An applied virtual column as stored in `analysis_source.virtual_columns` and shown on the wire
 * (wire reference 8: `audit` + name, type, position and the type's keys). The engine reads only
 * the definition; the audit fields are this module's.
 */
export interface AuditedVirtualColumn extends VirtualColumn {
  id: string;
  version: number;
  creationDate: string;
  lastModifiedDate: string;
  createdUserId: string | null;
  createdUserName: string | null;
  lastModifiedUserId: string | null;
  lastModifiedUserName: string | null;
}

/** An update item of `virtualColumns` (wire: name!, type!, version! + type keys; position as read). */
export interface VirtualColumnUpdateItem {
  name: string;
  version: number;
  position?: number | null;
}

const DEFINITION_KEYS = ["name", "type", "position", "columnIndex", "columnIndices", "delimiter", "splitIndex", "startPosition", "endPosition"] as const;

function sameDefinition(a: VirtualColumn, b: VirtualColumn): boolean {
  return DEFINITION_KEYS.every((key) => JSON.stringify(a[key] ?? null) === JSON.stringify(b[key] ?? null));
}

/** The column's own keys (DEFINITION_KEYS) that it has: an item sent back may carry more. */
function definitionOf(column: VirtualColumn): VirtualColumn {
  const definition: VirtualColumn = { name: column.name, type: column.type, position: column.position };
  for (const key of DEFINITION_KEYS) if (column[key] !== undefined) Object.assign(definition, { [key]: column[key] });
  return definition;
}

/**
 * Pairs each item with a stored column: the one at the item's `position` when it has one, else
 * the first not yet paired with the same name. Unpaired items are new columns.
 */
function pair<T extends { name: string; position?: number | null }>(stored: AuditedVirtualColumn[], items: T[], byPositionFirst: boolean): Array<AuditedVirtualColumn | undefined> {
  const used = new Set<AuditedVirtualColumn>();
  const take = (column: AuditedVirtualColumn | undefined) => {
    if (!column || used.has(column)) return undefined;
    used.add(column);
    return column;
  };
  return items.map((item) => {
    const byPosition = () => (typeof item.position === "number" ? take(stored.find((c) => c.position === item.position)) : undefined);
    const byName = () => take(stored.find((c) => c.name === item.name && !used.has(c)));
    return byPositionFirst ? (byPosition() ?? (typeof item.position === "number" ? undefined : byName())) : (byName() ?? byPosition());
  });
}

/**
 * The audit of newly applied virtual columns, carried over from the previously applied ones: a
 * column keeps its id, creation and version when it has the same name as a previous one (else
 * the same position), and its version goes up by one when its definition or position changed.
 * Other columns are new (fresh id, version 0).
 */
export function auditVirtualColumns(previous: AuditedVirtualColumn[], next: VirtualColumn[], actor: Actor, now = new Date()): AuditedVirtualColumn[] {
  const matches = pair(previous, next, false);
  const at = now.toISOString();
  return next.map((column, i) => {
    const before = matches[i];
    const definition = definitionOf(column);
    if (before && sameDefinition(before, column)) return { ...before, ...definition };
    const modified = { lastModifiedDate: at, lastModifiedUserId: actor.userId, lastModifiedUserName: actor.userName };
    if (before) return { ...definition, id: before.id, version: before.version + 1, creationDate: before.creationDate, createdUserId: before.createdUserId, createdUserName: before.createdUserName, ...modified };
    return { ...definition, id: newId(), version: 0, creationDate: at, createdUserId: actor.userId, createdUserName: actor.userName, ...modified };
  });
}

/**
 * Optimistic concurrency per virtual column (wire reference 8: update items carry `version`): an
 * item naming a stored column (by `position`, else by name) must carry that column's version; an
 * item naming none is a new column and must carry 0. Anything else was edited against a state
 * that has changed since: 409, the source untouched.
 */
export function checkVirtualColumnVersions(stored: AuditedVirtualColumn[], items: VirtualColumnUpdateItem[]): void {
  const matches = pair(stored, items, true);
  items.forEach((item, i) => {
    const current = matches[i]?.version ?? 0;
    if (item.version !== current) {
      const what = matches[i] ? `virtual column ${matches[i]!.name} is at version ${current}` : "a new virtual column has version 0";
      throw new ConflictError(`virtualColumns[${i}].version ${item.version} is stale: ${what}`, { identifier: `virtualColumns[${i}].version`, values: [item.version], entityType: "AnalysisSource" });
    }
  });
}

/** Stored JSON written before virtual columns had an audit (or by the engine) gets none: treated as new. */
export function storedVirtualColumns(value: readonly AuditedVirtualColumn[] | null): AuditedVirtualColumn[] {
  return Array.isArray(value) ? value.filter((c) => typeof c?.id === "string") : [];
}
