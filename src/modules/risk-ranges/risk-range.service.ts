import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from "../../core/errors.js";
import { assertContent, createAudit, findEntity, queryEntities, saveVersioned, type PageArgs } from "../../entity/index.js";
import { inTransaction } from "../../events/outbox.js";
import { actorOf, type RequestContext } from "../../graphql/context.js";
import { assertNotSystem } from "../libraries/library.service.js";
import { riskRangeColumns } from "./risk-range.columns.js";
import type { CreateRiskRangeInput, UpdateRiskRangeInput } from "./risk-range.inputs.js";
import { boundColumns, boundsOf, riskRangeProblems } from "./risk-range.rules.js";

const ENTITY = "RiskRange";

export function getRiskRange(ctx: RequestContext, id: string) {
  return findEntity(ctx.app, "riskRange", ENTITY, id);
}

export function queryRiskRanges(ctx: RequestContext, args: PageArgs) {
  return queryEntities(ctx.app, { model: "riskRange", columns: riskRangeColumns }, args);
}

/**
 * A range lives in a library (which must not be a system one) or in an engagement (whose library
 * must allow risk range edits); its analysis type must be one the library offers.
 */
async function checkScope(ctx: RequestContext, scope: { libraryId?: string | null; engagementId?: string | null }, analysisTypeId: string | null) {
  if ((scope.libraryId == null) === (scope.engagementId == null)) {
    throw new ValidationError("Give exactly one of libraryId or engagementId", { identifier: scope.libraryId == null ? "libraryId" : "engagementId" });
  }
  let libraryId = scope.libraryId;
  if (scope.engagementId) {
    const engagement = await ctx.prisma.engagement.findUnique({ where: { id: scope.engagementId }, select: { libraryId: true } });
    if (!engagement) throw new ValidationError(`engagementId ${scope.engagementId} refers to no engagement`, { identifier: "engagementId", values: [scope.engagementId] });
    libraryId = engagement.libraryId;
  }
  const library = await ctx.prisma.library.findUnique({ where: { id: libraryId! } });
  if (!library) throw new ValidationError(`libraryId ${libraryId} refers to no library`, { identifier: "libraryId", values: [libraryId] });
  if (scope.libraryId) assertNotSystem(library, "given risk ranges");
  else if (!library.riskRangeEditPermission) {
    throw new ForbiddenError(`Library ${library.id} does not allow risk range changes in its engagements (riskRangeEditPermission is false)`, { identifier: "engagementId", entityId: library.id, entityType: "Library" });
  }
  if (analysisTypeId && !library.analysisTypeIds.includes(analysisTypeId)) {
    throw new ValidationError(`Analysis type ${analysisTypeId} is not one of library ${library.id}'s analysis types`, { identifier: "analysisTypeId", values: [analysisTypeId], suggestedValues: library.analysisTypeIds });
  }
}

export async function createRiskRange(ctx: RequestContext, input: CreateRiskRangeInput) {
  assertContent(input);
  const problems = riskRangeProblems(input);
  if (problems.length > 0) throw ValidationError.of(problems);
  await checkScope(ctx, input, input.analysisTypeId);
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const range = await tx.riskRange.create({
      data: {
        ...createAudit(actor),
        name: input.name,
        description: input.description ?? null,
        analysisTypeId: input.analysisTypeId,
        libraryId: input.libraryId ?? null,
        engagementId: input.engagementId ?? null,
        system: false,
        ...boundColumns(input),
      },
    });
    emit({ type: "risk-range.created", entityType: "RISK_RANGE", entityId: range.id, userId: actor.userId, payload: { riskRangeId: range.id } });
    return range;
  });
}

function assertEditable(range: { id: string; system: boolean }, action: string) {
  if (range.system) throw new ConflictError(`Risk range ${range.id} is a system risk range and cannot be ${action}`, { entityId: range.id, entityType: ENTITY });
}

export async function updateRiskRange(ctx: RequestContext, id: string, input: UpdateRiskRangeInput) {
  assertContent(input);
  const current = await getRiskRange(ctx, id);
  assertEditable(current, "changed");
  const stored = boundsOf(current);
  const bounds = { low: input.low ?? stored.low, medium: input.medium ?? stored.medium, high: input.high ?? stored.high };
  const problems = riskRangeProblems(bounds);
  if (problems.length > 0) throw ValidationError.of(problems);
  await checkScope(ctx, current, null);
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const data: Record<string, unknown> = { ...boundColumns(bounds) };
    if (input.name != null) data.name = input.name;
    if (input.description !== undefined) data.description = input.description;
    const range = await saveVersioned(tx.riskRange, ENTITY, id, input.version, data, actor);
    emit({ type: "risk-range.updated", entityType: "RISK_RANGE", entityId: id, userId: actor.userId, payload: { riskRangeId: id } });
    return range;
  });
}

export async function deleteRiskRange(ctx: RequestContext, id: string) {
  const current = await getRiskRange(ctx, id);
  assertEditable(current, "deleted");
  await checkScope(ctx, current, null);
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const users = await tx.$queryRaw<Array<{ count: number }>>`
      SELECT count(*)::int AS count FROM analysis_type_configuration c, jsonb_array_elements(c.configuration -> 'riskGroups') g
      WHERE g ->> 'selectedRiskRange' = ${id} OR g -> 'applicableRiskRanges' ? ${id}`;
    if (users[0].count > 0) {
      throw new ConflictError(`Risk range ${id} is selectable in ${users[0].count} risk group(s) of analysis type configurations; remove it there first`, {
        problemType: "CANNOT_DELETE",
        entityId: id,
        entityType: ENTITY,
      });
    }
    const deleted = await tx.riskRange.deleteMany({ where: { id } });
    if (deleted.count === 0) throw new NotFoundError(ENTITY, id);
    emit({ type: "risk-range.deleted", entityType: "RISK_RANGE", entityId: id, userId: actor.userId, payload: { riskRangeId: id } });
    return { id };
  });
}
