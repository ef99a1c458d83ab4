import type { RequestContext } from "../app-types.js";

export type { RequestContext, StagedUpload } from "../app-types.js";

/** The user every change made in this request is attributed to. */
export function actorOf(ctx: RequestContext): { userId: string; userName: string } {
  if (!ctx.auth) throw new Error("actorOf called without an authenticated request");
  return { userId: ctx.auth.userId, userName: ctx.auth.userName };
}
