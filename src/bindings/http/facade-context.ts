import type { DescMethod } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import type { AgentCard } from "../../../gen/a2a/v1/a2a_pb.js";
import { facadeCallContext, overflowDropKey, type A2AError, type CallScope } from "../../core/index.js";
import { lazyRequestHeaders, type HttpRequest } from "./http-exchange.js";
import { overflowDropOf } from "./overflow-drop.js";
import type { A2AVersion } from "./service-params.js";

/** Why a request is refused before any call runs (authentication, rate limits), and how to say it. */
export interface FacadeRefusal {
  readonly httpStatus: number;
  readonly headers: Readonly<Record<string, string>>;
  /** The refusal as an A2A error: the answer carries its table code and ErrorInfo. */
  readonly error: A2AError;
}

/**
 * What the server settled about a request before handing it to a facade:
 * who calls and which agent (§13.1), the card its extensions are
 * negotiated against (§3.2.6), and the refusal when the caller may not
 * call. Absent parts take the facade's defaults (the default scope, the
 * handler's own card, admitted).
 */
export interface FacadeAdmission {
  readonly scope?: CallScope;
  readonly card?: AgentCard;
  readonly refusal?: FacadeRefusal;
}

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
