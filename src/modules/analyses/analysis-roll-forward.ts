import { assertContent, touchAudit } from "../../entity/index.js";
import { ValidationError } from "../../core/errors.js";
import { inTransaction } from "../../events/outbox.js";
import { actorOf, type RequestContext } from "../../graphql/context.js";
import { defineJob, JobError, jobStarter, startJob, type JobContext } from "../../jobs/index.js";
import { analysisTypeKeyOf, defaultConfiguration, type Configuration } from "../catalogue/control-points.data.js";
import { configurationOf } from "../analysis-type-configurations/configuration.copy.js";
import { matchesDefaults } from "../analysis-type-configurations/configuration.rules.js";
import { addYears, analysisPeriodProblems, type PeriodInput } from "./analysis-period.rules.js";
import { emitAnalysisEvent, getAnalysis, insertAnalysis, periodsOf } from "./analysis.service.js";
import type { RollForwardAnalysisInput } from "./analysis.inputs.js";


interface RollForwardPayload {
  sourceAnalysisId: string;
  analysisId: string;
}

/**
 * Later families roll their own data forward (analysis sources become prior-period data, files are
 * marked ROLLED_FORWARD) by registering a step; each must be idempotent, like the job.
 */
export type RollForwardStep = (ctx: JobContext, payload: RollForwardPayload) => Promise<void>;
const steps: RollForwardStep[] = [];

export function registerRollForwardStep(step: RollForwardStep): void {
  steps.push(step);
}

/**
 * The new analysis keeps its target engagement's risk range choices (ranges belong to an
 * engagement) and takes the source analysis's risk group settings: weights, filters, enablement.
 */
function carryOverSettings(target: Configuration, source: Configuration): Configuration {
  return {
    ...target,
    riskGroups: target.riskGroups.map((group) => {
      const from = source.riskGroups.find((g) => g.id === group.id);
      return from ? { ...group, disabled: from.disabled, controlPointWeights: { ...from.controlPointWeights }, filter: { values: [...from.filter.values] } } : group;
    }),
  };
}

export const rollForwardJob = defineJob<RollForwardPayload>({
  name: "analyses.roll-forward",
  type: "ANALYSIS_ROLL_FORWARD",
  retry: { attempts: 3, backoffSeconds: 5 },
  async run(ctx, payload) {
    const prisma = ctx.app.prisma;
    const [source, target] = await Promise.all([
      prisma.analysisTypeConfiguration.findFirst({ where: { analysisId: payload.sourceAnalysisId } }),
      prisma.analysisTypeConfiguration.findFirst({ where: { analysisId: payload.analysisId } }),
    ]);
    if (!target) throw new JobError(`The rolled-forward analysis ${payload.analysisId} was deleted before its settings were copied`);
    if (!source) throw new JobError(`The source analysis ${payload.sourceAnalysisId} was deleted before its settings were copied`);
    for (const step of steps) await step(ctx, payload);
    await ctx.finish(async (tx) => {
      const configuration = carryOverSettings(configurationOf(target), configurationOf(source));
      const key = analysisTypeKeyOf(target.analysisTypeId);
      await tx.analysisTypeConfiguration.update({
        where: { id: target.id },
        data: {
          configuration,
          system: key ? matchesDefaults(configuration, defaultConfiguration(key, null)) : false,
          version: { increment: 1 },
          ...touchAudit(ctx.startedBy),
        },
      });
    });
  },
});

/** Each period one year later; an interim as-at date moves with it, or is set the day before the new end. */
export function rolledPeriods(periods: ReadonlyArray<PeriodInput>, interim: boolean): PeriodInput[] {
  const shifted = periods.map((p) => ({ startDate: addYears(p.startDate, 1), endDate: addYears(p.endDate, 1), interimAsAtDate: interim && p.interimAsAtDate ? addYears(p.interimAsAtDate, 1) : null }));
  if (interim && shifted.length > 0) {
    const latest = shifted.reduce((a, b) => (a.startDate > b.startDate ? a : b));
    for (const p of shifted) if (p !== latest) p.interimAsAtDate = null;
    if (!latest.interimAsAtDate) {
      const end = new Date(`${latest.endDate}T00:00:00Z`);
      end.setUTCDate(end.getUTCDate() - 1);
      latest.interimAsAtDate = end.toISOString().slice(0, 10);
    }
  }
  return shifted;
}

/**
 * POST /analyses/engagement-roll-forward: a new analysis in another engagement from an existing
 * analysis, its periods a year later. The analysis exists when this answers (callers GET it at
 * once); the ANALYSIS_ROLL_FORWARD job then carries over its settings and registered data.
 */
export async function rollForwardAnalysis(ctx: RequestContext, input: RollForwardAnalysisInput) {
  assertContent(input);
  const source = await getAnalysis(ctx, input.analysisId).catch(() => {
    throw new ValidationError(`analysisId ${input.analysisId} refers to no analysis`, { identifier: "analysisId", values: [input.analysisId] });
  });
  const target = await ctx.prisma.engagement.findUnique({ where: { id: input.targetEngagementId }, select: { id: true } });
  if (!target) throw new ValidationError(`targetEngagementId ${input.targetEngagementId} refers to no engagement`, { identifier: "targetEngagementId", values: [input.targetEngagementId] });
  if (target.id === source.engagementId) {
    throw new ValidationError("Roll forward creates the analysis in another engagement; targetEngagementId is the analysis's own engagement", { identifier: "targetEngagementId", values: [target.id] });
  }
  const configured = await ctx.prisma.analysisTypeConfiguration.count({ where: { engagementId: target.id, analysisTypeId: source.analysisTypeId } });
  if (configured === 0) {
    throw new ValidationError(`Engagement ${target.id}'s library does not offer analysis type ${source.analysisTypeId}`, { identifier: "targetEngagementId", values: [target.id] });
  }
  const type = await ctx.prisma.analysisType.findUniqueOrThrow({ where: { id: source.analysisTypeId } });
  const interim = input.interim ?? source.interim;
  const analysisPeriods = rolledPeriods(periodsOf(source), interim);
  const problems = analysisPeriodProblems(analysisPeriods, { interim, periodic: source.periodic }, type);
  if (problems.length > 0) throw ValidationError.of(problems);
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const analysis = await insertAnalysis(
      tx,
      {
        engagementId: target.id,
        analysisTypeId: source.analysisTypeId,
        name: source.name,
        interim,
        periodic: source.periodic,
        currencyCode: source.currencyCode,
        referenceId: source.referenceId,
        rolledForwardFromAnalysisId: source.id,
        analysisPeriods,
      },
      actor,
    );
    emitAnalysisEvent(emit, "created", analysis, actor.userId);
    return startJob(tx, { job: rollForwardJob, payload: { sourceAnalysisId: source.id, analysisId: analysis.id }, entityType: "ANALYSIS", entityId: analysis.id, startedBy: jobStarter(ctx) });
  });
}
