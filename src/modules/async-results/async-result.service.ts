import { ForbiddenError, NotFoundError } from "../../core/errors.js";
import { queryEntities, rowReader, type PageArgs } from "../../entity/index.js";
import type { RequestContext } from "../../graphql/context.js";
import type { SqlParams } from "../../query-language/index.js";
import { asyncResultColumns } from "./async-result.columns.js";
import { asyncResultReadPermissions, readableTargetTypes, TOKEN_OWNED_TARGETS } from "./async-result.permissions.js";

const ENTITY = "AsyncResult";

/** 404 for internal jobs and for another token's file-producing jobs; 403 naming the target's permission. */
export async function getAsyncResult(ctx: RequestContext, id: string) {
  const row = await rowReader(ctx.prisma, "asyncResult").byId(ctx.app.pool, id);
  if (!row || row.internal) throw new NotFoundError(ENTITY, id);
  const entityType = row.entityType ?? "";
  if (TOKEN_OWNED_TARGETS.has(entityType)) {
    if (row.tokenId !== ctx.auth?.tokenId) throw new NotFoundError(ENTITY, id);
    return row;
  }
  const permissions = asyncResultReadPermissions(entityType) ?? [];
  if (!permissions.some((permission) => ctx.auth?.permissions.has(permission))) {
    throw new ForbiddenError(`Reading this async result needs ${permissions.length ? permissions.join(" or ") : "a permission on its target"}, the read permission of its target ${entityType}`, {
      values: [...permissions],
      entityId: id,
      entityType: ENTITY,
    });
  }
  return row;
}

/** Only what the token may see: public jobs whose target type it can read, plus its own file jobs. */
export function queryAsyncResults(ctx: RequestContext, args: PageArgs) {
  const readable = readableTargetTypes(ctx.auth!.permissions);
  const scope = (params: SqlParams) =>
    `t.internal = false AND (t.entity_type = ANY(${params.add(readable, "text[]")}) OR (t.entity_type = ANY(${params.add([...TOKEN_OWNED_TARGETS], "text[]")}) AND t.token_id = ${params.add(ctx.auth!.tokenId)}))`;
  return queryEntities(ctx.app, { model: "asyncResult", columns: asyncResultColumns, scope }, args);
}
