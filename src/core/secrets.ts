import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config.js";

/**
 * Secrets at rest (warehouse tokens and client secrets): AES-256-GCM under a key from SECRETS_KEY,
 * or, when unset, a random key written once to DATA_DIR/secrets-key (mode 0600), like the admin
 * token. Stored form: `v1:<iv>:<tag>:<ciphertext>`, base64 parts.
 */
const keys = new Map<string, Buffer>();

function parseKey(text: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, "hex") : Buffer.from(trimmed, "base64");
  if (key.length !== 32) throw new Error("SECRETS_KEY must be 32 bytes: 64 hex digits or base64");
  return key;
}

export function secretsKey(config: Pick<Config, "secretsKey" | "dataDir">): Buffer {
  const cacheKey = config.secretsKey ?? `file:${config.dataDir}`;
  const cached = keys.get(cacheKey);
  if (cached) return cached;
  let key: Buffer;
  if (config.secretsKey) key = parseKey(config.secretsKey);
  else {
    const file = join(config.dataDir, "secrets-key");
    if (!existsSync(file)) {
      mkdirSync(config.dataDir, { recursive: true });
      writeFileSync(file, randomBytes(32).toString("hex") + "\n", { mode: 0o600, flag: "wx" });
      chmodSync(file, 0o600);
    }
    key = parseKey(readFileSync(file, "utf8"));
  }
  keys.set(cacheKey, key);
  return key;
}

export function encryptSecret(key: Buffer, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const data = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return ["v1", iv.toString("base64"), cipher.getAuthTag().toString("base64"), data.toString("base64")].join(":");
}

export function decryptSecret(key: Buffer, stored: string): string {
  const [version, iv, tag, data] = stored.split(":");
  if (version !== "v1" || !iv || !tag || data === undefined) throw new Error("unreadable stored secret");
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64"));
  decipher.setAuthTag(Buffer.from(tag, "base64"));
  return Buffer.concat([decipher.update(Buffer.from(data, "base64")), decipher.final()]).toString("utf8");
}
