import type { OverflowDrop } from "../../execution/index.js";
import type { HttpRequest } from "./http-exchange.js";

/**
 * Each request's overflow drop, given by the server that carries it
 * (server/one-port.ts) and read by the binding that builds the request's
 * call context (overflowDropKey). Kept beside the request rather than in
 * async context: an AsyncLocalStorage in use makes Node run promise hooks
 * for every promise of the process, which costs every stream and call.
 * A property under a private symbol rather than a WeakMap entry: a WeakMap
 * keyed by every request makes the garbage collector trace each as an
 * ephemeron. It holds an object that holds the function, not the function:
 * see body-reader.ts's STOP.
 */
const DROP = Symbol("a2a-hub overflow drop");

type Carrier = HttpRequest & { [DROP]?: { readonly drop: OverflowDrop } };

/** Sets what is done to `req`'s transport when a stream it carries overflows. */
export function dropOnOverflow(req: HttpRequest, drop: OverflowDrop): void {
  (req as Carrier)[DROP] = { drop };
}

/** What is done to `req`'s transport when a stream it carries overflows, if the server set it. */
export function overflowDropOf(req: HttpRequest): OverflowDrop | undefined {
  return (req as Carrier)[DROP]?.drop;
}
