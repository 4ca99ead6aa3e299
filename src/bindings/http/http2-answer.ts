import type * as http2 from "node:http2";
import type { HttpRequest, HttpResponse } from "./http-exchange.js";

/**
 * Sends a whole OK answer that has no HTTP trailers (a Connect unary
 * answer, a gRPC-Web unary answer) on its HTTP/2 stream itself, and
 * returns true; returns false, sending nothing, on HTTP/1.1, once the head
 * is out, or while the request body is still arriving: the caller then
 * answers through the response as before.
 *
 * Why not through Node's compatibility response: it opens every stream
 * waiting for trailers, so each answer came back into JS through the
 * stream's "wantTrailers" event, and Node sends even empty trailers from a
 * setImmediate of their own (the difference: docs/performance-notes.md).
 *
 * The stream is ended only once the body's write has completed, in an
 * empty DATA frame flagged END_STREAM. Ending it with the body (one DATA
 * frame flagged END_STREAM) closes the stream while Node still counts the
 * write as pending, and Node 20 then builds an ERR_STREAM_DESTROYED for
 * every answer when the write completes.
 *
 * The compatibility response still sees the stream close and emits
 * "finish" and "close", which the one-port server's bookkeeping waits on.
 * Only for a request body read to its end: while one is still coming, the
 * one-port server stops the upload after the answer from that
 * "wantTrailers" event (server/one-port.ts).
 */
export function endHttp2Answer(req: HttpRequest, res: HttpResponse, headers: Readonly<Record<string, string>>, body: Uint8Array): boolean {
  if (!("stream" in res) || res.headersSent) return false;
  const stream: http2.ServerHttp2Stream = res.stream;
  if (stream.destroyed || stream.closed || !(req as http2.Http2ServerRequest).stream.readableEnded) return false;
  stream.respond({ ...headers, ":status": 200 });
  stream.write(body, (error) => error || stream.end());
  return true;
}
