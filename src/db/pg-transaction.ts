import type pg from "pg";

/**
 * Runs `work` in one transaction on a connection of its own: committed when it returns, rolled back
 * when it throws (the error goes on), the connection released either way. For work that needs
 * transaction-local settings (`SET LOCAL`) or must be all or nothing across several statements.
 */
export async function inPgTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
