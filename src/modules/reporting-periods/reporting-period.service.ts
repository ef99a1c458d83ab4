import { ConflictError, NotFoundError, ValidationError } from "../../core/errors.js";
import { assertContent, createAudit, findEntity, queryEntities, type PageArgs } from "../../entity/index.js";
import { inTransaction } from "../../events/outbox.js";
import { isForeignKeyViolation } from "../../core/db-errors.js";
import { actorOf, type RequestContext } from "../../graphql/context.js";
import { reportingPeriodColumns } from "./reporting-period.columns.js";
import { reportingPeriodProblems, typeProblems } from "./reporting-period.rules.js";
import type { CreateReportingPeriodConfigurationInput } from "./reporting-period.inputs.js";

const ENTITY = "ReportingPeriodConfiguration";

export function getReportingPeriodConfiguration(ctx: RequestContext, id: string) {
  return findEntity(ctx.app, "reportingPeriodConfiguration", ENTITY, id);
}

export function queryReportingPeriodConfigurations(ctx: RequestContext, args: PageArgs) {
  return queryEntities(ctx.app, { model: "reportingPeriodConfiguration", columns: reportingPeriodColumns }, args);
}

/** 400 naming `identifier` when an engagement or analysis refers to a configuration that does not exist. */
export async function assertReportingPeriodConfigurationExists(ctx: RequestContext, id: string | null | undefined, identifier = "reportingPeriodConfigurationId"): Promise<void> {
  if (id == null) return;
  const found = await ctx.prisma.reportingPeriodConfiguration.findUnique({ where: { id }, select: { id: true } });
  if (!found) throw new ValidationError(`${identifier} ${id} refers to no reporting period configuration`, { identifier, values: [id] });
}

const byStart = <E extends { startDate: string }>(entries: E[]) => [...entries].sort((a, b) => a.startDate.localeCompare(b.startDate));

export async function createReportingPeriodConfiguration(ctx: RequestContext, input: CreateReportingPeriodConfigurationInput) {
  assertContent(input, ["monthlyEntries"]);
  const weekly = input.weeklyEntries ?? [];
  const problems = [...typeProblems(input.type, weekly), ...reportingPeriodProblems(input.monthlyEntries, weekly)];
  if (problems.length > 0) throw ValidationError.of(problems);
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const config = await tx.reportingPeriodConfiguration.create({
      data: {
        ...createAudit(actor),
        name: input.name,
        originalName: input.originalName ?? input.name,
        type: input.type ?? (weekly.length > 0 ? "MONTHLY_AND_WEEKLY" : "MONTHLY"),
        monthlyEntries: byStart(input.monthlyEntries).map((m) => ({ period: m.period, quarter: m.quarter, year: m.year, startDate: m.startDate, endDate: m.endDate })),
        weeklyEntries: byStart(weekly).map((w) => ({ week: w.week, year: w.year, startDate: w.startDate, endDate: w.endDate })),
      },
    });
    emit({ type: "reporting-period-configuration.created", entityType: "REPORTING_PERIOD_CONFIGURATION", entityId: config.id, userId: actor.userId, payload: { reportingPeriodConfigurationId: config.id } });
    return config;
  });
}

export async function deleteReportingPeriodConfiguration(ctx: RequestContext, id: string) {
  const actor = actorOf(ctx);
  const inUse = (engagements: number, analyses: number) =>
    new ConflictError(`Reporting period configuration ${id} is used by ${engagements} engagement(s) and ${analyses} analysis(es)`, {
      problemType: "CANNOT_DELETE",
      entityId: id,
      entityType: ENTITY,
    });
  return inTransaction(ctx.app, async (tx, emit) => {
    const [engagements, analyses] = await Promise.all([
      tx.engagement.count({ where: { reportingPeriodConfigurationId: id } }),
      tx.analysis.count({ where: { reportingPeriodConfigurationId: id } }),
    ]);
    if (engagements + analyses > 0) throw inUse(engagements, analyses);
    // A reference added concurrently trips the foreign key instead: same answer.
    const deleted = await tx.reportingPeriodConfiguration.deleteMany({ where: { id } }).catch((error: unknown) => {
      throw isForeignKeyViolation(error) ? inUse(engagements, analyses) : error;
    });
    if (deleted.count === 0) throw new NotFoundError(ENTITY, id);
    emit({ type: "reporting-period-configuration.deleted", entityType: "REPORTING_PERIOD_CONFIGURATION", entityId: id, userId: actor.userId, payload: { reportingPeriodConfigurationId: id } });
    return { id };
  });
}
