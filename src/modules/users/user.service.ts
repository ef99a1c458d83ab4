import { ValidationError } from "../../core/errors.js";
import { findEntity, queryEntities, type PageArgs } from "../../core/entity/index.js";
import type { RequestContext } from "../../graphql/context.js";
import { userColumns } from "./user.columns.js";

const ENTITY = "User";

export function getUser(ctx: RequestContext, id: string) {
  return findEntity(ctx.app, "user", ENTITY, id);
}

export function getCurrentUser(ctx: RequestContext) {
  return getUser(ctx, ctx.auth!.userId);
}

export function queryUsers(ctx: RequestContext, args: PageArgs) {
  return queryEntities(ctx.app, { model: "user", columns: userColumns }, args);
}

/** 400 naming the field when a list of user ids refers to users that do not exist. */
export async function assertUsersExist(ctx: RequestContext, ids: readonly string[], identifier: string): Promise<void> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return;
  const found = await ctx.prisma.user.findMany({ where: { id: { in: unique } }, select: { id: true } });
  const known = new Set(found.map((u) => u.id));
  const missing = unique.filter((id) => !known.has(id));
  if (missing.length > 0) throw new ValidationError(`${identifier} refers to unknown user(s): ${missing.join(", ")}`, { identifier, values: missing });
}
