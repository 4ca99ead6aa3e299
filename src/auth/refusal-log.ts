import type { RefusalReason } from "./caller.js";

/** The little of a logger the refusal log needs. */
export interface WarnLogger {
  warn(message: string, fields?: Record<string, unknown>): void;
}

/** Refusal lines written per window at most; the rest are counted and summed up once the window ends. */
const LINES_PER_WINDOW = 20;
const WINDOW_MS = 10_000;

/**
 * Counts every refusal and logs it with its reason, at most
 * LINES_PER_WINDOW lines per window, so a flood of bad tokens cannot flood
 * the log: what was left out is reported as one line when the next window
 * opens. Never logs a credential.
 */
export class RefusalLog {
  private windowStart = 0;
  private written = 0;
  private suppressed = 0;

  constructor(
    private readonly logger: WarnLogger,
    private readonly count: (binding: string, reason: RefusalReason) => void = () => {},
    private readonly now: () => number = Date.now,
  ) {}

  /** One refused request: counted always, logged while the window has room. */
  report(binding: string, reason: RefusalReason, message: string, fields: Record<string, unknown> = {}): void {
    this.count(binding, reason);
    this.log({ binding, reason, why: message, ...fields });
  }

  /** A refusal that is not about credentials (a tenant over its rate limit): logged in the same window, not counted here. */
  note(binding: string, why: string, fields: Record<string, unknown> = {}): void {
    this.log({ binding, why, ...fields });
  }

  private log(fields: Record<string, unknown>): void {
    const t = this.now();
    if (t - this.windowStart >= WINDOW_MS) {
      if (this.suppressed > 0) this.logger.warn("auth refusals not logged (rate limit of the log)", { suppressed: this.suppressed, windowMs: WINDOW_MS });
      this.windowStart = t;
      this.written = 0;
      this.suppressed = 0;
    }
    if (this.written < LINES_PER_WINDOW) {
      this.written++;
      this.logger.warn("request refused", fields);
    } else this.suppressed++;
  }
}
