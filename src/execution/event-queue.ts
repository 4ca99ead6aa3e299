/** A queue's reader fell more than its limit behind; what was buffered is dropped. */
export class QueueOverflowError extends Error {
  override readonly name = "QueueOverflowError";
  constructor(readonly limit: number) {
    super(`stream buffer limit of ${limit} events exceeded: the consumer is not reading`);
  }
}

/**
 * What the transport carrying a request does when a queue made for that
 * request overflows: drop the connection or stream it writes to. The queue
 * is made deep inside the service (a stream's live tail) and overflows
 * inside the agent's bus callback, while the transport that must act is
 * blocked waiting for its socket to drain, pulling nothing, so failing the
 * queue alone would never reach it. The server gives each request its drop
 * and the call context carries it to the queue.
 */
export type OverflowDrop = (error: QueueOverflowError) => void;

/** Options of an EventQueue. */
export interface EventQueueOptions {
  /** Discard and mark lagging on overflow instead of failing, unless the consumer stalled (see EventQueue). */
  readonly lag?: { readonly stallMs: number };
  /** Called when the queue fails on overflow: the request's transport is dropped. */
  readonly onOverflow?: OverflowDrop;
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
  private lagging = false;
  /** When the consumer last pulled or reported progress. */
  private progressAt = Date.now();

  /**
   * @param limit items buffered before the queue overflows
   * @param options `lag`: discard and mark lagging on overflow instead of
   * failing, unless the consumer stalled (see the class); `onOverflow`: a
   * failure also drops the request's transport, since a consumer that
   * pulls nothing would never see it.
   */
  constructor(
    private readonly limit = Number.POSITIVE_INFINITY,
    private readonly options: EventQueueOptions = {},
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

  /**
   * Tells the consumer to read what it may have missed elsewhere (the
   * task's log) before it pulls again, as after an overflow: events may
   * have been lost on their way here (another replica's wake-ups). A
   * consumer waiting now is woken with `nudge`, an item it skips.
   */
  requestCatchUp(nudge: T): void {
    if (this.closed) return;
    this.lagging = true;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = this.failer = undefined;
      w({ value: nudge, done: false });
    }
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
      this.options.onOverflow?.(error);
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
