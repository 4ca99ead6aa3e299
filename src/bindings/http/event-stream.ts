import type { StreamResponse } from "../../../gen/a2a/v1/a2a_pb.js";
import type { SequencedEvent } from "../../core/index.js";
import type { ClientGone } from "./client-gone.js";
import type { HttpRequest, HttpResponse } from "./http-exchange.js";
import { SseWriter, type SseEvent } from "./sse-writer.js";

/** One streaming call to answer with Server-Sent Events, whatever the binding's framing. */
export interface EventStreamCall {
  readonly req: HttpRequest;
  readonly res: HttpResponse;
  /** Opens the service stream; reading the request may throw here or on the first `next()`. */
  readonly open: () => AsyncIterable<SequencedEvent>;
  /** Aborted when the client goes away; its signal is the call context's. */
  readonly abort: ClientGone;
  /** Extra response headers (A2A-Extensions). */
  readonly headers: Readonly<Record<string, string>>;
  /** Idle time before a keep-alive comment; default SSE_KEEP_ALIVE_MS. */
  readonly keepAliveMs?: number;
  /**
   * The `data:` of one event in the binding's framing (one JSON text).
   * Called once per event and stream; what does not depend on the stream
   * is best encoded once per event for all of them (`encodeOnce`).
   */
  encode(event: StreamResponse): string;
  /**
   * Answers an error raised before the first event, as an ordinary
   * (non-SSE) response: no header has been written yet. Not called once
   * the client is gone.
   */
  refuse(error: unknown): void;
  /** The last event of a stream that fails after it started. */
  failure(error: unknown): Omit<SseEvent, "id">;
}

/**
 * Answers a streaming A2A call with text/event-stream (§9.4.2, §11.7).
 *
 * The first event is pulled before any header is written, so an error the
 * service finds up front (unknown task, invalid params, no streaming
 * capability, a terminal task) is an ordinary error response of the
 * binding rather than a 200 stream holding one error. Every event carries
 * its event-log sequence number as the SSE `id:`, which a client sends back
 * as Last-Event-ID to resume. A later error becomes a last event. When the
 * client goes away the call's signal is aborted and the iterator returned,
 * so the service stops at once. The events of one burst leave in one
 * write (SseWriter), and the loop waits only when the client is behind.
 */
export async function answerEventStream(call: EventStreamCall): Promise<void> {
  let iterator: AsyncIterator<SequencedEvent>;
  let step: IteratorResult<SequencedEvent>;
  try {
    iterator = call.open()[Symbol.asyncIterator]();
    step = await iterator.next();
  } catch (e) {
    if (!call.res.writableEnded && !call.abort.aborted) call.refuse(e);
    return;
  }
  const stop = (): void => {
    call.abort.abort();
    iterator.return?.().catch(() => {});
  };
  if (call.abort.aborted) {
    stop();
    return;
  }
  const sse = new SseWriter(call.req, call.res, { keepAliveMs: call.keepAliveMs, headers: call.headers });
  sse.onClientGone(stop);
  // The first event is in hand: the head leaves with it.
  sse.open(false);
  try {
    while (!step.done) {
      const { seq, event } = step.value;
      // seq 0 marks an event that is not in the task's log (a direct Message): nothing to resume from.
      if (!sse.write({ id: seq > 0 ? seq : undefined, data: call.encode(event) }) && !(await sse.ready())) break;
      step = await iterator.next();
    }
  } catch (e) {
    if (!sse.closed) await sse.send(call.failure(e));
  } finally {
    if (!step.done) await iterator.return?.().catch(() => undefined);
    sse.close();
  }
}
