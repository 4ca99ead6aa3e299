import { ROOT_CONTEXT, type Context, type ContextManager } from "@opentelemetry/api";

/**
 * A context manager that nests spans only within synchronous code: `with`
 * makes a context active until its callback returns, and nothing follows
 * an `await`. The SDK's default (AsyncLocalStorage) would carry the
 * context across awaits too; Node 20 did so with a promise hook on every
 * promise the process makes (about 40 per SendMessage). Node 24 and 26
 * carry it in AsyncContextFrame without that hook, but still save and
 * restore a frame at every await, paid by every call whether or not
 * anything reads the context. The hub
 * instead hands each call's trace context on by hand where a call crosses
 * an await: the run's options and ExecutionContext.traceContext, the
 * client's CallOptions.traceContext, the sink of a traced agent run, and
 * the push worker's wake-up.
 */
export class SyncContextManager implements ContextManager {
  private current: Context = ROOT_CONTEXT;

  active(): Context {
    return this.current;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(context: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    const before = this.current;
    this.current = context;
    try {
      return fn.call(thisArg, ...args);
    } finally {
      this.current = before;
    }
  }

  bind<T>(context: Context, target: T): T {
    if (typeof target !== "function") return target;
    const manager = this;
    const fn = target as unknown as (...args: unknown[]) => unknown;
    return function (this: unknown, ...args: unknown[]) {
      return manager.with(context, () => fn.apply(this, args));
    } as unknown as T;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.current = ROOT_CONTEXT;
    return this;
  }
}
