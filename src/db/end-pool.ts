import type pg from "pg";

/**
 * Ends a pool and waits until its connections are really closed. `pool.end()` resolves as soon
 * as it has asked each one to close; a database stopped right after (embedded PostgreSQL at
 * shutdown) would still terminate those sessions and fail them as idle-connection errors.
 */
export async function endPool(pool: pg.Pool, timeoutMs = 5_000): Promise<void> {
  let open = pool.totalCount;
  const closed = new Promise<void>((resolve) => {
    if (open === 0) return resolve();
    pool.on("remove", () => {
      if (--open === 0) resolve();
    });
  });
  await pool.end();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([closed, new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
  clearTimeout(timer);
}
