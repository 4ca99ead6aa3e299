import * as http from "node:http";
import * as http2 from "node:http2";
import type * as net from "node:net";
import { expireBody } from "../bindings/http/index.js";

type Request = http.IncomingMessage | http2.Http2ServerRequest;
type Response = http.ServerResponse | http2.Http2ServerResponse;

/** How much of an unwanted body is discarded, after a keep-alive answer, before the connection is closed instead. */
const DRAIN_BYTES = 1024 * 1024;
/** How long an unwanted body may take to be discarded, after a keep-alive answer. */
const DRAIN_MS = 2_000;
/** How long a half-closed connection discards what the client still sends before it is destroyed. */
const LINGER_MS = 2_000;
/** After a body timeout, how long the facade has to answer before the exchange is dropped. */
export const ANSWER_GRACE_MS = 1_000;

/** Whether the request came over HTTP/2. */
export function isH2(req: Request): req is http2.Http2ServerRequest {
  return "stream" in req;
}

/** One request and its answer, with the HTTP/1.1 socket kept: Node detaches it once the answer is written. */
export interface Exchange {
  readonly req: Request;
  readonly res: Response;
  readonly socket: net.Socket | undefined;
}

/** Ends one exchange without an answer: its HTTP/2 stream is reset, or its HTTP/1.1 connection closed. */
export function dropExchange(x: Exchange, code: number): void {
  if (isH2(x.req)) {
    if (!x.req.stream.destroyed) x.req.stream.close(code);
  } else {
    x.socket?.destroy();
  }
}

/**
 * Stops receiving a body after the answer went out. An HTTP/2 stream is
 * reset with NO_ERROR (RFC 9113 §8.1). On HTTP/1.1 a close with unread
 * bytes is a TCP reset, which can destroy the answer before the client has
 * read it, so the body is discarded rather than left unread:
 * - an answer that promised keep-alive discards up to DRAIN_BYTES within
 *   DRAIN_MS and keeps the connection (the client may already be sending
 *   its next request on it);
 * - past that, or when the answer said Connection: close, the connection
 *   is half-closed (FIN after the answer) and what still comes is
 *   discarded for LINGER_MS before it is destroyed (RFC 9112 §9.6).
 * Either way a huge body is never read to its end.
 */
export function dropRest(x: Exchange): void {
  if (isH2(x.req)) {
    if (!x.req.stream.destroyed) x.req.stream.close(http2.constants.NGHTTP2_NO_ERROR);
    return;
  }
  const req = x.req;
  const socket = x.socket;
  if (!socket) return;
  // Node ends a Connection: close answer with destroySoon, which destroys the socket as soon as the FIN is
  // out: with the body still coming that is a reset right behind the answer, and a client busy sending
  // meets the reset on its next write and can lose the answer it had not read yet. The close is ours.
  socket.removeListener("finish", socket.destroy);
  let left = DRAIN_BYTES;
  let timer: NodeJS.Timeout;
  const linger = (): void => {
    clearTimeout(timer);
    left = Number.POSITIVE_INFINITY;
    socket.end();
    timer = setTimeout(() => socket.destroy(), LINGER_MS);
  };
  const onData = (chunk: Buffer): void => {
    left -= chunk.length;
    if (left < 0) linger();
  };
  const done = (): void => {
    clearTimeout(timer);
    req.off("data", onData);
    req.off("end", done);
    socket.off("close", done);
  };
  req.on("data", onData);
  req.once("end", done);
  socket.once("close", done);
  req.resume();
  if (keepAlivePromised(x.res as http.ServerResponse)) timer = setTimeout(linger, DRAIN_MS);
  else linger();
}

/**
 * Whether a request's body may hold more than DRAIN_BYTES: a Content-Length
 * over it, or none (chunked). Only such a request has its answer's
 * writeHead wrapped (closeIfBodyLeftLarge).
 *
 * Why not wrap every answer: a POST's body is never complete when its
 * request is handed over (Node parses it afterwards), so every JSON-RPC,
 * REST and Connect call would put a closure of its own on its
 * ServerResponse, the kind of per-object shape docs/hot-path-objects.md
 * is about (the scavenges it cost: docs/performance-notes.md).
 */
export function mayLeaveLargeBody(req: http.IncomingMessage): boolean {
  const declared = Number(req.headers["content-length"]);
  return !Number.isFinite(declared) || declared > DRAIN_BYTES;
}

/**
 * An HTTP/1.1 answer given while the request body may still hold more than
 * DRAIN_BYTES (a Content-Length over it, or chunked) says Connection: close:
 * that body will not be read to its end, and a connection that promised
 * keep-alive cannot be closed without racing the client's next request.
 * Node writes the head in writeHead, explicit or implicit, so this is the
 * last moment the promise can still be changed.
 */
export function closeIfBodyLeftLarge(res: http.ServerResponse, req: http.IncomingMessage): void {
  const writeHead = res.writeHead;
  res.writeHead = function (this: http.ServerResponse, ...args: unknown[]) {
    if (!bodyReceived(req)) this.shouldKeepAlive = false;
    return (writeHead as (...a: unknown[]) => http.ServerResponse).apply(this, args);
  } as typeof res.writeHead;
}

/** Whether an HTTP/1.1 answer left its connection open for another request. */
function keepAlivePromised(res: http.ServerResponse): boolean {
  return res.shouldKeepAlive && !/close/i.test(String(res.getHeader("connection") ?? ""));
}

/** Whether the client has sent the whole body (it may not have been read yet). */
export function bodyReceived(req: Request): boolean {
  if (isH2(req)) return req.stream.destroyed || req.stream.state.remoteClose === 1 || req.stream.endAfterHeaders;
  // RFC 9112 §6.3: with neither Transfer-Encoding nor Content-Length there is no body
  // (Node sets `complete` only after the handler has run, even then).
  return req.complete || (req.headers["transfer-encoding"] === undefined && Number(req.headers["content-length"] ?? 0) === 0);
}

/**
 * Gives the client `ms` to finish sending the body. Past it, a facade
 * reading the body answers 408 (the connection closes after it); any other
 * exchange is dropped. Returns what stops the timer, which the exchange's
 * close calls; a timer that finds the body in (it ended before the answer
 * closed) does nothing.
 */
export function armBodyTimeout(x: Exchange, ms: number): (() => void) | undefined {
  const { req, res } = x;
  if (bodyReceived(req)) return undefined;
  let fallback: NodeJS.Timeout | undefined;
  const timer = setTimeout(() => {
    if (bodyReceived(req)) return;
    if (!expireBody(req, ms)) {
      dropExchange(x, http2.constants.NGHTTP2_CANCEL);
      return;
    }
    // The rest of the body is not wanted: an HTTP/2 stream is reset once
    // the answer is out (see onRequest); HTTP/1.1 closes the connection.
    if (!isH2(req) && !res.headersSent) {
      (res as http.ServerResponse).shouldKeepAlive = false;
    }
    fallback = setTimeout(() => dropExchange(x, http2.constants.NGHTTP2_CANCEL), ANSWER_GRACE_MS);
  }, ms);
  return () => {
    clearTimeout(timer);
    clearTimeout(fallback);
  };
}
