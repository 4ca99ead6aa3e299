import { callUnary, openSequenced } from "../http/index.js";
import { dialectV1, OPERATION_LIST, type Operation, type V03Dialect } from "../../protocol/index.js";
import type { RpcMethod } from "./rpc-method.js";

const { readV1 } = dialectV1;

/**
 * One operation as a v0.3 method (slash-separated name of the v0.3.0
 * schema): its v0.3 params read into the v1.0 request, the same service
 * method called as its v1.0 twin, the answer written back in v0.3; all from
 * the operation's row of the one operation table.
 */
function v03Method(op: Operation, name: string, dialect: V03Dialect): RpcMethod {
  const read = (params: unknown) => readV1(op.rpc.input, dialect.toV1Params(params), op.lenient);
  const base = { name, version: "0.3" as const, rpc: op.rpc };
  if (op.streaming) {
    return { ...base, kind: "stream", resumable: op.resumable, open: (s, params, ctx, afterSeq) => openSequenced(s, op.rpc, read(params), ctx, afterSeq), encode: (event) => dialect.toV03Result(event) };
  }
  return { ...base, kind: "unary", invoke: async (s, params, ctx) => dialect.toV03Result(await callUnary(s, op.rpc, read(params), ctx)) };
}

/** The v0.3 methods: every operation v0.3 had, from the one operation table. */
export const V03_METHODS: readonly RpcMethod[] = OPERATION_LIST.flatMap((op) => (op.jsonRpc.v03 && op.v03 ? [v03Method(op, op.jsonRpc.v03, op.v03)] : []));
