import { toBinary, type DescMessage } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { A2AService } from "../../../../../gen/a2a/v1/a2a_pb.js";
import { WireAnswer, type A2AServiceApi, type Logger } from "../../../../core/index.js";
import { wireMethodOf, type UnaryRoute } from "../../../http/index.js";
import { toConnectError } from "../../call/index.js";
import type { GrpcCall } from "./grpc-call.js";

/** One unary RPC answered on the direct path: the shared route with the codecs of its messages. */
export interface DirectUnaryRoute extends UnaryRoute<unknown> {
  readonly input: DescMessage;
  readonly output: DescMessage;
  /** The same call answered in protobuf binary, for the RPCs the service can answer so. */
  invokeWire?(service: A2AServiceApi, message: unknown, ctx: HandlerContext): Promise<WireAnswer>;
}

/** Every unary RPC of the service, by request path: each calls the service method of its name. */
export const UNARY_ROUTES: ReadonlyArray<[string, DirectUnaryRoute]> = A2AService.methods
  .filter((m) => m.methodKind === "unary")
  .map((m) => {
    const name = m.localName as keyof A2AServiceApi;
    const invoke = (service: A2AServiceApi, message: unknown, ctx: HandlerContext): Promise<unknown> =>
      (service[name] as (req: unknown, ctx: HandlerContext) => Promise<unknown>)(message, ctx);
    const wire = wireMethodOf(m);
    const invokeWire = wire && ((service: A2AServiceApi, message: unknown, ctx: HandlerContext) => service[wire](message as never, ctx));
    return [`/${A2AService.typeName}/${m.name}`, { kind: "unary", rpc: m, input: m.input, output: m.output, invoke, invokeWire }];
  });

/** The answer's bytes: as the service gave them, or the message it answered with, encoded. */
function answerBytes(route: DirectUnaryRoute, output: unknown): Uint8Array {
  return output instanceof WireAnswer ? output.bytes : toBinary(route.output, output as never);
}

/**
 * Answers a unary gRPC call without connect-node. Why: connect-node runs a
 * unary call through the same async-iterable pipeline as a stream (split,
 * parse, invoke, serialize, join), converts its headers to web Headers and
 * back, and aborts its context with a DOMException at the end, a cost on
 * the SendMessage hot path (docs/performance-notes.md). Here the
 * call is one read, one service call, one write and its trailers.
 */
export async function answerUnary(service: A2AServiceApi, route: DirectUnaryRoute, call: GrpcCall, logger: Logger): Promise<void> {
  let failure;
  let answer: Uint8Array | undefined;
  try {
    const { ctx, message } = await call.open(route.rpc, route.input);
    const output = await (route.invokeWire ?? route.invoke)(service, message, ctx);
    answer = answerBytes(route, output);
    if (call.clientGone) return;
  } catch (e) {
    failure = toConnectError(e, logger);
  }
  call.finish(failure, answer);
}
