import type { DescMethod } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { facadeCallContext, overflowDropKey, type CallScope } from "../../core/index.js";
import { lazyRequestHeaders, type HttpRequest } from "./http-exchange.js";
import { overflowDropOf } from "./overflow-drop.js";
import type { A2AVersion } from "./service-params.js";

/** What a facade settled about one call before it reaches the service. */
export interface FacadeCall {
  /** The A2AService RPC the facade translates to. */
  readonly rpc: DescMethod;
  /** Aborted when the HTTP client goes away: the signal, or its controller (handler-context.ts says why). */
  readonly signal?: AbortSignal | AbortController;
  readonly scope?: CallScope;
  /** The negotiated A2A-Version (§3.6.2). */
  readonly version: A2AVersion;
  /** The extensions the client activated (§3.2.6). */
  readonly extensions: readonly string[];
  /** Binding name for logs: "jsonrpc", "rest". */
  readonly protocolName: string;
}

/**
 * The HandlerContext of a facade call: the same context values
 * connect-node would give the service (scope, service parameters, request
 * headers), so that every binding reaches one implementation alike.
 */
export function httpCallContext(req: HttpRequest, call: FacadeCall): HandlerContext {
  const ctx = facadeCallContext({
    method: call.rpc,
    signal: call.signal,
    scope: call.scope,
    params: { version: call.version, extensions: call.extensions },
    ...lazyRequestHeaders(req),
    protocolName: call.protocolName,
  });
  ctx.values.set(overflowDropKey, overflowDropOf(req));
  return ctx;
}
