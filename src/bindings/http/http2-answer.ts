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
  const stream = openStream(req, res);
  if (!stream) return false;
  stream.respond({ ...headers, ":status": 200 });
  stream.write(body, (error) => error || stream.end());
  return true;
}

/**
 * Sends a whole OK gRPC answer on its HTTP/2 stream: headers, the body and
 * the trailers, which gRPC requires (gRPC over HTTP/2 §Responses); returns
 * false, sending nothing, on the same terms as endHttp2Answer. Why: the
 * compatibility response builds and checks its header object on every
 * answer (measured: docs/performance-notes.md). The stream waits for its
 * trailers, so ending it with the body does not close it under a pending
 * write; the compatibility response's own "wantTrailers" listener sends
 * the trailers it was given.
 */
export function endHttp2GrpcAnswer(req: HttpRequest, res: HttpResponse, headers: Readonly<Record<string, string>>, body: Uint8Array, trailers: Readonly<Record<string, string>>): boolean {
  const stream = openStream(req, res);
  if (!stream) return false;
  // The compatibility response sends its trailers when the stream asks for them ("wantTrailers").
  (res as http2.Http2ServerResponse).addTrailers(trailers);
  stream.respond({ ...headers, ":status": 200 }, { waitForTrailers: true });
  stream.end(body);
  return true;
}

/** The HTTP/2 stream a whole answer may be written on: its head not out, the stream open, the request body read to its end. */
function openStream(req: HttpRequest, res: HttpResponse): http2.ServerHttp2Stream | undefined {
  if (!("stream" in res) || res.headersSent) return undefined;
  const stream: http2.ServerHttp2Stream = res.stream;
  if (stream.destroyed || stream.closed || !(req as http2.Http2ServerRequest).stream.readableEnded) return undefined;
  return stream;
}
