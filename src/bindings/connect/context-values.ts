import { createContextValues, type ContextValues } from "@connectrpc/connect";
import { overflowDropKey } from "../../core/index.js";
import { overflowDropOf, type HttpRequest } from "../http/index.js";

/**
 * The context values an RPC starts with, before the interceptors add its
 * scope and service parameters: what its transport does when a stream it
 * carries overflows (the drop the server gave the request).
 */
export function rpcContextValues(req: HttpRequest): ContextValues {
  const values = createContextValues();
  values.set(overflowDropKey, overflowDropOf(req));
  return values;
}
