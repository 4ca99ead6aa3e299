/**
 * An unbounded-until-limited async queue: producers push synchronously, one
 * consumer pulls with for-await. Closing ends iteration after the buffered
 * items; failing ends it with an error. Used to turn bus callbacks into
 * streams without losing events between subscription and consumption.
 */
export class EventQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private waiter: ((r: IteratorResult<T>) => void) | undefined;
  private failer: ((e: unknown) => void) | undefined;
  private closed = false;
  private error: unknown;
  private onClose: (() => void) | undefined;

  /** @param limit items buffered before the queue fails (a consumer that stopped reading). */
  constructor(private readonly limit = Number.POSITIVE_INFINITY) {}

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
      this.fail(new Error(`stream buffer limit of ${this.limit} events exceeded: the consumer is not reading`));
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
