import type pg from "pg";

/**
 * Runs `work` in one transaction on a connection of its own: committed when it returns, rolled back
 * when it throws (the error goes on), the connection released either way. For work that needs
 * transaction-local settings (`SET LOCAL`) or must be all or nothing across several statements.
 */
export async function inPgTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>, prelude?: string): Promise<T> {
  const client = await pool.connect();
  try {
    return await inClientTransaction(client, work, prelude);
  } finally {
    client.release();
  }
}

/**
 * The same on a connection the caller holds (session settings of its own around the transaction).
 * The two streams that own their transaction (staging's COPY ... FREEZE, a data table export's
 * cursor) stay outside: their work is a stream of writes or reads, not one callback.
 */
export async function inClientTransaction<C extends pg.ClientBase, T>(client: C, work: (client: C) => Promise<T>, prelude?: string): Promise<T> {
  try {
    // `prelude`: statements without parameters (SET LOCAL, DROP) sent with the BEGIN as one simple
    // query, one round trip: each round trip more waits for a turn of a main thread often busy.
    await client.query(prelude ? `BEGIN; ${prelude}` : "BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}
