import type { App } from "../../app-types.js";
import type { ColumnSet } from "../../query-language/index.js";
import { columnSet, type RowsTable } from "./data-table-rows.js";

/** What the rows endpoint needs of a stored definition, with its column set built once. */
export interface CachedDefinition {
  id: string;
  version: number;
  engagementId: string;
  analysisId: string;
  table: RowsTable;
  set: ColumnSet;
}

const MAX_ENTRIES = 500;
const caches = new WeakMap<App, Map<string, CachedDefinition>>();

/**
 * Data table definitions by id, per process. A scrolling front end reads page after page of one
 * table: re-reading its definition (a few KB of column JSON) for every page was a second database
 * round trip per request, which on a loaded machine cost more than the rows query itself. Entries
 * are never trusted blindly: the rows statement carries a guard on the definition's version
 * (`versionGuard`), so a definition another process replaced or deleted is noticed in the same
 * statement and re-read (data-table.service.ts, dataTablePage).
 */
export function definitionCache(app: App): Map<string, CachedDefinition> {
  let cache = caches.get(app);
  if (!cache) caches.set(app, (cache = new Map()));
  return cache;
}

export function remember(app: App, definition: CachedDefinition): void {
  const cache = definitionCache(app);
  cache.delete(definition.id);
  if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value!);
  cache.set(definition.id, definition);
}

export function cachedDefinition(row: { id: string; version: number; engagementId: string; analysisId: string }, table: RowsTable): CachedDefinition {
  return { id: row.id, version: row.version, engagementId: row.engagementId, analysisId: row.analysisId, table, set: columnSet(table) };
}
