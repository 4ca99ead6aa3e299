import type * as http2 from "node:http2";
import { toBinary, type DescMessage } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { A2AService, SendMessageRequestSchema, StreamResponseSchema, SubscribeToTaskRequestSchema } from "../../../../../gen/a2a/v1/a2a_pb.js";
import type { A2AServiceApi, SequencedEvent } from "../../../../core/index.js";
import { encodeOnce, type StreamRoute } from "../../../http/index.js";
import { deadlineOf, toConnectError } from "../../call/index.js";
import type { GrpcCall } from "./grpc-call.js";
import { grpcFrame } from "./envelope.js";

/** One server-streaming RPC answered on the direct path: the shared route with the codec of its request. */
export interface DirectStreamRoute extends StreamRoute<never> {
  readonly input: DescMessage;
}

/** The server streams of the service, by request path. */
export const STREAM_ROUTES: ReadonlyArray<[string, DirectStreamRoute]> = [
  [
    `/${A2AService.typeName}/${A2AService.method.sendStreamingMessage.name}`,
    { kind: "stream", rpc: A2AService.method.sendStreamingMessage, resumable: false, input: SendMessageRequestSchema, open: (s, m, ctx) => s.sendStreamingMessageSequenced(m, ctx) },
  ],
  [
    `/${A2AService.typeName}/${A2AService.method.subscribeToTask.name}`,
    { kind: "stream", rpc: A2AService.method.subscribeToTask, resumable: false, input: SubscribeToTaskRequestSchema, open: (s, m, ctx) => s.subscribeSequenced(m, ctx) },
  ],
];

/** §10: one protobuf encode per event, shared by every gRPC stream that sends it (fan-out). */
const frameOf = encodeOnce((event: SequencedEvent["event"]) => grpcFrame(toBinary(StreamResponseSchema, event)));

/**
 * Answers a gRPC SendStreamingMessage or SubscribeToTask without
 * connect-node. Why: a stream that connect-node serves passes each event
 * through a chain of async iterables (serialize, envelope, join, write)
 * and, at its end, aborts its context (a DOMException per stream); with
 * 10,000 subscribers of one task that costs seconds before the first of
 * them hears of a CancelTask. Here an event is one write of bytes encoded
 * once for all subscribers, and the stream's end costs its trailers.
 */
export async function answerStream(service: A2AServiceApi, route: DirectStreamRoute, call: GrpcCall, logger: Parameters<typeof toConnectError>[1]): Promise<void> {
  const res = call.res;
  let ctx: HandlerContext | undefined;
  let iterator: AsyncIterator<SequencedEvent> | undefined;
  let done = false;
  let failure;
  try {
    const opened = await call.open(route.rpc, route.input);
    ctx = opened.ctx;
    iterator = route.open(service, opened.message as never, ctx)[Symbol.asyncIterator]();
    let step = await iterator.next();
    // As connect-node: the head waits for the first event, so an error found up front is still a status.
    call.head();
    while (!step.done) {
      if (!res.write(frameOf(step.value.event)) && !(await drained(res, call.goneSignal))) break;
      step = await iterator.next();
    }
    done = step.done === true;
  } catch (e) {
    failure = toConnectError(e, logger);
  } finally {
    if (iterator && !done) await iterator.return?.().catch(() => undefined);
  }
  // A stream ended by its deadline says so (DEADLINE_EXCEEDED), not OK.
  call.finish(failure ?? (ctx && deadlineOf(ctx)));
}

/** Resolves true once the response drained, false if it closed first (the reader went away or was dropped). */
function drained(res: http2.Http2ServerResponse, gone: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const settle = (): void => {
      res.off("drain", settle);
      res.off("close", settle);
      resolve(!gone.aborted);
    };
    res.on("drain", settle);
    res.on("close", settle);
  });
}
