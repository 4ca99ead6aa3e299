/**
 * An abort signal for one call: aborted when the caller's signal aborts or
 * when `ms` pass first (then `timedOut` is true). `clear()` stops the clock
 * (a stream that has started runs until it ends); `dispose()` also
 * detaches from the caller's signal and aborts, releasing the connection.
 */
export class Deadline {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private expired = false;
  private readonly onParentAbort = (): void => this.controller.abort(this.parent?.reason);

  constructor(
    readonly ms: number | undefined,
    private readonly parent?: AbortSignal,
  ) {
    if (parent?.aborted) this.controller.abort(parent.reason);
    else parent?.addEventListener("abort", this.onParentAbort, { once: true });
    if (ms !== undefined && ms > 0 && ms < Number.MAX_SAFE_INTEGER) {
      this.timer = setTimeout(() => {
        this.expired = true;
        this.controller.abort(new Error(`deadline of ${ms} ms exceeded`));
      }, ms);
    }
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** True when the clock, not the caller, ended the call. */
  get timedOut(): boolean {
    return this.expired;
  }

  clear(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  dispose(): void {
    this.clear();
    this.parent?.removeEventListener("abort", this.onParentAbort);
    if (!this.controller.signal.aborted) this.controller.abort(new Error("call finished"));
  }
}
