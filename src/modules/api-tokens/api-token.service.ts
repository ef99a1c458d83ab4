import { ForbiddenError, NotFoundError, ValidationError, type Problem } from "../../core/errors.js";
import { assertContent, createAudit, findEntity, queryEntities, saveVersioned, type Actor, type PageArgs } from "../../entity/index.js";
import { inTransaction, type Tx } from "../../events/outbox.js";
import { actorOf, type RequestContext } from "../../graphql/context.js";
import { addressEntryProblem } from "../../auth/ip-allow.js";
import { ALL_PERMISSIONS, isPermission, type Permission } from "../../auth/permissions.js";
import { generateTokenSecret, hashToken, partialToken } from "../../auth/token-secret.js";
import { apiTokenColumns } from "./api-token.columns.js";

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

export interface CreateApiTokenInput {
  name: string;
  expiry?: Date | null;
  permissions: string[];
  allowedAddresses?: string[] | null;
}

export function getApiToken(ctx: RequestContext, id: string) {
  return findEntity(ctx.app, "apiToken", ENTITY, id);
}

export function getCurrentApiToken(ctx: RequestContext) {
  return getApiToken(ctx, ctx.auth!.tokenId);
}

export function queryApiTokens(ctx: RequestContext, args: PageArgs) {
  return queryEntities(ctx.app, { model: "apiToken", columns: apiTokenColumns }, args);
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

export async function createApiToken(ctx: RequestContext, input: CreateApiTokenInput) {
  assertContent(input, ["permissions"]);
  checkTokenInput(input, Date.now());
  // A token can hand out only permissions it holds itself.
  const escalated = input.permissions.filter((p) => !ctx.auth!.permissions.has(p as Permission));
  if (escalated.length > 0) throw new ForbiddenError(`The calling token cannot grant permissions it does not hold: ${escalated.join(", ")}`, { identifier: "permissions", values: escalated });
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const token = await insertApiToken(tx, actor, input);
    emit({ type: "api-token.created", entityType: "API_TOKEN", entityId: token.id, userId: actor.userId, payload: { apiTokenId: token.id } });
    return token;
  });
}

export async function updateApiToken(ctx: RequestContext, id: string, input: { name?: string | null; version: number }) {
  assertContent(input);
  const actor = actorOf(ctx);
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
    const token = await tx.apiToken.findUnique({ where: { id }, select: { userId: true } });
    if (!token) throw new NotFoundError(ENTITY, id);
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
