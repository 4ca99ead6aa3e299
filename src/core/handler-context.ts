import type { DescMethod } from "@bufbuild/protobuf";
import { createContextValues, type ContextValues, type HandlerContext } from "@connectrpc/connect";
import { A2AService } from "../../gen/a2a/v1/a2a_pb.js";

/** What a call the hub answers itself (a facade, a direct gRPC or Connect path) gives its context. */
export interface CallContextInit {
  readonly method: DescMethod;
  /** Name of the binding: "jsonrpc", "rest", "grpc", "grpc-web", "connect". */
  readonly protocolName: string;
  readonly url: string;
  /** Aborted when the client goes away: the call's own signal. */
  readonly signal: AbortSignal;
  /** Made for this call: taken as it is, not copied. */
  readonly requestHeader: Headers;
  readonly values?: ContextValues;
}

const noDeadline = (): undefined => undefined;

/**
 * The HandlerContext of a call without a deadline. connect-node's
 * createHandlerContext makes two AbortControllers per call (a deadline
 * and one linked to the request's signal, listening on both) and copies
 * three Headers; a call with no deadline needs none of it: its signal is
 * the one its binding aborts when the client goes away, its request
 * headers are the ones the binding just read, and response headers (which
 * no service method sets; the bindings write their own) are made only if
 * asked for.
 */
class CallContext implements HandlerContext {
  readonly service = A2AService;
  readonly method: DescMethod;
  readonly protocolName: string;
  readonly requestMethod = "POST";
  readonly url: string;
  readonly signal: AbortSignal;
  readonly timeoutMs = noDeadline;
  readonly requestHeader: Headers;
  readonly values: ContextValues;
  private header: Headers | undefined;
  private trailer: Headers | undefined;

  constructor(init: CallContextInit) {
    this.method = init.method;
    this.protocolName = init.protocolName;
    this.url = init.url;
    this.signal = init.signal;
    this.requestHeader = init.requestHeader;
    this.values = init.values ?? createContextValues();
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
