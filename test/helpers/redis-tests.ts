import { describe, inject } from "vitest";

/**
 * The run's Redis (`redis://...`), or "" when the machine has no redis-server (global-setup.ts
 * then prints how to get one). Tests that need Redis use `describeWithRedis` or skip on this.
 */
export function testRedisUrl(): string {
  return inject("redisUrl");
}

/** `describe` for tests that need a real Redis: reported as skipped when the run has none. */
export const describeWithRedis: typeof describe = describe.skipIf(!inject("redisUrl")) as typeof describe;
