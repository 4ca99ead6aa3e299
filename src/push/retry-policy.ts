/** How failed webhook deliveries are retried. */
export interface RetryPolicy {
  /** Delay before the first retry (ms). */
  readonly baseMs: number;
  /** Longest delay between two attempts (ms). */
  readonly capMs: number;
  /** Attempts in all, the first included, before a delivery is dead. */
  readonly attempts: number;
}

/** About a minute in all: 1 + 2 + 4 + 8 + 16 + 30 s between 7 attempts, give or take jitter. */
export const DEFAULT_RETRY: RetryPolicy = { baseMs: 1_000, capMs: 30_000, attempts: 7 };

/**
 * When to try again after `attempts` failures, or undefined when the
 * delivery is dead. Exponential backoff with ±25% jitter, so receivers that
 * come back are not hit by every sender at once.
 */
export function nextAttemptAt(policy: RetryPolicy, attempts: number, nowMs: number, random: () => number = Math.random): number | undefined {
  if (attempts >= policy.attempts) return undefined;
  const delay = Math.min(policy.capMs, policy.baseMs * 2 ** (attempts - 1));
  return nowMs + Math.round(delay * (0.75 + random() * 0.5));
}
