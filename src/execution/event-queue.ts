import { AsyncLocalStorage } from "node:async_hooks";

/** A queue's reader fell more than its limit behind; what was buffered is dropped. */
export class QueueOverflowError extends Error {
  override readonly name = "QueueOverflowError";
  constructor(readonly limit: number) {
    super(`stream buffer limit of ${limit} events exceeded: the consumer is not reading`);
  }
}

/**
 * What the transport carrying a request does when a queue made for that
 * request overflows: drop the connection or stream it writes to. Set per
 * request by the server (see `withOverflowDrop`).
 */
export type OverflowDrop = (error: QueueOverflowError) => void;

// Why async context rather than a parameter: the queue is made deep inside
// the service (a stream's live tail) and it overflows inside the agent's
// bus callback, while the transport that must act is blocked waiting for
// its socket to drain, pulling nothing, so failing the queue alone would
// never reach it. Each queue captures the drop of the request it was made in.
const overflowDrops = new AsyncLocalStorage<OverflowDrop>();

/** Runs `fn` so that every EventQueue created inside it (and its async continuations) calls `drop` on overflow. */
export function withOverflowDrop<T>(drop: OverflowDrop, fn: () => T): T {
  return overflowDrops.run(drop, fn);
}

/**
 * An unbounded-until-limited async queue: producers push synchronously, one
 * consumer pulls with for-await. Closing ends iteration after the buffered
 * items; failing ends it with an error. Used to turn bus callbacks into
 * streams without losing events between subscription and consumption.
 *
 * What happens past the limit:
 * - by default the queue fails (and the request's transport is dropped);
 * - with `lag`, the buffered items are discarded and the queue is marked
 *   lagging, for a consumer that can read what it missed elsewhere (a
 *   task's event log): memory stays bounded and a slow reader still gets
 *   everything. A consumer that has not pulled for `lag.stallMs` has
 *   stopped reading, and an overflow then fails the queue after all.
 */
export class EventQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private waiter: ((r: IteratorResult<T>) => void) | undefined;
  private failer: ((e: unknown) => void) | undefined;
  private closed = false;
  private error: unknown;
  private onClose: (() => void) | undefined;
  private readonly drop: OverflowDrop | undefined = overflowDrops.getStore();
  private lagging = false;
  /** When the consumer last pulled or reported progress. */
  private progressAt = Date.now();

  /**
   * @param limit items buffered before the queue overflows
   * @param options `lag`: discard and mark lagging on overflow instead of
   * failing, unless the consumer stalled (see the class). A failure also
   * drops the request's transport, since a consumer that pulls nothing
   * would never see it.
   */
  constructor(
    private readonly limit = Number.POSITIVE_INFINITY,
    private readonly options: { readonly lag?: { readonly stallMs: number } } = {},
  ) {}

  /**
   * Whether items were discarded since the last call (overflow "lag"); the
   * consumer must read what it missed before it pulls again, since what the
   * queue holds now is newer.
   */
  takeLag(): boolean {
    const lagging = this.lagging;
    this.lagging = false;
    return lagging;
  }

  /** The consumer moved on without pulling (it read what it missed elsewhere). */
  noteProgress(): void {
    this.progressAt = Date.now();
  }

  /** Items buffered now, waiting for the consumer (for metrics). */
  get depth(): number {
    return this.items.length;
  }

  /** Runs once when the queue closes for any reason (to unsubscribe). */
  whenClosed(fn: () => void): void {
    this.onClose = fn;
    if (this.closed) fn();
  }

  push(item: T): void {
    if (this.closed) return;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = this.failer = undefined;
      w({ value: item, done: false });
      return;
    }
    if (this.items.length >= this.limit) {
      const lag = this.options.lag;
      if (lag && Date.now() - this.progressAt < lag.stallMs) {
        this.items.length = 0;
        this.lagging = true;
        return;
      }
      const error = new QueueOverflowError(this.limit);
      this.fail(error);
      this.drop?.(error);
      return;
    }
    this.items.push(item);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.onClose?.();
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = this.failer = undefined;
      w({ value: undefined, done: true });
    }
  }

  fail(error: unknown): void {
    if (this.closed) return;
    this.error = error;
    this.items.length = 0;
    const f = this.failer;
    this.waiter = this.failer = undefined;
    this.closed = true;
    this.onClose?.();
    f?.(error);
  }

  next(): Promise<IteratorResult<T>> {
    this.progressAt = Date.now();
    if (this.items.length > 0) return Promise.resolve({ value: this.items.shift()!, done: false });
    if (this.error !== undefined) return Promise.reject(this.error);
    if (this.closed) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.waiter = resolve;
      this.failer = reject;
    });
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => this.next(),
      return: () => {
        this.close();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
