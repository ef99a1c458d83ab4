import { createCipheriv, createDecipheriv, createPrivateKey, generateKeyPairSync, hkdfSync, randomBytes, sign, type KeyObject } from "node:crypto";
import { closeSync, fchmodSync, linkSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../../config.js";

/** File holding the generated secret when WEBHOOK_KEY_ENCRYPTION_KEY is unset. */
export const KEY_FILE_NAME = "webhook-key";

const FORMAT = "v1";
const derived = new Map<string, Buffer>();

/**
 * The AES-256 key that encrypts webhook private keys at rest, derived (HKDF-SHA256) from
 * WEBHOOK_KEY_ENCRYPTION_KEY or, when that is unset, from a random secret generated into
 * `DATA_DIR/webhook-key` (mode 0600) on the first start, like the admin token. Processes sharing a
 * database must share the secret: the variable, or the same DATA_DIR.
 */
export function keyEncryptionKey(config: Pick<Config, "webhookKeyEncryptionKey" | "dataDir">): Buffer {
  const source = config.webhookKeyEncryptionKey !== undefined ? `env:${config.webhookKeyEncryptionKey}` : `file:${config.dataDir}`;
  let key = derived.get(source);
  if (!key) {
    const secret = config.webhookKeyEncryptionKey ?? readOrCreateSecret(config.dataDir);
    key = Buffer.from(hkdfSync("sha256", secret, "", "webhook signing keys", 32));
    derived.set(source, key);
  }
  return key;
}

/**
 * Reads `DATA_DIR/webhook-key`, creating it first if absent. Written to a private temporary file
 * and hard-linked into place (link fails when the name exists), so processes starting together on
 * one DATA_DIR agree on one secret and none reads a half-written file.
 */
function readOrCreateSecret(dataDir: string): string {
  const file = join(dataDir, KEY_FILE_NAME);
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
  if (secret.length < 16) throw new Error(`${file} does not hold a webhook key encryption secret; delete it only if no webhook exists yet`);
  return secret;
}

/** A new Ed25519 key pair: the public key as PEM (SPKI), the private key encrypted for `webhookId`. */
export function generateSigningKeys(key: Buffer, webhookId: string): { publicKey: string; privateKeyEncrypted: string } {
  const pair = generateKeyPairSync("ed25519");
  const privateDer = pair.privateKey.export({ format: "der", type: "pkcs8" });
  return { publicKey: pair.publicKey.export({ format: "pem", type: "spki" }).toString(), privateKeyEncrypted: encrypt(key, webhookId, privateDer) };
}

/** AES-256-GCM with the webhook id as associated data: a key copied to another webhook does not decrypt. */
function encrypt(key: Buffer, webhookId: string, plain: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(webhookId));
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return `${FORMAT}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64")}`;
}

export class SigningKeyUnavailable extends Error {}

const privateKeys = new Map<string, KeyObject>();

/** The webhook's private key; SigningKeyUnavailable when the stored key does not decrypt with `key`. */
export function signingKey(key: Buffer, webhookId: string, encrypted: string): KeyObject {
  const cacheKey = `${webhookId}:${encrypted}`;
  const cached = privateKeys.get(cacheKey);
  if (cached) return cached;
  const [format, data] = encrypted.split(".");
  if (format !== FORMAT || !data) throw new SigningKeyUnavailable("the stored signing key has an unknown format");
  const bytes = Buffer.from(data, "base64");
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, 12));
    decipher.setAAD(Buffer.from(webhookId));
    decipher.setAuthTag(bytes.subarray(12, 28));
    const der = Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]);
    const privateKey = createPrivateKey({ key: der, format: "der", type: "pkcs8" });
    if (privateKeys.size > 1000) privateKeys.clear();
    privateKeys.set(cacheKey, privateKey);
    return privateKey;
  } catch {
    throw new SigningKeyUnavailable(
      "the webhook's signing key cannot be decrypted: WEBHOOK_KEY_ENCRYPTION_KEY (or DATA_DIR/webhook-key) differs from the one in use when the webhook was registered",
    );
  }
}

/** Standard Webhooks asymmetric signature: `v1a,` + base64 Ed25519 signature of `id.timestamp.body`. */
export function signatureHeader(privateKey: KeyObject, id: string, timestamp: number, body: string): string {
  return `v1a,${sign(null, Buffer.from(`${id}.${timestamp}.${body}`), privateKey).toString("base64")}`;
}
