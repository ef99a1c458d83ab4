import { closeSync, fchmodSync, mkdirSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { App } from "../../app-types.js";
import { ALL_PERMISSIONS } from "../../auth/permissions.js";
import { generateTokenSecret } from "../../auth/token-secret.js";
import { inTransaction } from "../../events/outbox.js";
import { insertApiToken } from "./api-token.service.js";

const BOOTSTRAP_LOCK = 727_215_002;

/**
 * On the first start with an empty database, creates an App Admin token holding every
 * permission so a new user can call the API at once. Its secret is BOOTSTRAP_TOKEN when set,
 * otherwise random; it is written to DATA_DIR/admin-token (mode 0600) and returned so the caller
 * prints it once. Later starts find a token and do nothing.
 */
export async function bootstrapAdminToken(app: App): Promise<{ secret: string; file: string } | undefined> {
  return inTransaction(app, async (tx) => {
    await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(${BOOTSTRAP_LOCK})`);
    if ((await tx.apiToken.count()) > 0) return undefined;
    const secret = app.config.bootstrapToken ?? generateTokenSecret();
    await insertApiToken(tx, null, { name: "App Admin", permissions: [...ALL_PERMISSIONS] }, secret);
    mkdirSync(app.config.dataDir, { recursive: true });
    const file = join(app.config.dataDir, "admin-token");
    writeOwnerOnly(file, secret + "\n");
    return { secret, file };
  });
}

/**
 * Writes `text` to a file only its owner may read. The `mode` of open() applies only when the file
 * is created; an admin-token left behind by an earlier database (or created by hand) keeps its old
 * mode. So the descriptor is chmod-ed before the secret is written: at no moment does a readable
 * file hold it.
 */
function writeOwnerOnly(file: string, text: string): void {
  const fd = openSync(file, "w", 0o600);
  try {
    fchmodSync(fd, 0o600);
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}
