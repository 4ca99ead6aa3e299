import type { SequencedEvent, Logger } from "../../core/index.js";
import { SseWriter, sendJson, type HttpRequest, type HttpResponse } from "../http/index.js";
import { errorResponse, resultResponse, type JsonRpcId } from "./jsonrpc-envelope.js";
import { toJsonRpcError } from "./jsonrpc-errors.js";
import type { StreamRpcMethod } from "./rpc-method.js";

/** One streaming call to answer. */
export interface StreamCall {
  readonly req: HttpRequest;
  readonly res: HttpResponse;
  readonly id: JsonRpcId;
  readonly method: StreamRpcMethod;
  /** Opens the service stream (reading params may throw here). */
  readonly open: () => AsyncIterable<SequencedEvent>;
  /** Aborted when the client goes away; its signal is the call context's. */
  readonly abort: AbortController;
  /** Extra response headers (A2A-Extensions). */
  readonly headers: Readonly<Record<string, string>>;
  readonly keepAliveMs?: number;
  readonly logger: Logger;
}

/**
 * §9.4.2: answers a streaming method with text/event-stream, one JSON-RPC
 * response carrying the request id per event, each with the event's
 * sequence number as its SSE id (so Last-Event-ID can resume it). The first
 * event is pulled before any header is written: an error found before the
 * stream starts (unknown task, invalid params, no streaming capability) is
 * a plain application/json JSON-RPC error. A later error becomes a last
 * event carrying the error. When the client goes away the call's signal is
 * aborted and the iterator returned, so the service stops at once.
 */
export async function answerStream(call: StreamCall): Promise<void> {
  const { id, method, logger } = call;
  let iterator: AsyncIterator<SequencedEvent>;
  let step: IteratorResult<SequencedEvent>;
  try {
    iterator = call.open()[Symbol.asyncIterator]();
    step = await iterator.next();
  } catch (e) {
    if (!call.res.writableEnded && !call.abort.signal.aborted) sendJson(call.res, 200, errorResponse(id, toJsonRpcError(e, logger, method.name)), call.headers);
    return;
  }
  const stop = (): void => {
    call.abort.abort();
    iterator.return?.().catch(() => {});
  };
  if (call.abort.signal.aborted) {
    stop();
    return;
  }
  const sse = new SseWriter(call.req, call.res, { keepAliveMs: call.keepAliveMs, headers: call.headers });
  sse.onClientGone(stop);
  sse.open();
  try {
    while (!step.done) {
      const { seq, event } = step.value;
      const written = await sse.send({
        // seq 0 marks an event that is not in the task's log (a direct Message): nothing to resume from.
        id: seq > 0 ? seq : undefined,
        data: JSON.stringify(resultResponse(id, method.encode(event))),
      });
      if (!written) break;
      step = await iterator.next();
    }
  } catch (e) {
    if (!sse.closed) await sse.send({ data: JSON.stringify(errorResponse(id, toJsonRpcError(e, logger, method.name))) });
  } finally {
    if (!step.done) await iterator.return?.().catch(() => undefined);
    sse.close();
  }
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
