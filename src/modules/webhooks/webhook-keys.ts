import { createCipheriv, createDecipheriv, createPrivateKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";
import { derivedKey, type SecretsConfig } from "../../core/secrets.js";

const FORMAT = "v1";

/** The AES-256 key that encrypts webhook private keys at rest (derived from the deployment's secrets key). */
export function keyEncryptionKey(config: SecretsConfig): Buffer {
  return derivedKey(config, "webhook signing keys");
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
      "the webhook's signing key cannot be decrypted: SECRETS_KEY (or DATA_DIR/secrets-key) differs from the one in use when the webhook was registered",
    );
  }
}

/** Standard Webhooks asymmetric signature: `v1a,` + base64 Ed25519 signature of `id.timestamp.body`. */
export function signatureHeader(privateKey: KeyObject, id: string, timestamp: number, body: string): string {
  return `v1a,${sign(null, Buffer.from(`${id}.${timestamp}.${body}`), privateKey).toString("base64")}`;
}
