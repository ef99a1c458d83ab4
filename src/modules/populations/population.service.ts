import { entityById } from "../common/relations.js";
import { NotFoundError, ValidationError, type Problem } from "../../core/errors.js";
import { ownerGoneAs } from "../../core/db-errors.js";
import { assertContent, createAudit, findEntity, queryEntities, saveVersioned, type PageArgs } from "../../entity/index.js";
import { inTransaction } from "../../events/outbox.js";
import { actorOf, type RequestContext } from "../../graphql/context.js";
import type { Permission } from "../../auth/permissions.js";
import type { ColumnSet } from "../../query-language/index.js";
import { ANALYSIS_TYPE_IDS } from "../catalogue/ids.js";
import { columnSet } from "../data-tables/data-table-rows.js";
import type { DataTableColumn } from "../data-tables/data-table-definition.js";
import { conditionProblems, storedCondition, type Condition } from "../saved-filters/conditions/condition-check.js";
import { compileCondition, type Query } from "../saved-filters/conditions/condition-compile.js";
import { assertDisplayOptions } from "../saved-filters/display-options.js";
import { populationColumns } from "./population.columns.js";
import type { CreatePopulationInput, UpdatePopulationInput } from "./population.inputs.js";

const ENTITY = "Population";
const GL_TYPES: string[] = [ANALYSIS_TYPE_IDS.GENERAL_LEDGER, ANALYSIS_TYPE_IDS.NOT_FOR_PROFIT_GENERAL_LEDGER, ANALYSIS_TYPE_IDS.NOT_FOR_PROFIT_GENERAL_LEDGER_FUND];
/** Populations apply to general ledger entries only (spec 2.9). */
const ENTRIES_TABLES = ["gl_journal_lines"];

type Level = "library" | "engagement" | "analysis";
const LEVEL_PERMISSION: Record<Level, Permission> = { library: "api.libraries.read", engagement: "api.engagements.read", analysis: "api.analyses.read" };

function levelOf(p: { libraryId: string | null; engagementId: string | null; analysisId: string | null }): Level {
  return p.analysisId ? "analysis" : p.engagementId ? "engagement" : "library";
}

/** Access is inherited from the parent: a population whose level the token cannot read is absent. */
function canReach(ctx: RequestContext, level: Level): boolean {
  return Boolean(ctx.auth?.permissions.has(LEVEL_PERMISSION[level]));
}

export async function getPopulation(ctx: RequestContext, id: string) {
  const row = await findEntity(ctx.app, "population", ENTITY, id);
  if (!canReach(ctx, levelOf(row))) throw new NotFoundError(ENTITY, id);
  return row;
}

const populationById = entityById("population");

/** `Population.basePopulation` (batched per response): null when the caller cannot reach its level, like a 404 from getPopulation. */
export async function populationOf(ctx: RequestContext, id: string | null | undefined) {
  const row = await populationById(ctx, id);
  return row && canReach(ctx, levelOf(row)) ? row : null;
}

export function queryPopulations(ctx: RequestContext, args: PageArgs) {
  const reachable = (Object.keys(LEVEL_PERMISSION) as Level[]).filter((level) => canReach(ctx, level));
  const clause = (level: Level) => (level === "analysis" ? "t.analysis_id IS NOT NULL" : level === "engagement" ? "(t.analysis_id IS NULL AND t.engagement_id IS NOT NULL)" : "(t.analysis_id IS NULL AND t.engagement_id IS NULL)");
  return queryEntities(ctx.app, { model: "population", columns: populationColumns, scope: () => (reachable.length === 0 ? "FALSE" : `(${reachable.map(clause).join(" OR ")})`) }, args);
}

function conversionError(problems: Problem[]): ValidationError {
  return ValidationError.of(problems.map((p) => ({ ...p, problemType: "POPULATION_CONVERSION_FAILED" })));
}

/** The general ledger entries tables a population at this level must fit: its analysis's latest result, or those of the engagement's analyses. */
async function tablesFor(ctx: RequestContext, scope: { engagementId?: string | null; analysisId?: string | null }) {
  if (!scope.analysisId && !scope.engagementId) return [];
  const tables = await ctx.prisma.$queryRawUnsafe<Array<{ id: string; logical_name: string; type: string | null; table_name: string; columns: unknown; row_count: bigint }>>(
    `SELECT d.id, d.logical_name, d.type, d.table_name, d.columns, d.row_count FROM analysis a
     JOIN data_table d ON d.analysis_result_id = a.latest_analysis_result_id AND d.logical_name = ANY($2)
     WHERE ${scope.analysisId ? "a.id = $1" : "a.engagement_id = $1"}`,
    scope.analysisId ?? scope.engagementId,
    ENTRIES_TABLES,
  );
  return tables.map((t) => columnSet({ id: t.id, logicalName: t.logical_name, type: t.type, tableName: t.table_name, columns: t.columns as DataTableColumn[], rowCount: Number(t.row_count) }));
}

/** Shape rules with the population-only fields, then the fit on every table the population applies to. */
async function checkPopulationCondition(ctx: RequestContext, condition: unknown, scope: { engagementId?: string | null; analysisId?: string | null }) {
  const problems = conditionProblems(condition, { population: true });
  if (problems.length > 0) throw conversionError(problems);
  for (const set of await tablesFor(ctx, scope)) {
    const result = compileCondition(condition as Condition, set, { problemType: "POPULATION_CONVERSION_FAILED" });
    if (result.errors.length > 0) throw conversionError(result.errors);
  }
}

async function scopeOf(ctx: RequestContext, input: CreatePopulationInput) {
  const given = (["libraryId", "engagementId", "analysisId"] as const).filter((k) => input[k]);
  if (given.length !== 1) throw new ValidationError("Give exactly one of libraryId, engagementId or analysisId", { identifier: given[1] ?? "libraryId" });
  if (input.analysisId) {
    const analysis = await ctx.prisma.analysis.findUnique({ where: { id: input.analysisId } });
    if (!analysis) throw new ValidationError(`analysisId ${input.analysisId} refers to no analysis`, { identifier: "analysisId", values: [input.analysisId] });
    return { analysisId: analysis.id, engagementId: analysis.engagementId, libraryId: null, analysisTypeId: analysis.analysisTypeId };
  }
  if (input.engagementId) {
    const engagement = await ctx.prisma.engagement.findUnique({ where: { id: input.engagementId } });
    if (!engagement) throw new ValidationError(`engagementId ${input.engagementId} refers to no engagement`, { identifier: "engagementId", values: [input.engagementId] });
    return { analysisId: null, engagementId: engagement.id, libraryId: null, analysisTypeId: input.analysisTypeId ?? ANALYSIS_TYPE_IDS.GENERAL_LEDGER };
  }
  const library = await ctx.prisma.library.findUnique({ where: { id: input.libraryId! } });
  if (!library) throw new ValidationError(`libraryId ${input.libraryId} refers to no library`, { identifier: "libraryId", values: [input.libraryId] });
  return { analysisId: null, engagementId: null, libraryId: library.id, analysisTypeId: input.analysisTypeId ?? ANALYSIS_TYPE_IDS.GENERAL_LEDGER };
}

/**
 * Inheritance: a population created from a base one one level up derives from it (library ->
 * engagement: derivedFromLibrary; engagement -> analysis: derivedFromEngagement) and takes its
 * condition unless it brings its own; one created at engagement level from an analysis-level base is
 * a promotion (promotedFromAnalysisId).
 */
export async function createPopulation(ctx: RequestContext, input: CreatePopulationInput) {
  assertContent(input);
  assertDisplayOptions(input);
  const scope = await scopeOf(ctx, input);
  if (!GL_TYPES.includes(scope.analysisTypeId)) {
    throw new ValidationError("Populations apply to general ledger analyses only", { identifier: input.analysisId ? "analysisId" : "analysisTypeId", values: [scope.analysisTypeId], problemType: "POPULATION_CONVERSION_FAILED" });
  }
  let derived = { derivedFromLibrary: false, derivedFromEngagement: false, promotedFromAnalysisId: null as string | null, clonedFrom: null as string | null };
  let condition = input.condition;
  if (input.basePopulationId) {
    const base = await ctx.prisma.population.findUnique({ where: { id: input.basePopulationId } });
    if (!base || !canReach(ctx, levelOf(base))) throw new ValidationError(`basePopulationId ${input.basePopulationId} refers to no population`, { identifier: "basePopulationId", values: [input.basePopulationId] });
    const from = levelOf(base);
    const to = scope.analysisId ? "analysis" : scope.engagementId ? "engagement" : "library";
    const sameTree = (from === "library" && to === "engagement") || (from === "engagement" && to === "analysis" && base.engagementId === scope.engagementId) || (from === "analysis" && to === "engagement" && base.engagementId === scope.engagementId);
    if (!sameTree) throw new ValidationError(`A ${to}-level population cannot be based on a ${from}-level population of another scope`, { identifier: "basePopulationId", values: [base.id] });
    derived = { derivedFromLibrary: from === "library", derivedFromEngagement: from === "engagement", promotedFromAnalysisId: from === "analysis" ? base.analysisId : null, clonedFrom: base.id };
    condition ??= base.condition;
  }
  if (condition === undefined || condition === null) throw new ValidationError("condition is required (or a basePopulationId to take it from)", { identifier: "condition" });
  await checkPopulationCondition(ctx, condition, scope);
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const row = await tx.population.create({
      data: {
        ...createAudit(actor),
        name: input.name,
        description: input.description ?? null,
        category: input.category ?? null,
        ...scope,
        basePopulationId: input.basePopulationId ?? null,
        condition: storedCondition(condition),
        disabled: input.disabled ?? false,
        ...derived,
        displayCurrencyCode: input.displayCurrencyCode ?? null,
        displayLocale: input.displayLocale ?? null,
      },
    });
    emit({ type: "population.created", entityType: "POPULATION", entityId: row.id, userId: actor.userId, payload: { populationId: row.id, engagementId: row.engagementId, analysisId: row.analysisId } });
    return row;
  }).catch(ownerGoneAs(input.analysisId ? "analysisId" : input.engagementId ? "engagementId" : "libraryId", input.analysisId ?? input.engagementId ?? input.libraryId));
}

/**
 * Disabling an analysis-level population derived from an engagement one records the analysis in
 * the engagement population's `disabledForAnalysisIds` (and enabling removes it), in one transaction.
 */
export async function updatePopulation(ctx: RequestContext, id: string, input: UpdatePopulationInput) {
  assertContent(input);
  assertDisplayOptions(input);
  const current = await getPopulation(ctx, id);
  if (input.condition !== undefined && input.condition !== null) await checkPopulationCondition(ctx, input.condition, current);
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const data: Record<string, unknown> = {};
    for (const key of ["name", "description", "category", "reasonForChange", "displayCurrencyCode", "displayLocale"] as const) if (input[key] !== undefined) data[key] = input[key];
    if (input.disabled != null) data.disabled = input.disabled;
    if (input.condition != null) {
      data.condition = storedCondition(input.condition);
      data.legacyFilterFormat = false;
    }
    const row = await saveVersioned(tx.population, ENTITY, id, input.version, data, actor);
    if (input.disabled != null && current.derivedFromEngagement && current.basePopulationId && current.analysisId) {
      const base = await tx.population.findUnique({ where: { id: current.basePopulationId } });
      if (base) {
        const others = base.disabledForAnalysisIds.filter((a) => a !== current.analysisId);
        await tx.population.update({ where: { id: base.id }, data: { disabledForAnalysisIds: input.disabled ? [...others, current.analysisId] : others } });
      }
    }
    emit({ type: "population.updated", entityType: "POPULATION", entityId: id, userId: actor.userId, payload: { populationId: id, engagementId: row.engagementId, analysisId: row.analysisId } });
    return row;
  });
}

export async function deletePopulation(ctx: RequestContext, id: string) {
  const current = await getPopulation(ctx, id);
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const deleted = await tx.population.deleteMany({ where: { id } });
    if (deleted.count === 0) throw new NotFoundError(ENTITY, id);
    emit({ type: "population.deleted", entityType: "POPULATION", entityId: id, userId: actor.userId, payload: { populationId: id, engagementId: current.engagementId, analysisId: current.analysisId } });
    return { id };
  });
}

/**
 * `$population` on a data table: the populations of the table's analysis, engagement or library
 * that are enabled for it, each compiled on the table's columns. Others match nothing.
 */
export async function populationQueries(ctx: RequestContext, set: ColumnSet, table: { analysisId?: string | null; engagementId?: string | null }, ids: string[]): Promise<Map<string, Query>> {
  const engagement = table.engagementId ? await ctx.prisma.engagement.findUnique({ where: { id: table.engagementId }, select: { libraryId: true } }) : null;
  const rows = await ctx.prisma.population.findMany({ where: { id: { in: ids }, disabled: false } });
  const out = new Map<string, Query>();
  for (const p of rows) {
    const belongs = (p.analysisId && p.analysisId === table.analysisId) || (!p.analysisId && p.engagementId && p.engagementId === table.engagementId) || (!p.engagementId && p.libraryId && p.libraryId === engagement?.libraryId);
    if (!belongs || !canReach(ctx, levelOf(p)) || (table.analysisId && p.disabledForAnalysisIds.includes(table.analysisId)) || p.condition === null) continue;
    const result = compileCondition(p.condition, set, { problemType: "POPULATION_CONVERSION_FAILED", path: `$population(${p.id}).condition` });
    if (result.errors.length > 0) throw conversionError(result.errors);
    out.set(p.id, result.query);
  }
  return out;
}
