import type { DescMethod } from "@bufbuild/protobuf";
import { createContextValues, type ContextValues, type HandlerContext } from "@connectrpc/connect";
import { A2AService } from "../../gen/a2a/v1/a2a_pb.js";

/** What a call the hub answers itself (a facade, a direct gRPC or Connect path) gives its context. */
export interface CallContextInit {
  readonly method: DescMethod;
  /** Name of the binding: "jsonrpc", "rest", "grpc", "grpc-web", "connect". */
  readonly protocolName: string;
  readonly url: string;
  /**
   * Aborted when the client goes away: the call's own signal, or the
   * controller that aborts it. Node makes a controller's signal (an
   * EventTarget, one of the objects that outlive a young-generation GC
   * while the call waits for its commit) on first read; given the
   * controller, a call that nothing reads the signal of never makes it.
   */
  readonly signal: AbortSignal | AbortController;
  /**
   * Made for this call: taken as it is, not copied; or what makes it, run
   * on the first read of `requestHeader` (a fetch Headers validates every
   * name and value it is given, a cost most calls need not pay).
   */
  readonly requestHeader: Headers | (() => Headers);
  /** One request header's value, read without making the Headers (see requestHeaderValue). */
  readonly header?: (name: string) => string | undefined;
  readonly values?: ContextValues;
}

const noDeadline = (): undefined => undefined;

/**
 * The HandlerContext of a call without a deadline. connect-node's
 * createHandlerContext makes two AbortControllers per call (a deadline
 * and one linked to the request's signal, listening on both) and copies
 * three Headers; a call with no deadline needs none of it: its signal is
 * the one its binding aborts when the client goes away, its request
 * headers are made from the binding's on first read (one header is read
 * without them: requestHeaderValue), and response headers (which
 * no service method sets; the bindings write their own) are made only if
 * asked for.
 */
class CallContext implements HandlerContext {
  readonly service = A2AService;
  readonly method: DescMethod;
  readonly protocolName: string;
  readonly requestMethod = "POST";
  readonly url: string;
  readonly timeoutMs = noDeadline;
  readonly values: ContextValues;
  /** One request header, when the binding can read it without the Headers. */
  readonly headerOf: ((name: string) => string | undefined) | undefined;
  private requestHeaders: Headers | (() => Headers);
  private abortedBy: AbortSignal | AbortController;
  private header: Headers | undefined;
  private trailer: Headers | undefined;

  constructor(init: CallContextInit) {
    this.method = init.method;
    this.protocolName = init.protocolName;
    this.url = init.url;
    this.abortedBy = init.signal;
    this.requestHeaders = init.requestHeader;
    this.headerOf = init.header;
    this.values = init.values ?? createContextValues();
  }

  get signal(): AbortSignal {
    if (this.abortedBy instanceof AbortController) this.abortedBy = this.abortedBy.signal;
    return this.abortedBy;
  }

  get requestHeader(): Headers {
    if (typeof this.requestHeaders === "function") this.requestHeaders = this.requestHeaders();
    return this.requestHeaders;
  }

  get responseHeader(): Headers {
    return (this.header ??= new Headers());
  }

  get responseTrailer(): Headers {
    return (this.trailer ??= new Headers());
  }
}

export function callContext(init: CallContextInit): HandlerContext {
  return new CallContext(init);
}

/**
 * One request header of a call (comma-joined when repeated, as Headers.get
 * joins them), or null: from the binding's own headers when the hub made
 * the context, so that the call's Headers are made only if something else
 * reads them; from requestHeader otherwise (connect-node's context).
 */
export function requestHeaderValue(ctx: HandlerContext, name: string): string | null {
  if (ctx instanceof CallContext && ctx.headerOf) return ctx.headerOf(name) ?? null;
  return ctx.requestHeader.get(name);
}
