import { ConflictError, NotFoundError, ValidationError } from "../../core/errors.js";
import { assertContent, createAudit, findEntity, queryEntities, saveVersioned, type PageArgs } from "../../core/entity/index.js";
import { inTransaction, type Tx } from "../../events/outbox.js";
import { actorOf, type RequestContext } from "../../graphql/context.js";
import { newActivation, pendingActivationColumns, sendActivationEmail } from "./activation.js";
import { consumeModifyUsersCall } from "./modify-users-limit.js";
import { assertAllowed, assertManagedThroughApi, userKind } from "./user-permissions.js";
import { userColumns } from "./user.columns.js";

const ENTITY = "User";
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface InviteUserInput {
  email: string;
  role: string;
}

export interface UpdateUserInput {
  enabled?: boolean | null;
  role?: string | null;
  version: number;
}

/**
 * The name a user is shown by (wire reference 5: the calling token's user has a `userName`
 * starting `(API) `). An API Token User is `(API) <token name>` (its lastName follows the token's
 * name); a person is "first last" when either is known, else the email, as an invited user has
 * only an email until someone names them.
 */
export function userNameOf(user: { firstName: string | null; lastName: string | null; email: string | null; serviceAccount: boolean }): string {
  if (user.serviceAccount) return `(API) ${user.lastName ?? ""}`.trimEnd();
  const names = [user.firstName, user.lastName].filter((part) => part && part.trim() !== "").join(" ");
  return names || user.email || "";
}

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

function normaliseEmail(email: string): string {
  const normalised = email.trim().toLowerCase();
  if (normalised.length > 254 || !EMAIL.test(normalised)) throw new ValidationError(`email "${email}" is not an email address`, { identifier: "email", values: [email] });
  return normalised;
}

function emailTaken(email: string): ConflictError {
  return new ConflictError(`A user with the email ${email} already exists`, { problemType: "USER_EMAIL_ALREADY_EXISTS", identifier: "email", values: [email] });
}

function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: string }).code === "P2002";
}

/**
 * Invites a user: stores it (not validated) with a pending activation and emails the link, all or
 * nothing: when the email cannot be sent the invitation is not stored either, so it can be retried.
 */
export async function inviteUser(ctx: RequestContext, input: InviteUserInput) {
  await consumeModifyUsersCall(ctx.app);
  assertContent(input);
  assertAllowed(userKind({ role: input.role }), "create", { id: "", field: "role", value: input.role });
  const email = normaliseEmail(input.email);
  const actor = actorOf(ctx);
  try {
    return await inTransaction(ctx.app, async (tx, emit) => {
      if (await tx.user.findUnique({ where: { email }, select: { id: true } })) throw emailTaken(email);
      const activation = newActivation();
      const user = await tx.user.create({
        data: { ...createAudit(actor), email, role: input.role, enabled: true, serviceAccount: false, ...pendingActivationColumns(activation) },
      });
      emit({ type: "user.invited", entityType: "USER", entityId: user.id, userId: actor.userId, payload: { targetUserId: user.id, role: user.role } });
      await sendActivationEmail(ctx.app, email, activation, "invited");
      return user;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw emailTaken(email);
    throw error;
  }
}

async function loadForChange(tx: Tx, id: string) {
  const user = await tx.user.findUnique({ where: { id } });
  if (!user) throw new NotFoundError(ENTITY, id);
  return user;
}

/**
 * PUT /users/{id}: enable/disable and role changes, each checked against the matrix row of the
 * user being changed (and, for a role change, of the role it becomes). Values equal to the stored
 * ones are not changes. Re-enabling un-validates the user and sends a new activation link.
 */
export async function updateUser(ctx: RequestContext, id: string, input: UpdateUserInput) {
  await consumeModifyUsersCall(ctx.app);
  assertContent(input);
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const current = await loadForChange(tx, id);
    const kind = userKind(current);
    assertManagedThroughApi(kind, id);
    const roleChange = input.role != null && input.role !== current.role;
    const enabledChange = input.enabled != null && input.enabled !== current.enabled;
    if (enabledChange) assertAllowed(kind, "updateEnabled", { id, field: "enabled", value: String(input.enabled) });
    if (roleChange) {
      assertAllowed(kind, "updateRole", { id, field: "role", value: input.role! });
      assertAllowed(userKind({ role: input.role! }), "roleTarget", { id, field: "role", value: input.role! });
    }
    const reEnabled = enabledChange && input.enabled === true;
    const activation = reEnabled ? newActivation() : undefined;
    const data: Record<string, unknown> = {};
    if (roleChange) data.role = input.role;
    if (enabledChange) data.enabled = input.enabled;
    if (activation) Object.assign(data, pendingActivationColumns(activation));
    // A disabled user's pending link must not work any more.
    if (enabledChange && input.enabled === false) Object.assign(data, { activationTokenHash: null, activationExpiresAt: null });
    const user = await saveVersioned(tx.user, ENTITY, id, input.version, data, actor);
    if (roleChange) emit({ type: "user.role", entityType: "USER", entityId: id, userId: actor.userId, payload: { targetUserId: id, role: user.role } });
    if (enabledChange) emit({ type: "user.status", entityType: "USER", entityId: id, userId: actor.userId, payload: { targetUserId: id, status: user.enabled ? "ENABLED" : "DISABLED" } });
    if (activation && user.email) await sendActivationEmail(ctx.app, user.email, activation, "re-enabled");
    return user;
  });
}

export async function resendActivationLink(ctx: RequestContext, id: string) {
  await consumeModifyUsersCall(ctx.app);
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx) => {
    const current = await loadForChange(tx, id);
    assertAllowed(userKind(current), "activationEmail", { id });
    if (!current.enabled) throw new ConflictError(`User ${id} is disabled; enabling it sends a new activation link`, { entityId: id, entityType: ENTITY, identifier: "enabled" });
    if (current.validated) throw new ConflictError(`User ${id} has already activated the account`, { entityId: id, entityType: ENTITY, identifier: "validated" });
    if (!current.email) throw new ConflictError(`User ${id} has no email address`, { entityId: id, entityType: ENTITY, identifier: "email" });
    const activation = newActivation();
    const user = await saveVersioned(tx.user, ENTITY, id, undefined, pendingActivationColumns(activation), actor);
    await sendActivationEmail(ctx.app, current.email, activation, "resent");
    return user;
  });
}

export async function deleteUser(ctx: RequestContext, id: string) {
  const actor = actorOf(ctx);
  return inTransaction(ctx.app, async (tx, emit) => {
    const current = await loadForChange(tx, id);
    assertAllowed(userKind(current), "delete", { id });
    await tx.user.delete({ where: { id } });
    emit({ type: "user.deleted", entityType: "USER", entityId: id, userId: actor.userId, payload: { targetUserId: id } });
    return { id };
  });
}
