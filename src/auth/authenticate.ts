import type pg from "pg";
import type { BlockList } from "node:net";
import { UnauthenticatedError } from "../core/errors.js";
import type { AuthFailureLimiter } from "./auth-failures.js";
import { addressAllowed, buildAllowList } from "./ip-allow.js";
import { isPermission, type Permission } from "./permissions.js";
import { hashToken } from "./token-secret.js";

export interface AuthInfo {
  tokenId: string;
  userId: string;
  userName: string;
  permissions: ReadonlySet<Permission>;
  /** When the token stops working (ms since the epoch): subscriptions end then, tokens it creates end no later. */
  expiresAt: number;
  /** The token's own address limits (empty: any address); tokens it creates stay within them. */
  allowedAddresses: readonly string[];
}

interface TokenEntry {
  info: AuthInfo;
  expiry: number;
  allowList: BlockList | null;
  loadedAt: number;
}

/**
 * Resolves a bearer token to the identity and permissions of its API Token User. Entries are
 * cached briefly per process because every request needs them; every process drops its cache
 * when any token changes (the token service publishes that through the event bus).
 */
export class TokenAuthenticator {
  private readonly cache = new Map<string, TokenEntry>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly ttlMs = 30_000,
    private readonly failures?: AuthFailureLimiter,
  ) {}

  invalidate(): void {
    this.cache.clear();
  }

  async authenticate(authorization: string | undefined | null, clientIp: string): Promise<AuthInfo> {
    this.failures?.assertAllowed(clientIp);
    try {
      return await this.check(authorization, clientIp);
    } catch (error) {
      if (error instanceof UnauthenticatedError) await this.failures?.failed(clientIp);
      throw error;
    }
  }

  private async check(authorization: string | undefined | null, clientIp: string): Promise<AuthInfo> {
    const match = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization) : null;
    if (!match) throw new UnauthenticatedError("Missing bearer token: send the header Authorization: Bearer <token>");
    const hash = hashToken(match[1]);
    let entry = this.cache.get(hash);
    if (!entry || Date.now() - entry.loadedAt > this.ttlMs) {
      entry = await this.load(hash);
      if (!entry) throw new UnauthenticatedError("The bearer token is unknown or was deleted");
      this.cache.set(hash, entry);
    }
    if (entry.expiry <= Date.now()) throw new UnauthenticatedError("The bearer token has expired");
    if (entry.allowList && !addressAllowed(entry.allowList, clientIp)) {
      throw new UnauthenticatedError(`The bearer token may not be used from address ${clientIp}`);
    }
    return entry.info;
  }

  private async load(hash: string): Promise<TokenEntry | undefined> {
    const { rows } = await this.pool.query<{
      id: string;
      user_id: string;
      expiry: Date;
      permissions: string[];
      allowed_addresses: string[];
      first_name: string | null;
      last_name: string | null;
    }>(
      `SELECT t.id, t.user_id, t.expiry, t.permissions, t.allowed_addresses, u.first_name, u.last_name
         FROM api_token t JOIN app_user u ON u.id = t.user_id
        WHERE t.token_hash = $1 AND u.enabled`,
      [hash],
    );
    const row = rows[0];
    if (!row) return undefined;
    return {
      info: {
        tokenId: row.id,
        userId: row.user_id,
        userName: [row.first_name, row.last_name].filter(Boolean).join(" "),
        permissions: new Set(row.permissions.filter(isPermission)),
        expiresAt: row.expiry.getTime(),
        allowedAddresses: row.allowed_addresses,
      },
      expiry: row.expiry.getTime(),
      allowList: row.allowed_addresses.length > 0 ? buildAllowList(row.allowed_addresses) : null,
      loadedAt: Date.now(),
    };
  }
}
