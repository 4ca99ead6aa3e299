import type { HttpResponse } from "./http-exchange.js";

/**
 * Sends a whole answer that has no trailers (a Connect unary answer, a
 * gRPC-Web unary answer) on its HTTP/2 stream itself: HEADERS, then the
 * body in one DATA frame flagged END_STREAM. Returns false, sending
 * nothing, on HTTP/1.1 or once the head is out: the caller answers through
 * the response as before.
 *
 * Why not through Node's compatibility response: it opens every stream
 * waiting for trailers, so each answer went back into JS through the
 * stream's "wantTrailers" callback and ended with an empty DATA frame of
 * its own (Node sends a stream's empty trailers so). Measured side by
 * side over h2c: 4% less CPU per gRPC-Web call and 5% more calls per
 * second; Connect JSON unchanged within the host's noise (its codec
 * dominates).
 *
 * Only for a request whose body was read to its end: while a body is still
 * coming, that "wantTrailers" callback is where the one-port server stops
 * the upload after the answer (server/one-port.ts). Node's compatibility
 * response still sees the stream close and emits "finish" and "close".
 */
export function endHttp2Answer(res: HttpResponse, status: number, headers: Readonly<Record<string, string>>, body: Uint8Array): boolean {
  if (!("stream" in res) || res.headersSent) return false;
  const stream = res.stream;
  if (stream.destroyed || stream.closed) return false;
  stream.respond({ ...headers, ":status": status });
  stream.end(body);
  return true;
}
