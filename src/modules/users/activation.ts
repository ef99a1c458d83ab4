import { createHash, randomBytes } from "node:crypto";
import express, { type Router } from "express";
import type { App } from "../../app-types.js";
import type { RequestContext } from "../../graphql/context.js";
import { mailerFor } from "../../mail/mailer.js";

/** Spec 8: an activation link is valid for 7 days. */
export const ACTIVATION_VALIDITY_MS = 7 * 24 * 3600 * 1000;
export const ACTIVATION_PATH = "/api/activate";

export interface Activation {
  token: string;
  hash: string;
  expiresAt: Date;
}

export function hashActivationToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export function newActivation(now = Date.now()): Activation {
  const token = randomBytes(32).toString("base64url");
  return { token, hash: hashActivationToken(token), expiresAt: new Date(now + ACTIVATION_VALIDITY_MS) };
}

/** Columns that make a user wait for (another) activation. */
export function pendingActivationColumns(activation: Activation) {
  return { validated: false, activationTokenHash: activation.hash, activationExpiresAt: activation.expiresAt };
}

/**
 * Links point at PUBLIC_URL when set, else at the scheme and host the request that issued the link
 * was sent to (README: "(from the request)"; with TRUST_PROXY, the proxy's X-Forwarded-Proto/-Host).
 * `http://localhost:PORT` remains only for a request without a usable host.
 */
export function activationLink(app: App, origin: string | undefined, token: string): string {
  const base = app.config.publicUrl ?? origin ?? `http://localhost:${app.config.port}`;
  return `${base.replace(/\/+$/, "")}${ACTIVATION_PATH}?token=${token}`;
}

export type ActivationReason = "invited" | "re-enabled" | "resent";

const INTRO: Record<ActivationReason, string> = {
  invited: "You have been invited to the ledger analytics platform.",
  "re-enabled": "Your access to the ledger analytics platform has been enabled again.",
  resent: "Here is a new activation link for the ledger analytics platform.",
};

/** Sends the activation email; throws MailDeliveryError when the mail server refuses. */
export async function sendActivationEmail(ctx: Pick<RequestContext, "app" | "origin">, to: string, activation: Activation, reason: ActivationReason): Promise<void> {
  const { app } = ctx;
  const link = activationLink(app, ctx.origin, activation.token);
  const until = activation.expiresAt.toISOString();
  await mailerFor(app).send({
    to,
    subject: "Activate your ledger analytics account",
    text: `${INTRO[reason]}\n\nActivate your account with this link (valid for 7 days, until ${until}):\n\n${link}\n\nIf you did not expect this email you can ignore it.\n`,
    html: `<p>${INTRO[reason]}</p><p><a href="${link}">Activate your account</a> (valid for 7 days, until ${until}).</p><p>If you did not expect this email you can ignore it.</p>`,
  });
}

export type ActivationOutcome = "activated" | "unknown" | "expired";

/** Marks the user holding this link's token as validated, if the link is still valid. */
export async function activateUser(app: App, token: string): Promise<ActivationOutcome> {
  const { rows } = await app.pool.query<{ id: string; expired: boolean }>(
    `UPDATE app_user u SET validated = (u.activation_expires_at > now()),
            activation_token_hash = CASE WHEN u.activation_expires_at > now() THEN NULL ELSE u.activation_token_hash END,
            version = CASE WHEN u.activation_expires_at > now() THEN u.version + 1 ELSE u.version END,
            last_modified_date = CASE WHEN u.activation_expires_at > now() THEN now() ELSE u.last_modified_date END
      WHERE u.activation_token_hash = $1 AND u.enabled
      RETURNING u.id, NOT u.validated AS expired`,
    [hashActivationToken(token)],
  );
  if (rows.length === 0) return "unknown";
  return rows[0].expired ? "expired" : "activated";
}

function page(title: string, body: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body style="font-family:sans-serif;max-width:36em;margin:4em auto"><h1>${title}</h1>${body}</body></html>`;
}

const TOKEN = /^[A-Za-z0-9_-]{20,100}$/;

/**
 * The page an activation link opens. GET only shows a confirmation button (mail scanners that
 * prefetch links must not activate accounts); the POST it submits does the activation.
 */
export function activationRouter(app: App): Router {
  const router = express.Router();
  router.get("/", (req, res) => {
    const token = typeof req.query.token === "string" ? req.query.token : "";
    if (!TOKEN.test(token)) {
      res.status(400).type("html").send(page("Invalid activation link", "<p>The link is incomplete. Copy the whole link from the email.</p>"));
      return;
    }
    res.type("html").send(page("Activate your account", `<form method="post"><input type="hidden" name="token" value="${token}"><button type="submit">Activate</button></form>`));
  });
  router.post("/", express.urlencoded({ extended: false, limit: "2kb" }), async (req, res, next) => {
    try {
      const token = typeof req.body?.token === "string" ? req.body.token : "";
      const outcome = TOKEN.test(token) ? await activateUser(app, token) : "unknown";
      if (outcome === "activated") res.type("html").send(page("Account activated", "<p>Your account is active.</p>"));
      else if (outcome === "expired") res.status(410).type("html").send(page("Activation link expired", "<p>Links are valid for 7 days. Ask an administrator to resend the activation link.</p>"));
      else res.status(404).type("html").send(page("Unknown activation link", "<p>This link was replaced by a newer one or has already been used.</p>"));
    } catch (error) {
      next(error);
    }
  });
  return router;
}
