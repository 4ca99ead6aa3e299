import { A2AError } from "../protocol/index.js";

/**
 * Counts something each tenant holds open (streams, say) against a limit,
 * so one tenant cannot take what the server has for everyone.
 */
export class TenantCounter {
  private readonly counts = new Map<string, number>();

  /**
   * @param what what is counted, for the refusal ("open streams")
   * @param limitName the configuration key of the limit, named in refusals
   */
  constructor(
    private readonly limit: number,
    private readonly what: string,
    private readonly limitName: string,
  ) {}

  /** Takes one for `tenant`, or refuses with ResourceExhausted; returns the release (safe to call twice). */
  acquire(tenant: string): () => void {
    const n = this.counts.get(tenant) ?? 0;
    if (n >= this.limit) throw limitReached(`${this.what} per tenant`, this.limit, this.limitName);
    this.counts.set(tenant, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.counts.get(tenant) ?? 1) - 1;
      if (left > 0) this.counts.set(tenant, left);
      else this.counts.delete(tenant);
    };
  }

  /** How many `tenant` holds now. */
  of(tenant: string): number {
    return this.counts.get(tenant) ?? 0;
  }
}

/** The refusal of a request that would pass a configured limit of the server. */
export function limitReached(what: string, limit: number, limitName: string): A2AError {
  return new A2AError("ResourceExhausted", `limit reached: at most ${limit} ${what} (limits.${limitName}); retry later`, {
    metadata: { limit: limitName, value: String(limit) },
  });
}
