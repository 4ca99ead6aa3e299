import {
  createContextKey,
  type HandlerContext,
} from "@connectrpc/connect";
import type { DescMethod } from "@bufbuild/protobuf";
import type { Context } from "@opentelemetry/api";
import { A2AService } from "../../gen/a2a/v1/a2a_pb.js";
import type { OverflowDrop } from "../execution/index.js";
import { callContext } from "./handler-context.js";

/** The tenant used until bearer authentication maps tokens to tenants. */
export const DEFAULT_TENANT = "default";

/**
 * Who is calling: every store query is scoped by tenant and agent (§13.1).
 * Set once per request by the binding; core never trusts a tenant from the body.
 */
export interface CallScope {
  readonly tenant: string;
  /** The agent the endpoint addresses, when the URL names one; else the request's `tenant` field or the default agent. */
  readonly agentId?: string;
  /** Whether the caller may use an agent (§7.5); absent means every agent. */
  readonly mayCall?: (agentId: string) => boolean;
  /**
   * The binding has no per-agent endpoint (gRPC, Connect): with several
   * agents hosted, a request whose `tenant` is unset is refused rather than
   * sent to the default agent. The HTTP facades' root endpoints keep the
   * default agent.
   */
  readonly tenantNamesAgent?: boolean;
  /**
   * §7.5: the error refusing an operation (the service method's local name)
   * on an agent the caller lacks a scope for; absent or undefined: allowed.
   */
  readonly refuseOperation?: (operation: string, agentId: string) => Error | undefined;
}

/** Context value carrying the caller's scope; absent means the default tenant. */
export const callScopeKey = createContextKey<CallScope>(
  { tenant: DEFAULT_TENANT },
  { description: "a2a-hub call scope" },
);

/** §3.2.6 service parameters as the core sees them, already negotiated by the binding. */
export interface ServiceParams {
  /** Major.Minor of A2A-Version, "" when the client sent none. */
  readonly version: string;
  /** Extension URIs the client listed in A2A-Extensions; core matches them against the agent it resolves. */
  readonly extensions: readonly string[];
}

/** Context value with the negotiated service parameters. */
export const serviceParamsKey = createContextKey<ServiceParams>(
  { version: "", extensions: [] },
  { description: "a2a-hub service parameters" },
);

/**
 * Context value with what the request's transport does when a stream's
 * reader stopped reading and its queue overflows (execution/event-queue.ts):
 * drop the connection or HTTP/2 stream. Set by the binding from the server.
 */
export const overflowDropKey = createContextKey<OverflowDrop | undefined>(undefined, { description: "a2a-hub overflow drop" });

/**
 * Context value with the call's OpenTelemetry context (its server span),
 * set by the telemetry probe when tracing is on, so that the run a call
 * starts after an await still nests under it (the hub keeps no
 * AsyncLocalStorage: telemetry/tracing/sync-context.ts).
 */
export const traceContextKey = createContextKey<Context | undefined>(undefined, { description: "a2a-hub trace context" });

/** The caller scope of a handler call. */
export function scopeOf(ctx: HandlerContext): CallScope {
  return ctx.values.get(callScopeKey);
}

/** Options for a call made by a facade rather than by connect-node. */
export interface FacadeCallInit {
  /** The RPC the facade translates to, e.g. `A2AService.method.getTask`. */
  readonly method: DescMethod;
  /** Aborts when the HTTP client goes away. */
  readonly signal?: AbortSignal | AbortController;
  readonly scope?: CallScope;
  readonly params?: ServiceParams;
  /** The request headers, or what makes them on first read (handler-context.ts). */
  readonly requestHeader?: HeadersInit | (() => Headers);
  /** One request header's value, read without making the Headers. */
  readonly header?: (name: string) => string | undefined;
  /** Name of the binding, for logs ("jsonrpc", "rest"). */
  readonly protocolName: string;
  readonly url?: string;
}

/**
 * A HandlerContext for facades, so that JSON-RPC and REST reach the service
 * with the same context values connect-node would give it.
 */
export function facadeCallContext(init: FacadeCallInit): HandlerContext {
  // A facade call has no deadline: the lean context (handler-context.ts), on the facade's own signal.
  const ctx = callContext({
    method: init.method,
    protocolName: init.protocolName,
    url: init.url ?? `/${A2AService.typeName}/${init.method.name}`,
    signal: init.signal ?? new AbortController(),
    requestHeader: init.requestHeader instanceof Headers || typeof init.requestHeader === "function" ? init.requestHeader : new Headers(init.requestHeader),
    header: init.header,
  });
  if (init.scope) ctx.values.set(callScopeKey, init.scope);
  if (init.params) ctx.values.set(serviceParamsKey, init.params);
  return ctx;
}
