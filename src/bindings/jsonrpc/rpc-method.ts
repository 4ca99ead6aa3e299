import type { StreamResponse } from "../../../gen/a2a/v1/a2a_pb.js";
import type { A2AVersion, StreamRoute, UnaryRoute } from "../http/index.js";

/** What every JSON-RPC method of the facade declares beside its route. */
interface RpcMethodBase {
  /** The JSON-RPC method name, e.g. "SendMessage" or "message/send". */
  readonly name: string;
  /** The protocol version whose dialect the method speaks (and that an empty A2A-Version means for it). */
  readonly version: A2AVersion;
}

/** A method answered with one JSON-RPC response: reads `params` in its dialect, calls the service, writes the result in the same dialect. */
export interface UnaryRpcMethod extends UnaryRoute<unknown>, RpcMethodBase {}

/** A method answered with an SSE stream of JSON-RPC responses. */
export interface StreamRpcMethod extends StreamRoute<unknown>, RpcMethodBase {
  /** One event as a result in the method's dialect (a JSON value). */
  encode(event: StreamResponse): unknown;
}

/** A method of the JSON-RPC facade. */
export type RpcMethod = UnaryRpcMethod | StreamRpcMethod;
