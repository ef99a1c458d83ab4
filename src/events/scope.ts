import type pg from "pg";

/** Where in the tenant an event happened: the organization, engagement and analysis it concerns. */
export interface EventScope {
  organizationId: string | null;
  engagementId: string | null;
  analysisId: string | null;
}

interface ScopedSource {
  entityType: string;
  entityId: string | null;
  payload: Record<string, unknown>;
}

const MAX_CACHED = 20_000;

const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : null);

/**
 * Works out an event's scope from the ids it carries (its entity, `organizationId`,
 * `engagementId`, `analysisId`, `analysisSourceId`, `analysisResultId` in its payload), looking up
 * the missing parents. Those links never change once written (an engagement stays in its
 * organization, an analysis in its engagement, a source and a result in their analysis), so what is
 * found is cached for the process; an event of a deleted entity carries its parents' ids itself.
 */
export class ScopeResolver {
  private readonly parent = new Map<string, string>();
  private readonly memo = new WeakMap<object, Promise<EventScope>>();

  constructor(private readonly pool: pg.Pool) {}

  /** The scope of an event; computed once per event object however many subscribers ask. */
  of(event: ScopedSource): Promise<EventScope> {
    let scope = this.memo.get(event);
    if (!scope) {
      scope = this.resolve(event).catch(() => ({ organizationId: null, engagementId: null, analysisId: null }));
      this.memo.set(event, scope);
    }
    return scope;
  }

  private async resolve(event: ScopedSource): Promise<EventScope> {
    const p = event.payload ?? {};
    const own = (type: string) => (event.entityType === type ? event.entityId : null);
    let organizationId = text(p.organizationId) ?? own("ORGANIZATION");
    let engagementId = text(p.engagementId) ?? own("ENGAGEMENT");
    let analysisId = text(p.analysisId) ?? own("ANALYSIS");
    const sourceId = text(p.analysisSourceId) ?? own("ANALYSIS_SOURCE");
    const resultId = text(p.analysisResultId) ?? own("ANALYSIS_RESULT");
    if (!analysisId && sourceId) analysisId = await this.lookup("analysis_source", "analysis_id", sourceId);
    if (!analysisId && resultId) analysisId = await this.lookup("analysis_result", "analysis_id", resultId);
    if (!engagementId && analysisId) engagementId = await this.lookup("analysis", "engagement_id", analysisId);
    if (!organizationId && engagementId) organizationId = await this.lookup("engagement", "organization_id", engagementId);
    return { organizationId, engagementId, analysisId };
  }

  private async lookup(table: "analysis_source" | "analysis_result" | "analysis" | "engagement", column: string, id: string): Promise<string | null> {
    const key = `${table}:${id}`;
    const cached = this.parent.get(key);
    if (cached) return cached;
    const { rows } = await this.pool.query<{ parent: string }>({ name: `event-scope:${table}`, text: `SELECT ${column} AS parent FROM ${table} WHERE id = $1`, values: [id] });
    const found = rows[0]?.parent ?? null;
    if (found) {
      if (this.parent.size >= MAX_CACHED) this.parent.clear();
      this.parent.set(key, found);
    }
    return found;
  }
}

const resolvers = new WeakMap<pg.Pool, ScopeResolver>();

/** The process's resolver for this database. */
export function scopeResolver(pool: pg.Pool): ScopeResolver {
  let resolver = resolvers.get(pool);
  if (!resolver) resolvers.set(pool, (resolver = new ScopeResolver(pool)));
  return resolver;
}
