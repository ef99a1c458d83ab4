import pg from "pg";
import type { RequestContext } from "../app-types.js";

/**
 * Exclusive claims on a named resource for the length of one request, held as PostgreSQL advisory
 * locks, so every server process sharing the database sees them. A claim lives on a connection of
 * its own, outside the pool (a slow upload must not hold a pooled connection), and dies with it
 * when the process does: a crash never leaves a resource claimed.
 */
export async function claimForRequest(ctx: RequestContext, name: string): Promise<(() => Promise<void>) | undefined> {
  const client = new pg.Client({ connectionString: ctx.app.config.databaseUrl });
  client.on("error", () => undefined);
  await client.connect();
  try {
    const { rows } = await client.query<{ ok: boolean }>("SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok", [name]);
    if (!rows[0].ok) {
      await client.end();
      return undefined;
    }
  } catch (error) {
    await client.end().catch(() => undefined);
    throw error;
  }
  (ctx.claims ??= new Set()).add(name);
  return async () => {
    ctx.claims?.delete(name);
    await client.end().catch(() => undefined);
  };
}

/**
 * Inside a transaction: whether `name` is free of other requests' claims (this request's own count
 * as free). Holds it until the transaction ends.
 */
export async function claimFreeInTransaction(ctx: RequestContext, client: pg.ClientBase, name: string): Promise<boolean> {
  if (ctx.claims?.has(name)) return true;
  const { rows } = await client.query<{ ok: boolean }>("SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS ok", [name]);
  return rows[0].ok;
}
