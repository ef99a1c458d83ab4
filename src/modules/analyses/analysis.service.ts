import { ConflictError, NotFoundError, ValidationError, type Problem } from "../../core/errors.js";
import { assertContent, createAudit, queryEntities, relatedList, saveVersioned, type Actor, type PageArgs, type RelatedListArgs } from "../../entity/index.js";
import { newId } from "../../core/ids.js";
import { inTransaction, type Emit, type Tx } from "../../events/outbox.js";
import { actorOf, type RequestContext } from "../../graphql/context.js";
import { forgetAnalysisSources } from "../account-mappings/account-mapping.service.js";
import { forgetAnalysisInPopulations } from "../populations/population.cleanup.js";
import { copyEngagementConfigurationToAnalysis } from "../analysis-type-configurations/configuration.copy.js";
import { assertReportingPeriodConfigurationExists } from "../reporting-periods/reporting-period.service.js";
import { analysisColumns } from "./analysis.columns.js";
import { analysisPeriodProblems, type PeriodInput } from "./analysis-period.rules.js";
import type { CreateAnalysisInput, UpdateAnalysisInput } from "./analysis.inputs.js";

const ENTITY = "Analysis";
const CURRENCY = /^[A-Z]{3}$/;
export const DEFAULT_CURRENCY = "USD";

export const withPeriods = { analysisPeriods: { orderBy: { startDate: "asc" as const } } };

export async function getAnalysis(ctx: RequestContext, id: string) {
  const analysis = await ctx.prisma.analysis.findUnique({ where: { id }, include: withPeriods });
  if (!analysis) throw new NotFoundError(ENTITY, id);
  return analysis;
}

const analysesByEngagement = relatedList({ model: "analysis", columns: analysisColumns, parentField: "engagementId" });

/** `Engagement.analyses`: the engagement's analyses with the /analyses/query filter and sort. */
export function engagementAnalyses(ctx: RequestContext, engagementId: string, args: RelatedListArgs) {
  return analysesByEngagement(ctx.app, ctx, engagementId, args);
}

/** A page of analyses with their periods (one more query for the whole page). */
export async function queryAnalyses(ctx: RequestContext, args: PageArgs) {
  const page = await queryEntities(ctx.app, { model: "analysis", columns: analysisColumns }, args);
  const periods = await ctx.prisma.analysisPeriod.findMany({ where: { analysisId: { in: page.content.map((a) => a.id) } }, orderBy: { startDate: "asc" } });
  return { ...page, content: page.content.map((a) => ({ ...a, analysisPeriods: periods.filter((p) => p.analysisId === a.id) })) };
}

export const dateOnly = (date: Date) => date.toISOString().slice(0, 10);
const asDate = (date: string) => new Date(`${date}T00:00:00Z`);

export function periodsOf(analysis: { analysisPeriods: Array<{ id: string; startDate: Date; endDate: Date; interimAsAtDate: Date | null }> }) {
  return analysis.analysisPeriods.map((p) => ({ id: p.id, startDate: dateOnly(p.startDate), endDate: dateOnly(p.endDate), interimAsAtDate: p.interimAsAtDate ? dateOnly(p.interimAsAtDate) : null }));
}

function currencyProblems(code: string | null | undefined): Problem[] {
  if (code == null || CURRENCY.test(code)) return [];
  return [{ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier: "currencyCode", reason: "currencyCode is a three-letter ISO 4217 code in capitals, e.g. USD", values: [code] }];
}

export function emitAnalysisEvent(emit: Emit, verb: "created" | "updated" | "deleted" | "archived" | "unarchived", analysis: { id: string; engagementId: string }, userId: string) {
  emit({ type: `analysis.${verb}`, entityType: "ANALYSIS", entityId: analysis.id, userId, payload: { analysisId: analysis.id, engagementId: analysis.engagementId } });
}

export async function createAnalysis(ctx: RequestContext, input: CreateAnalysisInput) {
  assertContent(input, ["analysisPeriods"]);
  const engagement = await ctx.prisma.engagement.findUnique({ where: { id: input.engagementId }, select: { id: true } });
  if (!engagement) throw new ValidationError(`engagementId ${input.engagementId} refers to no engagement`, { identifier: "engagementId", values: [input.engagementId] });
  const type = await ctx.prisma.analysisType.findUnique({ where: { id: input.analysisTypeId } });
  if (!type || type.archived) throw new ValidationError(`analysisTypeId ${input.analysisTypeId} is not an available analysis type`, { identifier: "analysisTypeId", values: [input.analysisTypeId] });
  const configured = await ctx.prisma.analysisTypeConfiguration.count({ where: { engagementId: engagement.id, analysisTypeId: type.id } });
  if (configured === 0) {
    throw new ValidationError(`Analysis type ${type.id} is not one of the analysis types of engagement ${engagement.id}'s library`, { identifier: "analysisTypeId", values: [type.id] });
  }
  await assertReportingPeriodConfigurationExists(ctx, input.reportingPeriodConfigurationId);
  const options = { interim: input.interim ?? false, periodic: input.periodic ?? false };
  const problems = [...currencyProblems(input.currencyCode), ...analysisPeriodProblems(input.analysisPeriods, options, type)];
  if (problems.length > 0) throw ValidationError.of(problems);
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const analysis = await insertAnalysis(tx, { ...input, ...options, currencyCode: input.currencyCode ?? DEFAULT_CURRENCY }, actor);
    emitAnalysisEvent(emit, "created", analysis, actor.userId);
    return analysis;
  });
}

export interface NewAnalysis {
  engagementId: string;
  analysisTypeId: string;
  name: string;
  interim: boolean;
  periodic: boolean;
  currencyCode: string;
  referenceId?: string | null;
  reportingPeriodConfigurationId?: string | null;
  rolledForwardFromAnalysisId?: string | null;
  analysisPeriods: PeriodInput[];
}

/** Writes a validated analysis with its periods and its copy of the engagement's configuration. */
export async function insertAnalysis(tx: Tx, input: NewAnalysis, actor: Actor) {
  const analysis = await tx.analysis.create({
    data: {
      ...createAudit(actor),
      engagementId: input.engagementId,
      analysisTypeId: input.analysisTypeId,
      name: input.name,
      interim: input.interim,
      periodic: input.periodic,
      currencyCode: input.currencyCode,
      referenceId: input.referenceId ?? null,
      reportingPeriodConfigurationId: input.reportingPeriodConfigurationId ?? null,
      rolledForwardFromAnalysisId: input.rolledForwardFromAnalysisId ?? null,
      analysisPeriods: {
        create: input.analysisPeriods.map((p) => ({ id: newId(), startDate: asDate(p.startDate), endDate: asDate(p.endDate), interimAsAtDate: p.interimAsAtDate ? asDate(p.interimAsAtDate) : null })),
      },
    },
    include: withPeriods,
  });
  await copyEngagementConfigurationToAnalysis(tx, analysis, actor);
  return analysis;
}

/**
 * Periods sent with an id update that period, without one are added, and stored periods left out
 * are removed. An archived analysis only accepts being unarchived.
 */
export async function updateAnalysis(ctx: RequestContext, id: string, input: UpdateAnalysisInput) {
  assertContent(input, ["analysisPeriods"]);
  const current = await getAnalysis(ctx, id);
  if (current.archived && input.archived !== false) {
    throw new ConflictError(`Analysis ${id} is archived; send archived: false to unarchive it before changing it`, { identifier: "archived", entityId: id, entityType: ENTITY });
  }
  const problems = currencyProblems(input.currencyCode);
  if (input.analysisPeriods) {
    const known = new Set(current.analysisPeriods.map((p) => p.id));
    input.analysisPeriods.forEach((p, i) => {
      if (p.id && !known.has(p.id)) problems.push({ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier: `analysisPeriods[${i}].id`, reason: `${p.id} is not a period of analysis ${id}`, values: [p.id] });
    });
    const type = await ctx.prisma.analysisType.findUniqueOrThrow({ where: { id: current.analysisTypeId } });
    problems.push(...analysisPeriodProblems(input.analysisPeriods, current, type));
  }
  if (problems.length > 0) throw ValidationError.of(problems);
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const data: Record<string, unknown> = {};
    if (input.name != null) data.name = input.name;
    if (input.currencyCode != null) data.currencyCode = input.currencyCode;
    if (input.archived != null) data.archived = input.archived;
    await saveVersioned(tx.analysis, ENTITY, id, input.version, data, actor);
    if (input.analysisPeriods) {
      const kept = input.analysisPeriods.filter((p) => p.id).map((p) => p.id!);
      await tx.analysisPeriod.deleteMany({ where: { analysisId: id, id: { notIn: kept } } });
      for (const p of input.analysisPeriods) {
        const dates = { startDate: asDate(p.startDate), endDate: asDate(p.endDate), interimAsAtDate: p.interimAsAtDate ? asDate(p.interimAsAtDate) : null };
        if (p.id) await tx.analysisPeriod.update({ where: { id: p.id }, data: dates });
        else await tx.analysisPeriod.create({ data: { id: newId(), analysisId: id, ...dates } });
      }
    }
    const flipped = input.archived != null && input.archived !== current.archived;
    const otherChanges = input.name != null || input.currencyCode != null || input.analysisPeriods != null;
    if (otherChanges || !flipped) emitAnalysisEvent(emit, "updated", current, actor.userId);
    if (flipped) emitAnalysisEvent(emit, input.archived ? "archived" : "unarchived", current, actor.userId);
    return tx.analysis.findUniqueOrThrow({ where: { id }, include: withPeriods });
  });
}

export async function deleteAnalysis(ctx: RequestContext, id: string) {
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const analysis = await tx.analysis.findUnique({ where: { id }, select: { id: true, engagementId: true } });
    if (!analysis) throw new NotFoundError(ENTITY, id);
    const sources = await tx.analysisSource.findMany({ where: { analysisId: id }, select: { id: true } });
    await tx.analysis.delete({ where: { id } });
    await forgetAnalysisSources(tx, actor, analysis.engagementId, sources.map((s) => s.id));
    await forgetAnalysisInPopulations(tx, emit, actor, id);
    emitAnalysisEvent(emit, "deleted", analysis, actor.userId);
    return { id };
  });
}

/** An analysis without its own reporting period configuration uses its engagement's (spec 2.12). */
export async function effectiveReportingPeriodConfigurationId(ctx: RequestContext, analysis: { reportingPeriodConfigurationId: string | null; engagementId: string }) {
  if (analysis.reportingPeriodConfigurationId) return analysis.reportingPeriodConfigurationId;
  const engagement = await ctx.prisma.engagement.findUnique({ where: { id: analysis.engagementId }, select: { reportingPeriodConfigurationId: true } });
  return engagement?.reportingPeriodConfigurationId ?? null;
}
