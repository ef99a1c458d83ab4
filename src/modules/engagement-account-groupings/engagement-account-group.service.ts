import { ConflictError, NotFoundError, ValidationError } from "../../core/errors.js";
import { assertContent, createAudit, findEntity, queryEntities, relatedList, saveVersioned, type Actor, type PageArgs, type RelatedListArgs } from "../../entity/index.js";
import { inTransaction, type Emit, type Tx } from "../../events/outbox.js";
import { actorOf, type RequestContext } from "../../graphql/context.js";
import { rederive } from "../account-groupings/grouping-tree.js";
import { assertLocalizedText } from "../account-groupings/localized-text.js";
import { assertMacCode, loadMacLevels } from "../account-groupings/mac-codes.js";
import { engagementAccountGroupColumns } from "./engagement-account-grouping.columns.js";
import type { CreateEngagementAccountGroupInput, UpdateEngagementAccountGroupInput } from "./engagement-account-grouping.inputs.js";

const ENTITY = "EngagementAccountGroup";

export function getEngagementAccountGroup(ctx: RequestContext, id: string) {
  return findEntity(ctx.app, "engagementAccountGroup", ENTITY, id);
}

const groupsByGrouping = relatedList({
  model: "engagementAccountGroup",
  columns: engagementAccountGroupColumns,
  parentField: "engagementAccountGroupingId",
  defaultSort: [{ field: "orderIndex", direction: "ASC" }],
});

/** `EngagementAccountGrouping.groups`: in tree order (orderIndex) unless sorted otherwise, filtered like the /query endpoint. */
export function engagementAccountGroupingGroups(ctx: RequestContext, engagementAccountGroupingId: string, args: RelatedListArgs) {
  return groupsByGrouping(ctx.app, ctx, engagementAccountGroupingId, args);
}

export function queryEngagementAccountGroups(ctx: RequestContext, args: PageArgs) {
  return queryEntities(ctx.app, { model: "engagementAccountGroup", columns: engagementAccountGroupColumns }, args);
}

function duplicateCode(code: string): ConflictError {
  return new ConflictError(`The engagement account grouping already has a group with code ${code}`, { problemType: "NON_UNIQUE_VALUE", identifier: "code", values: [code] });
}

/** Re-derives hierarchy, lowest-level flags and errors of the whole grouping after a change. */
async function rederiveGrouping(tx: Tx, groupingId: string, mac: boolean, macLevels: ReadonlyMap<string, number>): Promise<void> {
  const rows = await tx.engagementAccountGroup.findMany({ where: { engagementAccountGroupingId: groupingId }, orderBy: { orderIndex: "asc" } });
  for (const change of rederive(rows, { mac, macLevels })) {
    await tx.engagementAccountGroup.update({
      where: { id: change.row.id },
      data: { hierarchy: change.hierarchy, lowestLevel: change.lowestLevel, errors: change.errors },
    });
  }
}

function changed(emit: Emit, actor: Actor, grouping: { id: string; engagementId: string }, groupId: string, verb: string) {
  emit({
    type: `engagement-account-group.${verb}`,
    entityType: "ENGAGEMENT_ACCOUNT_GROUPING",
    entityId: grouping.id,
    userId: actor.userId,
    payload: { engagementAccountGroupingId: grouping.id, engagementAccountGroupId: groupId, engagementId: grouping.engagementId },
  });
}

/** Adds a group to an engagement's grouping (origin ADDED_ON_ENGAGEMENT) under an existing parent or at level 1. */
export async function createEngagementAccountGroup(ctx: RequestContext, input: CreateEngagementAccountGroupInput) {
  assertContent(input);
  const description = input.description != null ? assertLocalizedText(input.description, "description") : { en: input.code };
  const macLevels = await loadMacLevels(ctx.app.pool);
  assertMacCode(input.macCode, macLevels);
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const grouping = await tx.engagementAccountGrouping.findUnique({ where: { id: input.engagementAccountGroupingId } });
    if (!grouping) {
      throw new ValidationError(`engagementAccountGroupingId ${input.engagementAccountGroupingId} refers to no engagement account grouping`, {
        identifier: "engagementAccountGroupingId",
        values: [input.engagementAccountGroupingId],
      });
    }
    const existing = await tx.engagementAccountGroup.findMany({ where: { engagementAccountGroupingId: grouping.id }, select: { code: true, orderIndex: true } });
    if (existing.some((g) => g.code === input.code)) throw duplicateCode(input.code);
    if (input.parentCode != null && !existing.some((g) => g.code === input.parentCode)) {
      throw new ValidationError(`parentCode ${input.parentCode} is not a group of this engagement account grouping`, { identifier: "parentCode", values: [input.parentCode] });
    }
    const created = await tx.engagementAccountGroup.create({
      data: {
        ...createAudit(actor),
        engagementAccountGroupingId: grouping.id,
        code: input.code,
        parentCode: input.parentCode ?? null,
        description,
        macCode: input.macCode ?? null,
        alias: input.alias ?? null,
        hidden: input.hidden ?? false,
        origin: "ADDED_ON_ENGAGEMENT",
        orderIndex: Math.max(-1, ...existing.map((g) => g.orderIndex)) + 1,
      },
    });
    await rederiveGrouping(tx, grouping.id, grouping.mac, macLevels);
    changed(emit, actor, grouping, created.id, "created");
    return tx.engagementAccountGroup.findUniqueOrThrow({ where: { id: created.id } });
  });
}

/**
 * Alias, code, hidden and MAC code. A new code is carried to the group's children (parentCode)
 * and to the engagement's account mappings that point at it, so nothing is orphaned.
 */
export async function updateEngagementAccountGroup(ctx: RequestContext, id: string, input: UpdateEngagementAccountGroupInput) {
  assertContent(input);
  const macLevels = await loadMacLevels(ctx.app.pool);
  if (input.macCode !== undefined) assertMacCode(input.macCode, macLevels);
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const current = await tx.engagementAccountGroup.findUnique({ where: { id }, include: { engagementAccountGrouping: true } });
    if (!current) throw new NotFoundError(ENTITY, id);
    const grouping = current.engagementAccountGrouping;
    const data: Record<string, unknown> = {};
    if (input.alias !== undefined) data.alias = input.alias;
    if (input.hidden != null) data.hidden = input.hidden;
    if (input.macCode !== undefined) data.macCode = input.macCode;
    const recoded = input.code != null && input.code !== current.code;
    if (recoded) {
      const clash = await tx.engagementAccountGroup.count({ where: { engagementAccountGroupingId: grouping.id, code: input.code! } });
      if (clash > 0) throw duplicateCode(input.code!);
      data.code = input.code;
    }
    const group = await saveVersioned(tx.engagementAccountGroup, ENTITY, id, input.version ?? undefined, data, actor);
    if (recoded) {
      await tx.engagementAccountGroup.updateMany({ where: { engagementAccountGroupingId: grouping.id, parentCode: current.code }, data: { parentCode: input.code! } });
      await tx.accountMapping.updateMany({ where: { engagementId: grouping.engagementId, code: current.code }, data: { code: input.code!, version: { increment: 1 }, lastModifiedDate: new Date() } });
    }
    if (recoded || input.macCode !== undefined) await rederiveGrouping(tx, grouping.id, grouping.mac, macLevels);
    changed(emit, actor, grouping, id, "updated");
    return recoded || input.macCode !== undefined ? tx.engagementAccountGroup.findUniqueOrThrow({ where: { id } }) : group;
  });
}

/** Removes a group that has no children and that no account mapping points at. */
export async function deleteEngagementAccountGroup(ctx: RequestContext, id: string) {
  const macLevels = await loadMacLevels(ctx.app.pool);
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const current = await tx.engagementAccountGroup.findUnique({ where: { id }, include: { engagementAccountGrouping: true } });
    if (!current) throw new NotFoundError(ENTITY, id);
    const grouping = current.engagementAccountGrouping;
    const children = await tx.engagementAccountGroup.count({ where: { engagementAccountGroupingId: grouping.id, parentCode: current.code } });
    if (children > 0) {
      throw new ConflictError(`Group ${current.code} still has ${children} child group(s); delete or move them first`, { problemType: "CANNOT_DELETE", entityId: id, entityType: ENTITY });
    }
    const mapped = await tx.accountMapping.count({ where: { engagementId: grouping.engagementId, code: current.code } });
    if (mapped > 0) {
      throw new ConflictError(`Group ${current.code} is used by ${mapped} account mapping(s); map those accounts elsewhere first`, { problemType: "CANNOT_DELETE", entityId: id, entityType: ENTITY });
    }
    await tx.engagementAccountGroup.delete({ where: { id } });
    await rederiveGrouping(tx, grouping.id, grouping.mac, macLevels);
    changed(emit, actor, grouping, id, "deleted");
    return { id };
  });
}
