import { ConflictError, NotFoundError } from "../../core/errors.js";
import { assertContent, createAudit, findEntity, queryEntities, saveVersioned, type PageArgs } from "../../entity/index.js";
import { inTransaction } from "../../events/outbox.js";
import { actorOf, type RequestContext } from "../../graphql/context.js";
import { assertUsersExist } from "../users/user.service.js";
import { organizationColumns } from "./organization.columns.js";
import type { CreateOrganizationInput, UpdateOrganizationInput } from "./organization.inputs.js";

const ENTITY = "Organization";

export function getOrganization(ctx: RequestContext, id: string) {
  return findEntity(ctx.app, "organization", ENTITY, id);
}

export function queryOrganizations(ctx: RequestContext, args: PageArgs) {
  return queryEntities(ctx.app, { model: "organization", columns: organizationColumns }, args);
}

export async function createOrganization(ctx: RequestContext, input: CreateOrganizationInput) {
  assertContent(input);
  if (input.managerUserIds) await assertUsersExist(ctx, input.managerUserIds, "managerUserIds");
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const organization = await tx.organization.create({
      data: {
        ...createAudit(actor),
        name: input.name,
        externalClientCode: input.externalClientCode ?? null,
        managerUserIds: input.managerUserIds ?? [],
      },
    });
    emit({ type: "organization.created", entityType: "ORGANIZATION", entityId: organization.id, userId: actor.userId, payload: { organizationId: organization.id } });
    return organization;
  });
}

export async function updateOrganization(ctx: RequestContext, id: string, input: UpdateOrganizationInput) {
  assertContent(input);
  if (input.managerUserIds) await assertUsersExist(ctx, input.managerUserIds, "managerUserIds");
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const organization = await saveVersioned(
      tx.organization,
      ENTITY,
      id,
      input.version,
      {
        ...(input.name != null ? { name: input.name } : {}),
        ...(input.externalClientCode !== undefined ? { externalClientCode: input.externalClientCode } : {}),
        ...(input.managerUserIds != null ? { managerUserIds: input.managerUserIds } : {}),
      },
      actor,
    );
    emit({ type: "organization.updated", entityType: "ORGANIZATION", entityId: id, userId: actor.userId, payload: { organizationId: id } });
    return organization;
  });
}

export async function deleteOrganization(ctx: RequestContext, id: string) {
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const organization = await tx.organization.findUnique({ where: { id }, select: { id: true, _count: { select: { engagements: true } } } });
    if (!organization) throw new NotFoundError(ENTITY, id);
    if (organization._count.engagements > 0) {
      throw new ConflictError(`Organization ${id} still has ${organization._count.engagements} engagement(s); delete them first`, {
        problemType: "CANNOT_DELETE",
        entityId: id,
        entityType: ENTITY,
      });
    }
    await tx.organization.delete({ where: { id } });
    emit({ type: "organization.deleted", entityType: "ORGANIZATION", entityId: id, userId: actor.userId, payload: { organizationId: id } });
    return { id };
  });
}
