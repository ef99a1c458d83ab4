import type { Redis } from "ioredis";

export interface WindowHit {
  count: number;
  /** Seconds until the current window ends. */
  resetSeconds: number;
}

/** Fixed-window counters: the same contract in memory (one process) and in Redis (a deployment). */
export interface WindowCounter {
  hit(key: string, windowSeconds: number): Promise<WindowHit>;
}

export class MemoryWindowCounter implements WindowCounter {
  private readonly windows = new Map<string, { start: number; count: number }>();
  private lastSweep = Date.now();

  async hit(key: string, windowSeconds: number): Promise<WindowHit> {
    const now = Date.now();
    const length = windowSeconds * 1000;
    if (now - this.lastSweep > length) this.sweep(now, length);
    let window = this.windows.get(key);
    if (!window || now - window.start >= length) {
      window = { start: now, count: 0 };
      this.windows.set(key, window);
    }
    window.count++;
    return { count: window.count, resetSeconds: Math.max(1, Math.ceil((window.start + length - now) / 1000)) };
  }

  private sweep(now: number, length: number) {
    for (const [key, window] of this.windows) if (now - window.start >= length) this.windows.delete(key);
    this.lastSweep = now;
  }
}

export class RedisWindowCounter implements WindowCounter {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = "ratelimit:",
  ) {}

  async hit(key: string, windowSeconds: number): Promise<WindowHit> {
    const redisKey = this.prefix + key;
    const result = await this.redis.multi().incr(redisKey).expire(redisKey, windowSeconds, "NX").pttl(redisKey).exec();
    const count = Number(result?.[0]?.[1] ?? 1);
    const ttl = Number(result?.[2]?.[1] ?? windowSeconds * 1000);
    return { count, resetSeconds: Math.max(1, Math.ceil(ttl / 1000)) };
  }
}

/**
 * The same contract on PostgreSQL, for deployments without Redis whose processes share one
 * database: one row per key, reset and incremented in a single atomic upsert.
 */
export class PgWindowCounter implements WindowCounter {
  constructor(private readonly pool: Pick<import("pg").Pool, "query">) {}

  async hit(key: string, windowSeconds: number): Promise<WindowHit> {
    const { rows } = await this.pool.query<{ count: number; reset_ms: string }>(
      `INSERT INTO rate_limit_window AS w (key, window_start, count) VALUES ($1, clock_timestamp(), 1)
       ON CONFLICT (key) DO UPDATE SET
         window_start = CASE WHEN w.window_start + make_interval(secs => $2) <= clock_timestamp() THEN clock_timestamp() ELSE w.window_start END,
         count = CASE WHEN w.window_start + make_interval(secs => $2) <= clock_timestamp() THEN 1 ELSE w.count + 1 END
       RETURNING count, (extract(epoch FROM (window_start + make_interval(secs => $2) - clock_timestamp())) * 1000)::bigint::text AS reset_ms`,
      [key, windowSeconds],
    );
    return { count: rows[0].count, resetSeconds: Math.max(1, Math.ceil(Number(rows[0].reset_ms) / 1000)) };
  }
}
