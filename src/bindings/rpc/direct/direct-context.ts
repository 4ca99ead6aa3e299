import type { DescMethod } from "@bufbuild/protobuf";
import { Code, ConnectError, createHandlerContext, type ContextValues, type HandlerContext } from "@connectrpc/connect";
import { A2AService } from "../../../../gen/a2a/v1/a2a_pb.js";
import type { AccessGuard } from "../../../auth/index.js";
import { callContext, callScopeKey, serviceParamsKey, type A2AServiceApi, type Logger } from "../../../core/index.js";
import { EXTENSIONS_HEADER, headerValue, identificationOf, lazyRequestHeaders, requestHeaders, VERSION_HEADER, type ClientGone, type HttpRequest } from "../../http/index.js";
import { identificationKey, rpcBinding, rpcCallScope, rpcContextValues, rpcServiceParams } from "../call/index.js";

/** Why a direct call's signal aborts when its client went away: a reason of our own, not a DOMException per call. */
export const CLIENT_GONE = new ConnectError("the client went away", Code.Canceled);
/** Ends a direct call's deadline timer once it finished in time. */
export const FINISHED = new ConnectError("the call finished", Code.Canceled);

/** A direct call's body read when the client resets or closes the request mid-body: nobody is left to answer; the caller sees the close. */
export function requestClosed(): ConnectError {
  return new ConnectError("the client closed the request", Code.Canceled);
}

/** What the direct paths need: what connect-node is given for the same calls. */
export interface DirectRouteOptions {
  readonly service: A2AServiceApi;
  readonly guard: AccessGuard;
  readonly logger: Logger;
  /** The largest request message read, as connect-node's readMaxBytes. */
  readonly readMaxBytes: number;
}

/** A direct call's context, the values the interceptors fill in later, and what ends its deadline timer once it finished. */
export interface DirectContext {
  readonly ctx: HandlerContext;
  readonly values: ContextValues;
  readonly finish: () => void;
  /** The context's signal when the call has a deadline; without one it aborts only when the client goes, which reading the body sees from the request itself. */
  readonly deadline: AbortSignal | undefined;
}

const noTimer = (): void => {};

/**
 * A handler context with what connect-node gives a call. With a deadline,
 * connect-node's own (its signal aborts when the deadline passes, or when
 * the client goes); without one, the lean context, whose signal aborts
 * when the client goes (core/handler-context.ts).
 */
export function directContext(
  req: HttpRequest,
  method: DescMethod,
  protocolName: "grpc" | "grpc-web" | "connect",
  timeoutMs: number | undefined,
  gone: ClientGone,
): DirectContext {
  const values = rpcContextValues(req);
  const url = req.url ?? "";
  if (timeoutMs === undefined) {
    // The controller, not its signal: a call nothing waits on makes none (handler-context.ts).
    const ctx = callContext({ method, protocolName, url, signal: gone.controller, ...lazyRequestHeaders(req), values });
    return { ctx, values, finish: noTimer, deadline: undefined };
  }
  const ctx = createHandlerContext({
    service: A2AService,
    method: method as never,
    protocolName,
    requestMethod: "POST",
    url,
    timeoutMs,
    requestSignal: gone.signal,
    requestHeader: requestHeaders(req),
    contextValues: values,
  });
  // The deadline timer of a call that ended in time must not fire later.
  return { ctx, values, finish: () => ctx.abort(FINISHED), deadline: ctx.signal };
}

/**
 * What the interceptors do for connect-node (connect-node/access-interceptor.ts,
 * connect-node/service-params-interceptor.ts): the tenant from the bearer (§7.4), then
 * the version (§3.6.2) and the activated extensions into the call's
 * values. Returns the extensions to echo (§10.2); throws the ConnectError
 * that refuses the call.
 */
export function judgeCall(options: DirectRouteOptions, req: HttpRequest, values: ContextValues): string | undefined {
  const id = values.get(identificationKey) ?? identificationOf(options.guard, req);
  values.set(callScopeKey, rpcCallScope(options.guard, id, rpcBinding(headerValue(req, "content-type"))));
  const params = rpcServiceParams(headerValue(req, VERSION_HEADER), headerValue(req, EXTENSIONS_HEADER), options.logger);
  values.set(serviceParamsKey, params);
  return params.extensions.length > 0 ? params.extensions.join(", ") : undefined;
}
