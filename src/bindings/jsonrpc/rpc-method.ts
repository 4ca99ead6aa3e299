import type { DescMethod } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import type { StreamResponse } from "../../../gen/a2a/v1/a2a_pb.js";
import type { A2AServiceApi, SequencedEvent } from "../../core/index.js";
import type { A2AVersion } from "../http/index.js";

/** What every JSON-RPC method of the facade declares. */
interface RpcMethodBase {
  /** The JSON-RPC method name, e.g. "SendMessage" or "message/send". */
  readonly name: string;
  /** The protocol version whose dialect the method speaks (and that an empty A2A-Version means for it). */
  readonly version: A2AVersion;
  /** The A2AService RPC it translates to. */
  readonly rpc: DescMethod;
}

/** A method answered with one JSON-RPC response. */
export interface UnaryRpcMethod extends RpcMethodBase {
  readonly kind: "unary";
  /** Reads `params` in the method's dialect, calls the service, and writes the result in the same dialect. */
  invoke(service: A2AServiceApi, params: unknown, ctx: HandlerContext): Promise<unknown>;
}

/** A method answered with an SSE stream of JSON-RPC responses. */
export interface StreamRpcMethod extends RpcMethodBase {
  readonly kind: "stream";
  /** Whether a Last-Event-ID resumes it (subscriptions); the service then replays the events after that one. */
  readonly resumable: boolean;
  /** Reads `params` and opens the stream; reading errors surface on the first `next()` at the latest. */
  open(service: A2AServiceApi, params: unknown, ctx: HandlerContext, afterSeq?: number): AsyncIterable<SequencedEvent>;
  /** One event as a result in the method's dialect (a JSON value). */
  encode(event: StreamResponse): unknown;
}

/** A method of the JSON-RPC facade. */
export type RpcMethod = UnaryRpcMethod | StreamRpcMethod;
