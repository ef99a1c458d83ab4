import type pg from "pg";
import type { Logger } from "../core/logger.js";

/** How many distinct addresses `recentLogins` keeps, newest first. */
const KEEP = 10;
/** A token used continuously from one address is recorded at most this often per process. */
const THROTTLE_MS = 60_000;
const lastRecorded = new Map<string, number>();

/**
 * Spec 2.11 `recentLogins`: when and from which address the account was last used. Tokens are the
 * only way in, so each authenticated use counts; it is recorded off the request path and at most
 * once a minute per user and address, so it costs the hot path nothing.
 */
export function noteLogin(db: { pool: pg.Pool; logger: Logger }, userId: string, ipAddress: string): void {
  const key = `${userId}|${ipAddress}`;
  const now = Date.now();
  const last = lastRecorded.get(key);
  if (last !== undefined && now - last < THROTTLE_MS) return;
  if (lastRecorded.size > 10_000) lastRecorded.clear();
  lastRecorded.set(key, now);
  db.pool
    .query(
      `UPDATE app_user SET recent_logins = (
         SELECT coalesce(jsonb_agg(entry ORDER BY position), '[]'::jsonb) FROM (
           SELECT entry, position FROM jsonb_array_elements(jsonb_build_array(jsonb_build_object('ipAddress', $2::text, 'timestamp', $3::text)) ||
             coalesce((SELECT jsonb_agg(e) FROM jsonb_array_elements(recent_logins) e WHERE e->>'ipAddress' <> $2::text), '[]'::jsonb))
             WITH ORDINALITY AS t(entry, position)
           ORDER BY position LIMIT ${KEEP}) kept)
       WHERE id = $1`,
      [userId, ipAddress, new Date(now).toISOString()],
    )
    .catch((error) => db.logger.warn("could not record a login", { error, userId }));
}
