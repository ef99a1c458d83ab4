import { displayOptionProblems } from "./display-options.js";
import { ForbiddenError, NotFoundError, ValidationError, type Problem } from "../../core/errors.js";
import { ownerGoneAs } from "../../core/db-errors.js";
import { assertContent, createAudit, findEntity, queryEntities, saveVersioned, type PageArgs } from "../../entity/index.js";
import { inTransaction } from "../../events/outbox.js";
import { actorOf, type RequestContext } from "../../graphql/context.js";
import type { ColumnSet } from "../../query-language/index.js";
import { columnSet } from "../data-tables/data-table-rows.js";
import { conditionProblems, storedCondition, type Condition } from "./conditions/condition-check.js";
import { compileCondition, type Query } from "./conditions/condition-compile.js";
import { savedFilterColumns } from "./saved-filter.columns.js";
import type { CreateSavedFilterInput, UpdateSavedFilterInput } from "./saved-filter.inputs.js";

const ENTITY = "SavedFilter";

type Lang = Record<string, string>;

type StoredFilter = Awaited<ReturnType<typeof findFilterRow>>;

function findFilterRow(ctx: RequestContext, id: string) {
  return findEntity(ctx.app, "savedFilter", ENTITY, id);
}

/** PRIVATE filters belong to the user (token) that created them: others get 404, as if absent. */
export async function getSavedFilter(ctx: RequestContext, id: string) {
  const row = await findFilterRow(ctx, id);
  if (row.filterType === "PRIVATE" && row.createdUserId !== actorOf(ctx).userId) throw new NotFoundError(ENTITY, id);
  return row;
}

export function querySavedFilters(ctx: RequestContext, args: PageArgs) {
  const userId = actorOf(ctx).userId;
  return queryEntities(ctx.app, { model: "savedFilter", columns: savedFilterColumns, scope: (params) => `(t.filter_type <> 'PRIVATE' OR t.created_user_id = ${params.add(userId, "text")})` }, args);
}

/** A `name` or `category` (JSON on the wire) as language code -> text; null when absent or when it is not one (a problem then). */
function langOf(value: unknown, key: string, problems: Problem[]): Lang | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "object" || Array.isArray(value) || Object.keys(value).length === 0) {
    problems.push({ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier: key, reason: `${key} is an object of language code -> text with at least one entry`, values: [JSON.stringify(value)] });
    return null;
  }
  const lang: Lang = {};
  for (const [code, text] of Object.entries(value)) {
    if (typeof text !== "string" || text.trim() === "") problems.push({ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier: `${key}.${code}`, reason: `${key}.${code} must be non-blank text`, values: [JSON.stringify(text)] });
    else lang[code] = text;
  }
  return lang;
}

/** Where a filter of each type lives: the id key it needs (PRIVATE needs none). */
const SCOPE_KEY: Record<string, "libraryId" | "organizationId" | "engagementId" | null> = { LIBRARY: "libraryId", ORGANIZATION: "organizationId", ENGAGEMENT: "engagementId", PRIVATE: null };

async function checkScope(ctx: RequestContext, filter: { filterType: string; libraryId?: string | null; organizationId?: string | null; engagementId?: string | null; analysisTypeId?: string | null }) {
  const key = SCOPE_KEY[filter.filterType];
  if (key && !filter[key]) throw new ValidationError(`A ${filter.filterType} filter needs ${key}`, { identifier: key });
  const exists = async (id: string | null | undefined, model: "library" | "organization" | "engagement" | "analysisType", identifier: string) => {
    if (!id) return;
    const row = await (ctx.prisma[model] as unknown as { findUnique(a: unknown): Promise<unknown> }).findUnique({ where: { id }, select: { id: true } });
    if (!row) throw new ValidationError(`${identifier} ${id} refers to nothing`, { identifier, values: [id] });
  };
  await exists(filter.libraryId, "library", "libraryId");
  await exists(filter.organizationId, "organization", "organizationId");
  await exists(filter.engagementId, "engagement", "engagementId");
  await exists(filter.analysisTypeId, "analysisType", "analysisTypeId");
}

/**
 * Rules of the condition that need the database or the filter's level: its shape (a GROUP at the
 * top), BETWEEN risk scores naming the bounds of a risk range of the filter's library or engagement,
 * and POPULATIONS only where populations exist (engagement and private filters).
 */
async function checkCondition(ctx: RequestContext, condition: unknown, filter: { filterType: string; libraryId?: string | null; engagementId?: string | null; analysisTypeId?: string | null }) {
  const problems = conditionProblems(condition, { topLevelGroup: true });
  if (problems.length > 0) throw ValidationError.of(problems);
  const between: Array<{ path: string; c: Condition }> = [];
  const walk = (c: Condition, path: string) => {
    if (c.type === "GROUP") (c.conditions as Condition[]).forEach((child, i) => walk(child, `${path}.conditions[${i}]`));
    if (c.type === "RISK_SCORE" && c.riskScorePercentType === "BETWEEN") between.push({ path, c });
    if (c.type === "POPULATIONS" && (filter.filterType === "LIBRARY" || filter.filterType === "ORGANIZATION")) {
      problems.push({ problemType: "FILTER_CONVERSION_FAILED", severity: "ERROR", identifier: `${path}.type`, reason: "POPULATIONS conditions belong to analysis-level filters (engagement or private ones), not to library or organization filters", values: [c.type] });
    }
  };
  walk(condition as Condition, "condition");
  if (between.length > 0) {
    const ranges = await ctx.prisma.riskRange.findMany({
      where: {
        ...(filter.analysisTypeId ? { analysisTypeId: filter.analysisTypeId } : {}),
        OR: [{ system: true }, ...(filter.libraryId ? [{ libraryId: filter.libraryId }] : []), ...(filter.engagementId ? [{ engagementId: filter.engagementId }] : [])],
      },
    });
    const bounds = new Set(ranges.flatMap((r) => [`${r.lowLowThreshold}-${r.lowHighThreshold}`, `${r.mediumLowThreshold}-${r.mediumHighThreshold}`, `${r.highLowThreshold}-${r.highHighThreshold}`]));
    for (const { path, c } of between) {
      if (!bounds.has(`${c.rangeStart}-${c.rangeEnd}`)) {
        problems.push({
          problemType: "RISK_SCORE_FILTER_CONVERSION_FAILED",
          severity: "ERROR",
          identifier: `${path}.rangeStart`,
          reason: "A BETWEEN risk score condition must name the low and high threshold of one bound of a risk range (use CUSTOM_RANGE for other pairs)",
          values: [`${c.rangeStart}-${c.rangeEnd}`],
          suggestedValues: [...bounds].slice(0, 20),
        });
      }
    }
  }
  if (problems.length > 0) throw ValidationError.of(problems);
}

export async function createSavedFilter(ctx: RequestContext, input: CreateSavedFilterInput) {
  assertContent(input);
  const problems: Problem[] = displayOptionProblems(input);
  const name = langOf(input.name, "name", problems);
  const category = langOf(input.category, "category", problems);
  if (!name && problems.length === 0) problems.push({ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier: "name", reason: "name is required" });
  if (problems.length > 0 || !name) throw ValidationError.of(problems);
  for (const key of ["libraryId", "organizationId", "engagementId"] as const) {
    if (input[key] && SCOPE_KEY[input.filterType] !== key && !(input.filterType === "PRIVATE" && key === "engagementId")) {
      throw new ValidationError(`A ${input.filterType} filter does not take ${key}`, { identifier: key, values: [input[key]] });
    }
  }
  await checkScope(ctx, input);
  await checkCondition(ctx, input.condition, input);
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const row = await tx.savedFilter.create({
      data: {
        ...createAudit(actor),
        name,
        category: category ?? undefined,
        filterType: input.filterType,
        dataType: input.dataType,
        libraryId: input.libraryId ?? null,
        organizationId: input.organizationId ?? null,
        engagementId: input.engagementId ?? null,
        analysisTypeId: input.analysisTypeId ?? null,
        condition: storedCondition(input.condition),
        displayCurrencyCode: input.displayCurrencyCode ?? null,
        displayLocale: input.displayLocale ?? null,
        legacyFilterFormat: false,
      },
    });
    emit({ type: "saved-filter.created", entityType: "SAVED_FILTER", entityId: row.id, userId: actor.userId, payload: { savedFilterId: row.id } });
    return row;
  }).catch(ownerGoneAs(SCOPE_KEY[input.filterType] ?? "engagementId", input[SCOPE_KEY[input.filterType] ?? "engagementId"]));
}

/**
 * An update may change the filter's level (its id key must then be present) and its condition; a
 * legacy-format filter (condition null) becomes an ordinary one when a condition is sent.
 */
export async function updateSavedFilter(ctx: RequestContext, id: string, input: UpdateSavedFilterInput) {
  assertContent(input);
  const current = await getSavedFilter(ctx, id);
  const problems: Problem[] = displayOptionProblems(input);
  const name = langOf(input.name, "name", problems);
  const category = langOf(input.category, "category", problems);
  if (problems.length > 0) throw ValidationError.of(problems);
  const next = { ...current, filterType: input.filterType ?? current.filterType };
  if (input.filterType) await checkScope(ctx, next);
  if (input.condition !== undefined && input.condition !== null) await checkCondition(ctx, input.condition, next);
  else if (current.legacyFilterFormat && input.condition === null) {
    // Keeping a legacy filter's (absent) condition is fine; nothing to check.
  }
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const data: Record<string, unknown> = {};
    if (name) data.name = name;
    if (input.category !== undefined) data.category = category ?? undefined;
    if (input.filterType != null) data.filterType = input.filterType;
    if (input.condition != null) {
      data.condition = storedCondition(input.condition);
      data.legacyFilterFormat = false;
    }
    if (input.displayCurrencyCode !== undefined) data.displayCurrencyCode = input.displayCurrencyCode;
    if (input.displayLocale !== undefined) data.displayLocale = input.displayLocale;
    const row = await saveVersioned(tx.savedFilter, ENTITY, id, input.version, data, actor);
    emit({ type: "saved-filter.updated", entityType: "SAVED_FILTER", entityId: id, userId: actor.userId, payload: { savedFilterId: id } });
    return row;
  });
}

export async function deleteSavedFilter(ctx: RequestContext, id: string) {
  await getSavedFilter(ctx, id);
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const deleted = await tx.savedFilter.deleteMany({ where: { id } });
    if (deleted.count === 0) throw new NotFoundError(ENTITY, id);
    emit({ type: "saved-filter.deleted", entityType: "SAVED_FILTER", entityId: id, userId: actor.userId, payload: { savedFilterId: id } });
    return { id };
  });
}

async function dataTableColumns(ctx: RequestContext, dataTableId: string, identifier: string): Promise<{ set: ColumnSet; table: { id: string; type: string | null; logicalName: string | null } }> {
  const table = await ctx.prisma.dataTable.findUnique({ where: { id: dataTableId } });
  if (!table) throw new ValidationError(`${identifier} ${dataTableId} refers to no data table`, { identifier, values: [dataTableId] });
  const set = columnSet({ id: table.id, logicalName: table.logicalName, type: table.type, tableName: table.tableName, columns: table.columns, rowCount: Number(table.rowCount) });
  return { set, table };
}

/** The filter against a table's columns: errors, warnings and, when it fits, the compiled query. */
export function compileSavedFilter(filter: StoredFilter, set: ColumnSet, table: { type: string | null; logicalName: string | null }) {
  const errors: Problem[] = [];
  const warnings: Problem[] = [];
  if (filter.legacyFilterFormat || filter.condition === null) {
    errors.push({ problemType: "FILTER_CONVERSION_FAILED", severity: "ERROR", identifier: "condition", reason: "The filter is in the legacy format, which the API does not support; save a condition to convert it", entityId: filter.id, entityType: ENTITY });
    return { query: {} as Query, errors, warnings };
  }
  const kind = table.type === "transactions" ? "TRANSACTIONS" : "ENTRIES";
  if (filter.dataType !== "LIBRARY" && filter.dataType !== kind) {
    warnings.push({ problemType: "FILTER_CONVERSION_FAILED", severity: "WARNING", identifier: "dataType", reason: `The filter is for ${filter.dataType}, the data table ${table.logicalName ?? ""} holds ${kind}`, values: [filter.dataType] });
  }
  const result = compileCondition(filter.condition, set);
  return { query: result.query, errors: [...errors, ...result.errors], warnings: [...warnings, ...result.warnings] };
}

/** POST /saved-filters/validate {filterId, dataTableId}. */
export async function validateSavedFilter(ctx: RequestContext, filterId: string, dataTableId: string) {
  const filter = await getSavedFilter(ctx, filterId).catch((error: unknown) => {
    if (error instanceof NotFoundError) throw new ValidationError(`filterId ${filterId} refers to no saved filter`, { identifier: "filterId", values: [filterId] });
    throw error;
  });
  const { set, table } = await dataTableColumns(ctx, dataTableId, "dataTableId");
  const result = compileSavedFilter(filter, set, table);
  return { filterId, dataTableId, valid: result.errors.length === 0, errors: result.errors, warnings: result.warnings, query: result.errors.length === 0 ? result.query : null };
}

/**
 * The query a saved filter compiles to on a data table, for the data endpoint and tasks from a
 * filter (400 when it does not fit). Using a filter reads it: the token needs api.filters.read
 * (403 naming the key), and an unknown filter or another user's private one is a 400 naming it.
 */
export async function savedFilterQuery(ctx: RequestContext, filterId: string, set: ColumnSet, table: { type: string | null; logicalName: string | null }, identifier = "savedFilterId"): Promise<Query> {
  if (!ctx.auth?.permissions.has("api.filters.read")) {
    throw new ForbiddenError(`${identifier}: using a saved filter needs the permission api.filters.read`, { identifier, values: [filterId] });
  }
  const filter = await getSavedFilter(ctx, filterId).catch((error: unknown) => {
    if (error instanceof NotFoundError) throw new ValidationError(`${identifier} ${filterId} refers to no saved filter`, { identifier, values: [filterId] });
    throw error;
  });
  const result = compileSavedFilter(filter, set, table);
  if (result.errors.length > 0) throw ValidationError.of(result.errors);
  return result.query;
}
