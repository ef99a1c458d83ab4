import { RateLimitedError } from "../core/errors.js";
import type { WindowCounter } from "../core/rate-limit.js";

/**
 * Failed authentications per client address: past `limit` failures in a window, the address gets
 * 429 for every request until the window ends, valid token or not (else a guess that happened to
 * be right would still get through). Failures are counted in the shared counters (Redis across
 * processes); the block itself is remembered per process, so a request pays no extra round trip:
 * across N processes an address gets at most limit + N tries per window.
 */
export class AuthFailureLimiter {
  private readonly blockedUntil = new Map<string, number>();

  constructor(
    private readonly counters: WindowCounter,
    private readonly limit: number,
    private readonly windowSeconds: number,
  ) {}

  /** Throws 429 while the address is blocked. */
  assertAllowed(address: string): void {
    if (this.limit <= 0) return;
    const until = this.blockedUntil.get(address);
    if (until === undefined) return;
    const left = until - Date.now();
    if (left <= 0) {
      this.blockedUntil.delete(address);
      return;
    }
    const seconds = Math.max(1, Math.ceil(left / 1000));
    throw new RateLimitedError(`Too many failed authentication attempts from ${address}; retry in about ${seconds} seconds`, undefined, seconds);
  }

  /** Counts a failed authentication from the address. */
  async failed(address: string): Promise<void> {
    if (this.limit <= 0) return;
    const hit = await this.counters.hit(`authfail:${this.windowSeconds}s:${address}`, this.windowSeconds);
    if (hit.count >= this.limit) {
      this.blockedUntil.set(address, Date.now() + hit.resetSeconds * 1000);
      if (this.blockedUntil.size > 100_000) this.sweep();
    }
  }

  private sweep(): void {
    const now = Date.now();
    for (const [address, until] of this.blockedUntil) if (until <= now) this.blockedUntil.delete(address);
  }
}
