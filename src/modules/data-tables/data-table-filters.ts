import type { RequestContext } from "../../graphql/context.js";
import type { ColumnSet, SqlParams } from "../../query-language/index.js";
import { compileFilter } from "../../query-language/index.js";
import type { RowsTable } from "./data-table-rows.js";

/**
 * Seams for the families that define named filters over data tables (saved filters, populations),
 * which import this module, so it cannot import them: they register how a saved filter id becomes a
 * query and how population ids become membership queries on a table.
 */
type Query = Record<string, unknown>;
type SavedFilterResolver = (ctx: RequestContext, filterId: string, set: ColumnSet, table: RowsTable) => Promise<Query>;
type PopulationResolver = (ctx: RequestContext, table: RowsTable & { analysisId?: string | null; engagementId?: string | null }, ids: string[]) => Promise<Map<string, Query>>;

let savedFilterResolver: SavedFilterResolver | null = null;
let populationResolver: PopulationResolver | null = null;

export function registerSavedFilterResolver(resolver: SavedFilterResolver): void {
  savedFilterResolver = resolver;
}

export function registerPopulationResolver(resolver: PopulationResolver): void {
  populationResolver = resolver;
}

export async function savedFilterOn(ctx: RequestContext, filterId: string, set: ColumnSet, table: RowsTable): Promise<Query> {
  if (!savedFilterResolver) throw new Error("saved filters are not registered");
  return savedFilterResolver(ctx, filterId, set, table);
}

/** Population ids named by `$population` / `$not_population` anywhere in a query. */
export function populationIdsIn(query: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(query)) query.forEach((q) => populationIdsIn(q, out));
  else if (typeof query === "object" && query !== null) {
    for (const [key, value] of Object.entries(query)) {
      if ((key === "$population" || key === "$not_population") && typeof value === "string") out.add(value.toLowerCase());
      else if (key === "$and" || key === "$or") populationIdsIn(value, out);
    }
  }
  return out;
}

/**
 * The populations a query names, each resolved for this table with the caller's access: its own
 * condition as a query on the table's columns. Populations the caller cannot reach or that do not
 * belong to the table's analysis, engagement or library are left out (they match nothing).
 * Resolved at request time, the map can travel in a job's payload.
 */
export async function populationQueriesFor(ctx: RequestContext, query: unknown, table: RowsTable & { analysisId?: string | null; engagementId?: string | null }): Promise<Record<string, Query>> {
  const ids = [...populationIdsIn(query)];
  if (ids.length === 0 || !populationResolver) return {};
  return Object.fromEntries(await populationResolver(ctx, table, ids));
}

/** The translator's population hook over resolved populations, compiled on the same columns into the same statement. */
export function populationSqlOf(queries: Record<string, Query>, set: ColumnSet) {
  return (populationId: string, params: SqlParams) => {
    const q = queries[populationId.toLowerCase()];
    return q ? `(${compileFilter(q, set, params).sql})` : "FALSE";
  };
}

/** The translator's population hook for a query on this table (undefined when it names no population). */
export async function populationSqlFor(ctx: RequestContext, query: unknown, set: ColumnSet, table: RowsTable & { analysisId?: string | null; engagementId?: string | null }) {
  if (populationIdsIn(query).size === 0 || !populationResolver) return undefined;
  return populationSqlOf(await populationQueriesFor(ctx, query, table), set);
}
