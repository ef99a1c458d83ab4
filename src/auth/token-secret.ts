import { createHash, randomBytes } from "node:crypto";

const PREFIX = "fap_";

/** A new opaque bearer token. Only its hash is stored. */
export function generateTokenSecret(): string {
  return PREFIX + randomBytes(32).toString("base64url");
}

export function hashToken(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

/** What reads show instead of the secret: enough to recognise it, too little to use it. */
export function partialToken(secret: string): string {
  return `${secret.slice(0, PREFIX.length + 4)}…${secret.slice(-4)}`;
}
