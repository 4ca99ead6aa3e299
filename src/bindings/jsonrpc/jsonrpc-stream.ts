import type { StreamResponse } from "../../../gen/a2a/v1/a2a_pb.js";
import type { SequencedEvent, Logger } from "../../core/index.js";
import { encodeOnce, sendJson, type EventStreamCall, type HttpResponse } from "../http/index.js";
import { errorResponse, type JsonRpcId } from "../../protocol/index.js";
import { httpLevelRefusal, toJsonRpcError } from "./jsonrpc-errors.js";
import type { StreamRpcMethod } from "./rpc-method.js";

/**
 * §9.4.2: how a streaming method's answer is framed for the one SSE writer
 * (`answerEventStream`): one JSON-RPC response carrying the request id per
 * event, each with the event's sequence number as its SSE id (so
 * Last-Event-ID can resume it). An error found before the stream starts
 * (unknown task, invalid params, no streaming capability) is a plain
 * application/json JSON-RPC error; a later one becomes a last event
 * carrying the error.
 */
export function jsonRpcFraming(
  res: HttpResponse,
  id: JsonRpcId,
  method: StreamRpcMethod,
  headers: Readonly<Record<string, string>>,
  logger: Logger,
): Pick<EventStreamCall, "encode" | "refuse" | "failure"> {
  const result = resultText(method);
  const idText = JSON.stringify(id);
  return {
    // The response envelope around the event's result, which every subscriber shares: JSON.stringify(resultResponse(id, result)) exactly.
    encode: (event) => `{"jsonrpc":"2.0","id":${idText},"result":${result(event)}}`,
    refuse: (e) => {
      const refusal = httpLevelRefusal(e);
      sendJson(res, refusal?.status ?? 200, errorResponse(id, toJsonRpcError(e, logger, method.name)), refusal ? { ...headers, ...refusal.headers } : headers);
    },
    failure: (e) => ({ data: JSON.stringify(errorResponse(id, toJsonRpcError(e, logger, method.name))) }),
  };
}

/** Each dialect's result encoders, one JSON text per event shared by every stream that sends it (fan-out). */
const resultTexts = new WeakMap<StreamRpcMethod["encode"], (event: StreamResponse) => string>();

function resultText(method: StreamRpcMethod): (event: StreamResponse) => string {
  let text = resultTexts.get(method.encode);
  if (!text) {
    const encode = method.encode;
    text = encodeOnce((event: StreamResponse) => JSON.stringify(encode(event)) ?? "null");
    resultTexts.set(encode, text);
  }
  return text;
}

/**
 * A streaming method called as a notification: JSON-RPC 2.0 §4.1 forbids a
 * reply, so the stream is run to its end with nobody listening (a
 * SendStreamingMessage notification still sends its message).
 */
export function drainStream(open: () => AsyncIterable<SequencedEvent>, logger: Logger, method: string): void {
  void (async () => {
    try {
      for await (const _ of open());
    } catch (e) {
      toJsonRpcError(e, logger, method); // logs what is unexpected; A2A errors have no one to go to
    }
  })();
}
