import { createContextKey, createContextValues, type ContextValues } from "@connectrpc/connect";
import type { Identification } from "../../../auth/index.js";
import { overflowDropKey } from "../../../core/index.js";
import { keptIdentification, overflowDropOf, type HttpRequest } from "../../http/index.js";

/** Who the request was found to be before it reached the RPC bindings (identifyFirst); absent when it was not. */
export const identificationKey = createContextKey<Identification | undefined>(undefined, { description: "a2a-hub identification" });

/**
 * The context values an RPC starts with, before the interceptors add its
 * scope and service parameters: what its transport does when a stream it
 * carries overflows (the drop the server gave the request), and who the
 * request was found to be.
 */
export function rpcContextValues(req: HttpRequest): ContextValues {
  const values = createContextValues();
  values.set(overflowDropKey, overflowDropOf(req));
  values.set(identificationKey, keptIdentification(req));
  return values;
}
