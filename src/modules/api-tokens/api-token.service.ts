import { ForbiddenError, NotFoundError, ValidationError, type Problem } from "../../core/errors.js";
import { assertContent, createAudit, findEntity, queryEntities, saveVersioned, type Actor, type PageArgs } from "../../entity/index.js";
import { inTransaction, type Tx } from "../../events/outbox.js";
import { actorOf, type RequestContext } from "../../graphql/context.js";
import { addressEntryProblem, entryWithin } from "../../auth/ip-allow.js";
import { ALL_PERMISSIONS, isPermission, type Permission } from "../../auth/permissions.js";
import { generateTokenSecret, hashToken, partialToken } from "../../auth/token-secret.js";
import { apiTokenColumns } from "./api-token.columns.js";
import type { CreateApiTokenInput, UpdateApiTokenInput } from "./api-token.inputs.js";

const ENTITY = "ApiToken";
/**
 * Spec 5.3: a token lives at most two years after creation. Calendar years (the same UTC date and
 * time two years on), not a count of days: 2*366 days would allow up to a day more, 2*365 a day less
 * across a leap day. From 29 February the date rolls over to 1 March (Date's own normalisation).
 */
export function twoYearsAfter(time: number): Date {
  const date = new Date(time);
  date.setUTCFullYear(date.getUTCFullYear() + 2);
  return date;
}

/**
 * A token sees and touches only tokens that hold no permission it lacks: otherwise a token with
 * `api.api-tokens.delete` could delete the App Admin token, and one with `.read` learn what the
 * stronger tokens are. Others are absent to it (404), as in a query.
 */
function withinCaller(ctx: RequestContext, token: { permissions: readonly string[] }): boolean {
  const own = ctx.auth!.permissions;
  return token.permissions.every((permission) => own.has(permission as Permission));
}

export async function getApiToken(ctx: RequestContext, id: string) {
  const token = await findEntity(ctx.app, "apiToken", ENTITY, id);
  if (!withinCaller(ctx, token)) throw new NotFoundError(ENTITY, id);
  return token;
}

export function getCurrentApiToken(ctx: RequestContext) {
  return findEntity(ctx.app, "apiToken", ENTITY, ctx.auth!.tokenId);
}

export function queryApiTokens(ctx: RequestContext, args: PageArgs) {
  const own = [...ctx.auth!.permissions];
  return queryEntities(ctx.app, { model: "apiToken", columns: apiTokenColumns, scope: (params) => `t.permissions <@ ${params.add(own, "text[]")}` }, args);
}

function checkTokenInput(input: CreateApiTokenInput, now: number): void {
  const problems: Problem[] = [];
  const unknown = input.permissions.filter((p) => !isPermission(p));
  if (unknown.length > 0) {
    problems.push({ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier: "permissions", reason: `Unknown permission(s): ${unknown.join(", ")}`, values: unknown, suggestedValues: [...ALL_PERMISSIONS] });
  }
  for (const [index, entry] of (input.allowedAddresses ?? []).entries()) {
    const reason = addressEntryProblem(entry);
    if (reason) problems.push({ problemType: "ILLEGAL_ARGUMENT", severity: "ERROR", identifier: `allowedAddresses[${index}]`, reason, values: [entry] });
  }
  if (input.expiry) {
    const expiry = input.expiry.getTime();
    if (expiry <= now) problems.push({ problemType: "GREATER_VALUE_REQUIRED", severity: "ERROR", identifier: "expiry", reason: "expiry must be in the future", values: [input.expiry.toISOString()] });
    if (expiry > twoYearsAfter(now).getTime()) {
      problems.push({ problemType: "LESS_VALUE_REQUIRED", severity: "ERROR", identifier: "expiry", reason: "expiry must be at most 2 years after creation", values: [input.expiry.toISOString()] });
    }
  }
  if (problems.length > 0) throw ValidationError.of(problems);
}

/**
 * Creates the token and its API Token User (ROLE_ADMIN, serviceAccount) in one transaction.
 * Returns the entity plus the secret, which is shown only in this response.
 */
export async function insertApiToken(tx: Tx, actor: Actor | null, input: CreateApiTokenInput, secret = generateTokenSecret()) {
  const userAudit = createAudit(actor ?? { userId: "", userName: "" });
  const user = await tx.user.create({
    data: {
      ...userAudit,
      ...(actor ? {} : { createdUserId: userAudit.id, lastModifiedUserId: userAudit.id, createdUserName: `(API) ${input.name}`, lastModifiedUserName: `(API) ${input.name}` }),
      firstName: "(API)",
      lastName: input.name,
      role: "ROLE_ADMIN",
      enabled: true,
      validated: true,
      serviceAccount: true,
    },
  });
  const creator = actor ?? { userId: user.id, userName: `(API) ${input.name}` };
  const audit = createAudit(creator);
  const token = await tx.apiToken.create({
    data: {
      ...audit,
      name: input.name,
      userId: user.id,
      tokenHash: hashToken(secret),
      partialToken: partialToken(secret),
      expiry: input.expiry ?? twoYearsAfter(audit.creationDate.getTime()),
      permissions: [...new Set(input.permissions)],
      allowedAddresses: input.allowedAddresses ?? [],
    },
  });
  return { ...token, token: secret };
}

/**
 * A token can give only what it has: permissions it holds, an expiry no later than its own, and
 * addresses within its own (a token limited to 10.0.0.0/8 made one for anywhere with
 * `allowedAddresses: []`). Left out, expiry and addresses default to the caller's limits.
 */
function withinCallerLimits(ctx: RequestContext, input: CreateApiTokenInput): CreateApiTokenInput {
  const auth = ctx.auth!;
  const escalated = input.permissions.filter((p) => !auth.permissions.has(p as Permission));
  if (escalated.length > 0) throw new ForbiddenError(`The calling token cannot grant permissions it does not hold: ${escalated.join(", ")}`, { identifier: "permissions", values: escalated });
  const ownExpiry = new Date(auth.expiresAt);
  if (input.expiry && input.expiry.getTime() > auth.expiresAt) {
    throw new ForbiddenError(`The calling token cannot create a token that outlives it: expiry must be at most ${ownExpiry.toISOString()}`, {
      identifier: "expiry",
      values: [input.expiry.toISOString()],
      suggestedValues: [ownExpiry.toISOString()],
    });
  }
  const own = auth.allowedAddresses;
  const requested = input.allowedAddresses ?? (own.length > 0 ? [...own] : []);
  if (own.length > 0) {
    const outside = requested.length === 0 ? ["(any address)"] : requested.filter((entry) => !entryWithin(entry, own));
    if (outside.length > 0) {
      throw new ForbiddenError(`The calling token may be used only from ${own.join(", ")}; it cannot create a token usable from ${outside.join(", ")}`, {
        identifier: "allowedAddresses",
        values: outside,
        suggestedValues: [...own],
      });
    }
  }
  const defaultExpiry = twoYearsAfter(Date.now());
  return { ...input, expiry: input.expiry ?? (defaultExpiry.getTime() > auth.expiresAt ? ownExpiry : defaultExpiry), allowedAddresses: requested };
}

export async function createApiToken(ctx: RequestContext, requested: CreateApiTokenInput) {
  assertContent(requested, ["permissions"]);
  checkTokenInput(requested, Date.now());
  const input = withinCallerLimits(ctx, requested);
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const token = await insertApiToken(tx, actor, input);
    emit({ type: "api-token.created", entityType: "API_TOKEN", entityId: token.id, userId: actor.userId, payload: { apiTokenId: token.id } });
    return token;
  });
}

export async function updateApiToken(ctx: RequestContext, id: string, input: UpdateApiTokenInput) {
  assertContent(input);
  const actor = actorOf(ctx);
  await getApiToken(ctx, id);
  const token = await inTransaction(ctx.app, async (tx, emit) => {
    const updated = await saveVersioned(tx.apiToken, ENTITY, id, input.version, input.name ? { name: input.name } : {}, actor);
    if (input.name) await tx.user.update({ where: { id: updated.userId }, data: { lastName: input.name, version: { increment: 1 } } });
    emit({ type: "api-token.updated", entityType: "API_TOKEN", entityId: id, userId: actor.userId, payload: { apiTokenId: id } });
    return updated;
  });
  tokensChanged(ctx);
  return token;
}

/** Deleting a token removes its API Token User too: the only way that user ever goes away. */
export async function deleteApiToken(ctx: RequestContext, id: string) {
  const actor = actorOf(ctx);
  const result = await inTransaction(ctx.app, async (tx, emit) => {
    const token = await tx.apiToken.findUnique({ where: { id }, select: { userId: true, permissions: true } });
    if (!token || !withinCaller(ctx, token)) throw new NotFoundError(ENTITY, id);
    await tx.apiToken.delete({ where: { id } });
    await tx.user.delete({ where: { id: token.userId } });
    emit({ type: "api-token.deleted", entityType: "API_TOKEN", entityId: id, userId: actor.userId, payload: { apiTokenId: id } });
    return { id };
  });
  tokensChanged(ctx);
  return result;
}

function tokensChanged(ctx: RequestContext): void {
  ctx.app.tokens.invalidate();
  ctx.app.pubsub.publish("auth-tokens-changed", { at: new Date().toISOString() });
}
