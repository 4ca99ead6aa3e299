/** A token bucket's size and refill. */
export interface RateLimit {
  /** Requests a tenant may make in a burst. */
  readonly burst: number;
  /** Requests per second the bucket refills at. */
  readonly perSecond: number;
}

/**
 * Per-tenant token buckets. `take` spends one token, or says how long until
 * one is back (for Retry-After).
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly limit: RateLimit,
    private readonly now: () => number = Date.now,
  ) {}

  /** 0 when the request may proceed; else the seconds to wait (at least 1). */
  take(tenant: string): number {
    const t = this.now();
    const b = this.buckets.get(tenant) ?? { tokens: this.limit.burst, at: t };
    b.tokens = Math.min(this.limit.burst, b.tokens + ((t - b.at) / 1000) * this.limit.perSecond);
    b.at = t;
    this.buckets.set(tenant, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / this.limit.perSecond));
  }
}
