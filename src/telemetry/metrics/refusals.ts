import type { Counter } from "prom-client";
import type { Logger } from "../../core/index.js";

/** How often one reason is logged at most; what happens in between is counted into the next line. */
const LOG_EVERY_MS = 10_000;

/**
 * Requests and connections the hub turned away (401, 429, connection and
 * HTTP/2 limits, floods, slow clients), each counted in
 * `a2a_refusals_total{reason}` and logged at most once per reason every
 * 10 s with how many there were since, so a storm of refusals costs a
 * counter increment each and never floods the log. Never logs a
 * credential: the reason and the client's address only.
 */
export class Refusals {
  private readonly pending = new Map<string, { count: number; addresses: Set<string>; timer: NodeJS.Timeout | undefined; last: number }>();

  constructor(
    private readonly counter: Counter<"reason"> | undefined,
    private readonly logger: Logger,
  ) {}

  /** Records one refusal for `reason` (a bounded set: `limits.<key>`, `unauthenticated`, `h2.flood`, …). */
  refuse(reason: string, address?: string): void {
    this.counter?.inc({ reason });
    let p = this.pending.get(reason);
    if (!p) this.pending.set(reason, (p = { count: 0, addresses: new Set(), timer: undefined, last: 0 }));
    p.count++;
    if (address && p.addresses.size < 5) p.addresses.add(address);
    if (p.timer) return;
    const now = Date.now();
    const flush = (): void => {
      p.timer = undefined;
      if (p.count === 0) return;
      p.last = Date.now();
      this.logger.warn("refused", { reason, count: p.count, addresses: [...p.addresses] });
      p.count = 0;
      p.addresses.clear();
    };
    if (now - p.last >= LOG_EVERY_MS) flush();
    else {
      p.timer = setTimeout(flush, LOG_EVERY_MS - (now - p.last));
      p.timer.unref();
    }
  }
}
