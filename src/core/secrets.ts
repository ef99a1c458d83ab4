import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { closeSync, fchmodSync, linkSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config.js";

/**
 * Secrets at rest (webhook signing keys, warehouse credentials) are encrypted under keys derived
 * (HKDF-SHA256, one key per purpose) from one deployment secret: SECRETS_KEY, or, when unset, a
 * random secret generated into DATA_DIR/secrets-key (mode 0600) on the first start, like the admin
 * token. Processes sharing a database must share it: the variable, or the same DATA_DIR.
 */
export const SECRET_FILE_NAME = "secrets-key";

const derived = new Map<string, Buffer>();

export type SecretsConfig = Pick<Config, "secretsKey" | "dataDir">;

/** The AES-256 key for one purpose (for example "warehouse credentials"). */
export function derivedKey(config: SecretsConfig, purpose: string): Buffer {
  const source = `${config.secretsKey !== undefined ? `env:${config.secretsKey}` : `file:${config.dataDir}`}\u0000${purpose}`;
  let key = derived.get(source);
  if (!key) {
    const secret = config.secretsKey ?? readOrCreateSecret(config.dataDir);
    key = Buffer.from(hkdfSync("sha256", secret, "", purpose, 32));
    derived.set(source, key);
  }
  return key;
}

/**
 * Reads `DATA_DIR/secrets-key`, creating it first if absent. Written to a private temporary file
 * and hard-linked into place (link fails when the name exists), so processes starting together on
 * one DATA_DIR agree on one secret and none reads a half-written file.
 */
function readOrCreateSecret(dataDir: string): string {
  const file = join(dataDir, SECRET_FILE_NAME);
  try {
    return readSecret(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  mkdirSync(dataDir, { recursive: true });
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
  const fd = openSync(temporary, "wx", 0o600);
  try {
    fchmodSync(fd, 0o600);
    writeSync(fd, randomBytes(32).toString("base64") + "\n");
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    unlinkSync(temporary);
  }
  return readSecret(file);
}

function readSecret(file: string): string {
  const secret = readFileSync(file, "utf8").trim();
  if (secret.length < 16) throw new Error(`${file} does not hold a secrets key; delete it only if no secret has been stored yet`);
  return secret;
}

/** AES-256-GCM; stored form `v1:<iv>:<tag>:<ciphertext>`, base64 parts. */
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
