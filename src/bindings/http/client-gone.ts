/**
 * What aborts a call the hub answers itself (a facade, a direct gRPC or
 * Connect path) when its HTTP client goes away. The call's
 * context is handed the controller, not its signal: Node makes an
 * AbortSignal (an EventTarget) on the first read of `signal`, and a unary
 * call whose client stays, and whose operation never waits on the signal,
 * then makes none (core/handler-context.ts). `aborted` is read without
 * making it.
 */
export class ClientGone {
  readonly controller = new AbortController();
  private gone = false;

  /** Whether the client went away. */
  get aborted(): boolean {
    return this.gone;
  }

  /** The call's signal, made now if nothing read it before. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  abort(reason?: unknown): void {
    this.gone = true;
    this.controller.abort(reason);
  }
}
