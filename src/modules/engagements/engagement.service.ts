import { NotFoundError, ValidationError, type Problem } from "../../core/errors.js";
import { assertContent, createAudit, findEntity, queryEntities, relatedList, relatedOne, saveVersioned, type PageArgs, type RelatedListArgs } from "../../entity/index.js";
import { inTransaction } from "../../events/outbox.js";
import { actorOf, type RequestContext } from "../../graphql/context.js";
import type { Prisma } from "../../generated/prisma/client.js";
import { assertUsersExist } from "../users/user.service.js";
import { engagementColumns } from "./engagement.columns.js";
import type { AccountingPeriodInput, CreateEngagementInput, UpdateEngagementInput } from "./engagement.inputs.js";
import { libraryForReference } from "../libraries/library.service.js";
import { assertReportingPeriodConfigurationExists } from "../reporting-periods/reporting-period.service.js";
import { copyLibraryConfigurationsToEngagement } from "../analysis-type-configurations/configuration.copy.js";
import { copyAccountGroupingToEngagement } from "../engagement-account-groupings/engagement-account-grouping.service.js";

const ENTITY = "Engagement";
/** Wire reference section 6: the library engagements use unless they name another. */
export const DEFAULT_LIBRARY_ID = "5cc9076887f13cb8a7a1926b";

export function getEngagement(ctx: RequestContext, id: string) {
  return findEntity(ctx.app, "engagement", ENTITY, id);
}

const engagementById = relatedOne("engagement");

/** The engagement an id field names (`DataTable.engagement`, `AccountMapping.engagement`), batched per request. */
export function engagementOf(ctx: RequestContext, id: string | null | undefined) {
  return engagementById(ctx.app, ctx, id);
}

/** The engagement an entity belongs to: its foreign key names one while the entity exists (else 404). */
export async function owningEngagement(ctx: RequestContext, id: string) {
  const engagement = await engagementById(ctx.app, ctx, id);
  if (!engagement) throw new NotFoundError("Engagement", id);
  return engagement;
}

const engagementsByOrganization = relatedList({ model: "engagement", columns: engagementColumns, parentField: "organizationId" });

/** `Organization.engagements`: the organization's engagements with the /engagements/query filter and sort. */
export function organizationEngagements(ctx: RequestContext, organizationId: string, args: RelatedListArgs) {
  return engagementsByOrganization(ctx.app, ctx, organizationId, args);
}

export function queryEngagements(ctx: RequestContext, args: PageArgs) {
  return queryEntities(ctx.app, { model: "engagement", columns: engagementColumns }, args);
}

function accountingPeriodProblems(period: AccountingPeriodInput | null | undefined): Problem[] {
  if (!period) return [];
  const problems: Problem[] = [];
  if (!Number.isInteger(period.fiscalStartMonth) || period.fiscalStartMonth < 1 || period.fiscalStartMonth > 12) {
    problems.push({ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier: "accountingPeriod.fiscalStartMonth", reason: "fiscalStartMonth must be from 1 to 12", values: [String(period.fiscalStartMonth)] });
  } else {
    const daysInMonth = new Date(Date.UTC(2001, period.fiscalStartMonth, 0)).getUTCDate();
    if (!Number.isInteger(period.fiscalStartDay) || period.fiscalStartDay < 1 || period.fiscalStartDay > daysInMonth) {
      problems.push({ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier: "accountingPeriod.fiscalStartDay", reason: `fiscalStartDay must be from 1 to ${daysInMonth} for month ${period.fiscalStartMonth}`, values: [String(period.fiscalStartDay)] });
    }
  }
  return problems;
}

/**
 * Spec 2.12: a reporting period configuration "may replace `accountingPeriod`, and one of the two is
 * required". Callers send read bodies back (spec 2.1 rule 2) and omit null keys (wire reference 1),
 * so a body carrying both is ordinary: the configuration takes precedence and replaces the
 * accounting period, which is then not stored (the read model shows only the one in effect, and the
 * `frequency` filter keeps meaning "engagements on this accounting period"). Only a write that
 * leaves neither is refused.
 */
function periodChoiceProblems(hasPeriod: boolean, hasConfig: boolean): Problem[] {
  if (hasPeriod || hasConfig) return [];
  return [{ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier: "accountingPeriod", reason: "One of accountingPeriod or reportingPeriodConfigurationId is required" }];
}

async function checkReferences(ctx: RequestContext, input: CreateEngagementInput | UpdateEngagementInput) {
  await assertReportingPeriodConfigurationExists(ctx, input.reportingPeriodConfigurationId);
  if (input.auditorIds) await assertUsersExist(ctx, input.auditorIds, "auditorIds");
  if (input.engagementLeadId) await assertUsersExist(ctx, [input.engagementLeadId], "engagementLeadId");
  if ("emailSubscriptions" in input) await assertUsersExist(ctx, input.emailSubscriptions.map((s) => s.userId), "emailSubscriptions.userId");
}

function periodColumns(period: AccountingPeriodInput | null | undefined) {
  return period
    ? { fiscalStartDay: period.fiscalStartDay, fiscalStartMonth: period.fiscalStartMonth, frequency: period.frequency }
    : { fiscalStartDay: null, fiscalStartMonth: null, frequency: null };
}

export async function createEngagement(ctx: RequestContext, input: CreateEngagementInput) {
  assertContent(input);
  const usesConfiguration = input.reportingPeriodConfigurationId != null;
  const problems = [...periodChoiceProblems(input.accountingPeriod != null, usesConfiguration), ...accountingPeriodProblems(input.accountingPeriod)];
  if (problems.length > 0) throw ValidationError.of(problems);
  const organization = await ctx.prisma.organization.findUnique({ where: { id: input.organizationId }, select: { id: true } });
  if (!organization) throw new ValidationError(`organizationId ${input.organizationId} refers to no organization`, { identifier: "organizationId", values: [input.organizationId] });
  if (input.settingsBasedOnEngagementId) await getEngagement(ctx, input.settingsBasedOnEngagementId).catch(() => {
    throw new ValidationError(`settingsBasedOnEngagementId ${input.settingsBasedOnEngagementId} refers to no engagement`, { identifier: "settingsBasedOnEngagementId" });
  });
  await checkReferences(ctx, input);
  await libraryForReference(ctx, input.libraryId ?? DEFAULT_LIBRARY_ID);
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const engagement = await tx.engagement.create({
      data: {
        ...createAudit(actor),
        organizationId: input.organizationId,
        name: input.name,
        libraryId: input.libraryId ?? DEFAULT_LIBRARY_ID,
        accountingPackage: input.accountingPackage ?? null,
        ...periodColumns(usesConfiguration ? null : input.accountingPeriod),
        auditPeriodEndDate: input.auditPeriodEndDate ? new Date(`${input.auditPeriodEndDate}T00:00:00Z`) : null,
        industry: input.industry ?? null,
        auditorIds: input.auditorIds ?? [],
        engagementLeadId: input.engagementLeadId ?? actor.userId,
        billingCode: input.billingCode ?? null,
        reportingPeriodConfigurationId: input.reportingPeriodConfigurationId ?? null,
        emailSubscriptions: [],
        settingsBasedOnEngagementId: input.settingsBasedOnEngagementId ?? null,
      },
    });
    await copyLibraryConfigurationsToEngagement(tx, engagement, actor);
    await copyAccountGroupingToEngagement(tx, engagement, actor);
    emit({ type: "engagement.created", entityType: "ENGAGEMENT", entityId: engagement.id, userId: actor.userId, payload: { engagementId: engagement.id, organizationId: engagement.organizationId } });
    return engagement;
  });
}

export async function updateEngagement(ctx: RequestContext, id: string, input: UpdateEngagementInput) {
  assertContent(input);
  const current = await getEngagement(ctx, id);
  // Absent keys keep their stored value, so the period rule is checked on the result: a configuration
  // sent or kept wins, and an explicit null for it falls back to the accounting period (sent or stored).
  const nextConfig = input.reportingPeriodConfigurationId !== undefined ? input.reportingPeriodConfigurationId : current.reportingPeriodConfigurationId;
  const storedPeriod = current.frequency != null || current.fiscalStartMonth != null;
  const nextHasPeriod = input.accountingPeriod !== undefined ? input.accountingPeriod != null : storedPeriod;
  const problems = [...periodChoiceProblems(nextHasPeriod, nextConfig != null), ...accountingPeriodProblems(input.accountingPeriod)];
  if (problems.length > 0) throw ValidationError.of(problems);
  await checkReferences(ctx, input);
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const data: Prisma.EngagementUpdateInput = {
      emailSubscriptions: input.emailSubscriptions.map((s) => ({ userId: s.userId, eventTypes: s.eventTypes ?? [] })),
    };
    if (input.name != null) data.name = input.name;
    if (input.accountingPackage !== undefined) data.accountingPackage = input.accountingPackage;
    if (nextConfig != null) {
      if (storedPeriod) Object.assign(data, periodColumns(null));
    } else if (input.accountingPeriod !== undefined) Object.assign(data, periodColumns(input.accountingPeriod));
    if (input.auditPeriodEndDate !== undefined) data.auditPeriodEndDate = input.auditPeriodEndDate ? new Date(`${input.auditPeriodEndDate}T00:00:00Z`) : null;
    if (input.industry !== undefined) data.industry = input.industry;
    if (input.auditorIds != null) data.auditorIds = input.auditorIds;
    if (input.engagementLeadId !== undefined) data.engagementLeadId = input.engagementLeadId;
    if (input.billingCode !== undefined) data.billingCode = input.billingCode;
    if (input.reportingPeriodConfigurationId !== undefined) data.reportingPeriodConfigurationId = input.reportingPeriodConfigurationId;
    const engagement = await saveVersioned(tx.engagement, ENTITY, id, input.version, data as Record<string, unknown>, actor);
    emit({ type: "engagement.updated", entityType: "ENGAGEMENT", entityId: id, userId: actor.userId, payload: { engagementId: id, organizationId: engagement.organizationId } });
    return engagement;
  });
}

export async function deleteEngagement(ctx: RequestContext, id: string) {
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    // The organization goes into the event: once the row is gone, subscribers cannot look it up.
    const [deleted] = await tx.$queryRaw<Array<{ organizationId: string }>>`DELETE FROM engagement WHERE id = ${id} RETURNING organization_id AS "organizationId"`;
    if (!deleted) throw new NotFoundError(ENTITY, id);
    emit({ type: "engagement.deleted", entityType: "ENGAGEMENT", entityId: id, userId: actor.userId, payload: { engagementId: id, organizationId: deleted.organizationId } });
    return { id };
  });
}
