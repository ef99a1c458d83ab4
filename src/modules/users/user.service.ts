import { ConflictError, NotFoundError, ValidationError } from "../../core/errors.js";
import { assertContent, createAudit, findEntity, queryEntities, saveVersioned, touchAudit, type PageArgs } from "../../entity/index.js";
import { inTransaction, type Emit, type Tx } from "../../events/outbox.js";
import { actorOf, type RequestContext } from "../../graphql/context.js";
import { newActivation, pendingActivationColumns, sendActivationEmail } from "./activation.js";
import { consumeModifyUsersCall } from "./modify-users-limit.js";
import { assertAllowed, assertManagedThroughApi, userKind } from "./user-permissions.js";
import { userColumns } from "./user.columns.js";
import type { CreateUserInput, UpdateUserInput } from "./user.inputs.js";

const ENTITY = "User";
const EMAIL = /^[^\s@\u0000-\u001f\u007f]+@[^\s@\u0000-\u001f\u007f]+\.[^\s@\u0000-\u001f\u007f]+$/;

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
 * Activation emails go out after the transaction that issues their link has committed. SMTP cannot
 * take part in a database transaction: sent inside it, a commit failing after the mail server had
 * accepted the message left a link to a user (or a token) that was never stored. Sent after the
 * commit, a link always names stored data. When sending fails, `undo` reverts the change in a
 * compensating transaction, so a 503 DELIVERY_FAILURE still means "nothing changed, try again"
 * (docs/users.md). The undo applies only while the row is exactly as committed (same version): it
 * never overwrites what someone changed meanwhile. It emits the events of the reversal, because the
 * events of the change may already have been published. Not covered: the process stopping between
 * the commit and the send leaves the change without its email (resend-activation-link sends one).
 */
async function sendOrUndo(ctx: RequestContext, userId: string, send: () => Promise<void>, undo: (tx: Tx, emit: Emit) => Promise<boolean>): Promise<void> {
  try {
    await send();
  } catch (error) {
    try {
      const undone = await inTransaction(ctx.app, undo);
      if (!undone) ctx.app.logger.warn("activation email failed; the user changed meanwhile, so the change was kept", { userId, requestId: ctx.requestId });
    } catch (undoError) {
      ctx.app.logger.error("activation email failed and undoing the change failed too", { error: undoError, userId, requestId: ctx.requestId });
    }
    throw error;
  }
}

/**
 * Invites a user: stores it (not validated) with a pending activation, then emails the link; when
 * the email cannot be sent the invitation is removed again (see sendOrUndo), so it can be retried.
 */
export async function inviteUser(ctx: RequestContext, input: CreateUserInput) {
  await consumeModifyUsersCall(ctx.app);
  assertContent(input);
  assertAllowed(userKind({ role: input.role }), "create", { id: "", field: "role", value: input.role });
  const email = normaliseEmail(input.email);
  const actor = actorOf(ctx);
  const activation = newActivation();
  const user = await inTransaction(ctx.app, async (tx, emit) => {
    if (await tx.user.findUnique({ where: { email }, select: { id: true } })) throw emailTaken(email);
    const created = await tx.user.create({
      data: { ...createAudit(actor), email, role: input.role, enabled: true, serviceAccount: false, ...pendingActivationColumns(activation) },
    });
    emit({ type: "user.invited", entityType: "USER", entityId: created.id, userId: actor.userId, payload: { targetUserId: created.id, role: created.role } });
    return created;
  }).catch((error: unknown) => {
    throw isUniqueViolation(error) ? emailTaken(email) : error;
  });
  await sendOrUndo(
    ctx,
    user.id,
    () => sendActivationEmail(ctx, email, activation, "invited"),
    async (tx, emit) => {
      const removed = await tx.user.deleteMany({ where: { id: user.id, version: user.version, activationTokenHash: activation.hash } });
      if (removed.count === 0) return false;
      emit({ type: "user.deleted", entityType: "USER", entityId: user.id, userId: actor.userId, payload: { targetUserId: user.id } });
      return true;
    },
  );
  return user;
}

async function loadForChange(tx: Tx, id: string) {
  const user = await tx.user.findUnique({ where: { id } });
  if (!user) throw new NotFoundError(ENTITY, id);
  return user;
}

/**
 * PUT /users/{id}: enable/disable and role changes, each checked against the matrix row of the
 * user being changed (and, for a role change, of the role it becomes). Values equal to the stored
 * ones are not changes. Re-enabling un-validates the user and sends a new activation link; when
 * that email cannot be sent the whole change is reverted (see sendOrUndo).
 */
export async function updateUser(ctx: RequestContext, id: string, input: UpdateUserInput) {
  await consumeModifyUsersCall(ctx.app);
  assertContent(input);
  const actor = actorOf(ctx);
  const change = await inTransaction(ctx.app, async (tx, emit) => {
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
    return { user, current, roleChange, enabledChange, activation };
  });
  const { user, current, roleChange, enabledChange, activation } = change;
  if (activation && user.email) {
    const email = user.email;
    await sendOrUndo(
      ctx,
      id,
      () => sendActivationEmail(ctx, email, activation, "re-enabled"),
      async (tx, emit) => {
        // Back to the row as it was before this PUT; the reversal is a save of its own (version + 1).
        const restored = await tx.user.updateMany({
          where: { id, version: user.version },
          data: {
            role: current.role,
            enabled: current.enabled,
            validated: current.validated,
            activationTokenHash: current.activationTokenHash,
            activationExpiresAt: current.activationExpiresAt,
            ...touchAudit(actor),
            version: { increment: 1 },
          },
        });
        if (restored.count === 0) return false;
        if (roleChange) emit({ type: "user.role", entityType: "USER", entityId: id, userId: actor.userId, payload: { targetUserId: id, role: current.role } });
        if (enabledChange) emit({ type: "user.status", entityType: "USER", entityId: id, userId: actor.userId, payload: { targetUserId: id, status: current.enabled ? "ENABLED" : "DISABLED" } });
        return true;
      },
    );
  }
  return user;
}

/** Replaces the pending link and emails it; when the email cannot be sent the previous link is restored. */
export async function resendActivationLink(ctx: RequestContext, id: string) {
  await consumeModifyUsersCall(ctx.app);
  const actor = actorOf(ctx);
  const activation = newActivation();
  const { user, current } = await inTransaction(ctx.app, async (tx) => {
    const current = await loadForChange(tx, id);
    assertAllowed(userKind(current), "activationEmail", { id });
    if (!current.enabled) throw new ConflictError(`User ${id} is disabled; enabling it sends a new activation link`, { entityId: id, entityType: ENTITY, identifier: "enabled" });
    if (current.validated) throw new ConflictError(`User ${id} has already activated the account`, { entityId: id, entityType: ENTITY, identifier: "validated" });
    if (!current.email) throw new ConflictError(`User ${id} has no email address`, { entityId: id, entityType: ENTITY, identifier: "email" });
    const user = await saveVersioned(tx.user, ENTITY, id, undefined, pendingActivationColumns(activation), actor);
    return { user, current };
  });
  await sendOrUndo(
    ctx,
    id,
    () => sendActivationEmail(ctx, current.email!, activation, "resent"),
    async (tx) => {
      const restored = await tx.user.updateMany({
        where: { id, version: user.version, activationTokenHash: activation.hash },
        data: { activationTokenHash: current.activationTokenHash, activationExpiresAt: current.activationExpiresAt, ...touchAudit(actor), version: { increment: 1 } },
      });
      return restored.count > 0;
    },
  );
  return user;
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
