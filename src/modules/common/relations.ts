import { relatedById, relatedList, type RelatedListArgs } from "../../entity/index.js";
import type { ColumnSet, SortOrder } from "../../query-language/index.js";
import type { RequestContext } from "../../app-types.js";
import type { ModelName, ModelShape } from "../../entity/row-reader.js";

/**
 * The entity an id field names, for the object field beside it (`Analysis.analysisType` beside
 * `analysisTypeId`): every id of one model asked for by one response in one tick is read by one
 * statement. Null when the id is null or names nothing (a dangling id of a link without a foreign
 * key). Only for entities without per-caller visibility rules (saved filters, file results, API
 * tokens, populations and chunked files go through their own services).
 */
export function entityById<M extends ModelName>(model: M) {
  const load = relatedById(model);
  return (ctx: RequestContext, id: string | null | undefined): Promise<ModelShape<M> | null> => load(ctx.app, ctx, id);
}

/** The entities a list of ids names (`Engagement.auditors`), in the list's order, the missing left out. */
export function entitiesByIds<M extends ModelName>(model: M) {
  const one = entityById(model);
  return async (ctx: RequestContext, ids: readonly string[] | null | undefined): Promise<Array<ModelShape<M>>> =>
    (await Promise.all((ids ?? []).map((id) => one(ctx, id)))).filter((row): row is Awaited<ReturnType<typeof one>> & object => row !== null) as Array<ModelShape<M>>;
}

const lists = new Map<string, ReturnType<typeof relatedList>>();

/**
 * A reverse relation list (`Library.engagements` beside `Engagement.libraryId`): the children whose
 * `parentField` names the parent, with the child root list's filter, where, sort and first; one
 * statement for every parent of a response asking with the same arguments (`relatedList`).
 */
export function childrenOf<M extends ModelName>(model: M, columns: ColumnSet, parentField: string, defaultSort?: SortOrder[]) {
  const key = `${model}.${parentField}`;
  let load = lists.get(key);
  if (!load) lists.set(key, (load = relatedList({ model, columns, parentField, defaultSort }) as unknown as ReturnType<typeof relatedList>));
  const typed = load as unknown as ReturnType<typeof relatedList<M>>;
  return (ctx: RequestContext, parentId: string, args: RelatedListArgs): Promise<Array<ModelShape<M>>> => typed(ctx.app, ctx, parentId, args);
}
