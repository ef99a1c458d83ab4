import { ConflictError, NotFoundError, ValidationError } from "../../core/errors.js";
import { assertContent, findEntity, queryEntities, relatedList, saveVersioned, type PageArgs, type RelatedListArgs } from "../../entity/index.js";
import { inTransaction } from "../../events/outbox.js";
import { actorOf, type RequestContext } from "../../graphql/context.js";
import { accountGroupColumns } from "./account-grouping.columns.js";
import type { UpdateAccountGroupInput } from "./account-grouping.inputs.js";
import { rederive } from "./grouping-tree.js";
import { assertMacCode, loadMacLevels } from "./mac-codes.js";

const ENTITY = "AccountGroup";


export function getAccountGroup(ctx: RequestContext, id: string) {
  return findEntity(ctx.app, "accountGroup", ENTITY, id);
}

const groupsByGrouping = relatedList({
  model: "accountGroup",
  columns: accountGroupColumns,
  parentField: "accountGroupingId",
  defaultSort: [{ field: "orderIndex", direction: "ASC" }],
});

/** `AccountGrouping.groups`: in tree order (orderIndex) unless sorted otherwise, filtered like /account-groups/query. */
export function accountGroupingGroups(ctx: RequestContext, accountGroupingId: string, args: RelatedListArgs) {
  return groupsByGrouping(ctx.app, ctx, accountGroupingId, args);
}

export function queryAccountGroups(ctx: RequestContext, args: PageArgs) {
  return queryEntities(ctx.app, { model: "accountGroup", columns: accountGroupColumns }, args);
}

export function assertTags(tags: string[] | null | undefined): void {
  for (const [index, tag] of (tags ?? []).entries()) {
    if (tag.length > 100) throw new ValidationError("account tags are at most 100 characters", { identifier: `accountTags[${index}]`, values: [tag] });
  }
}

/**
 * PUT /account-groups/{id}: MAC code and account tags. The group's errors are re-derived at once;
 * a published grouping is marked UNPUBLISHED_CHANGES.
 */
export async function updateAccountGroup(ctx: RequestContext, id: string, input: UpdateAccountGroupInput) {
  assertContent(input);
  assertTags(input.accountTags);
  const macLevels = await loadMacLevels(ctx.app.pool);
  if (input.macCode !== undefined) assertMacCode(input.macCode, macLevels);
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const current = await tx.accountGroup.findUnique({ where: { id }, include: { accountGrouping: true } });
    if (!current) throw new NotFoundError(ENTITY, id);
    const grouping = current.accountGrouping;
    if (grouping.system) throw new ConflictError(`Account group ${id} belongs to the system grouping, which cannot be changed`, { entityId: id, entityType: ENTITY });
    const data: Record<string, unknown> = {};
    if (input.macCode !== undefined) data.macCode = input.macCode;
    if (input.accountTags != null) data.accountTags = [...new Set(input.accountTags)];
    let group = await saveVersioned(tx.accountGroup, ENTITY, id, input.version ?? undefined, data, actor);
    const siblings = await tx.accountGroup.findMany({ where: { accountGroupingId: grouping.id }, orderBy: { orderIndex: "asc" } });
    for (const change of rederive(siblings, { mac: grouping.mac, macLevels })) {
      const updated = await tx.accountGroup.update({
        where: { id: change.row.id },
        data: { hierarchy: change.hierarchy, lowestLevel: change.lowestLevel, errors: change.errors },
      });
      if (updated.id === id) group = updated;
    }
    if (grouping.publishStatus === "PUBLISHED") await saveVersioned(tx.accountGrouping, "AccountGrouping", grouping.id, undefined, { publishStatus: "UNPUBLISHED_CHANGES" }, actor);
    emit({ type: "account-group.updated", entityType: "ACCOUNT_GROUPING", entityId: grouping.id, userId: actor.userId, payload: { accountGroupingId: grouping.id, accountGroupId: id } });
    return group;
  });
}
