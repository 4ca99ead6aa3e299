import { StreamResponseSchema } from "../../../gen/a2a/v1/a2a_pb.js";
import { callUnaryJson, openSequenced } from "../http/index.js";
import { dialectV1, OPERATION_LIST, type Operation } from "../../protocol/index.js";
import type { RpcMethod, StreamRpcMethod } from "./rpc-method.js";

const { readV1, writeV1 } = dialectV1;

const encodeV1: StreamRpcMethod["encode"] = (event) => writeV1(StreamResponseSchema, event);

/** One operation as a v1.0 method: its params read leniently as the request, its result written as ProtoJSON. */
function v1Method(op: Operation): RpcMethod {
  const read = (params: unknown) => readV1(op.rpc.input, params, op.lenient);
  const base = { name: op.jsonRpc.v1, version: "1.0" as const, rpc: op.rpc };
  if (op.streaming) {
    return { ...base, kind: "stream", resumable: op.resumable, open: (s, params, ctx, afterSeq) => openSequenced(s, op.rpc, read(params), ctx, afterSeq), encode: encodeV1 };
  }
  return { ...base, kind: "unary", invoke: (s, params, ctx) => callUnaryJson(s, op.rpc, read(params), ctx) };
}

/** §9.4: the v1.0 methods, PascalCase names matching the gRPC service (§5.3), from the one operation table. */
export const V1_METHODS: readonly RpcMethod[] = OPERATION_LIST.map(v1Method);
