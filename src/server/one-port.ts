import * as http from "node:http";
import * as http2 from "node:http2";
import * as net from "node:net";
import { dropOnOverflow, expireBody } from "../bindings/http/index.js";
import type { QueueOverflowError } from "../execution/index.js";
import { calmOnFlood, ConnectionGate, DEFAULT_DOOR_LIMITS, http2Limits, REFUSED_REQUEST_WEIGHT, type DoorLimits, type DoorRefusal } from "./door-limits.js";

type Request = http.IncomingMessage | http2.Http2ServerRequest;
type Response = http.ServerResponse | http2.Http2ServerResponse;
type Handler = (req: Request, res: Response) => void;

/** The client connection preface every cleartext HTTP/2 connection starts with (RFC 9113 §3.4). */
const PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");

/** Default time a client has to send a request's headers. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 30_000;
/** Default time a client has to send a request's body once its headers are in. */
export const DEFAULT_BODY_TIMEOUT_MS = 60_000;
/**
 * An HTTP/1.1 connection idle between requests is closed after this. Why so
 * long: a client (or a balancer: nginx and cloud load balancers keep idle
 * upstream connections 60 s) may send its next request on the connection
 * just as the server closes it, and that request is lost to a reset. The
 * side that closes an idle connection must be the client, so the server
 * waits longer than they do; undici reads the `Keep-Alive: timeout` hint
 * and lets go a second before it. Shutdown closes idle connections at once.
 */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;
/** An HTTP/2 session that has served requests and has none open is closed (GOAWAY) after this. */
const H2_IDLE_TIMEOUT_MS = 5 * 60_000;
/** How much of an unwanted body is discarded, after a keep-alive answer, before the connection is closed instead. */
const DRAIN_BYTES = 1024 * 1024;
/** How long an unwanted body may take to be discarded, after a keep-alive answer. */
const DRAIN_MS = 2_000;
/** How long a half-closed connection discards what the client still sends before it is destroyed. */
const LINGER_MS = 2_000;
/** After a body timeout, how long the facade has to answer before the exchange is dropped. */
const ANSWER_GRACE_MS = 1_000;

/** Options of the one-port server. */
export interface OnePortOptions {
  /**
   * Time a client has to send a request's headers (ms): from the
   * connection's first byte, and for HTTP/2 from the session's start until
   * it opens a stream. Past it the connection is closed. Default 30 s.
   */
  readonly headersTimeoutMs?: number;
  /**
   * Time a client has to send a request's body once its headers are in
   * (ms). Past it a JSON facade reading the body answers 408; any other
   * request is dropped (HTTP/1.1 connection closed, HTTP/2 stream reset).
   * Default 60 s.
   */
  readonly bodyTimeoutMs?: number;
  /** Told each time a stream is dropped because its reader fell too far behind. */
  readonly onOverflowDrop?: (error: QueueOverflowError, req: Request) => void;
  /**
   * Serve TLS with this PEM certificate chain and key: ALPN offers h2 and
   * http/1.1, and what the client sends once the handshake is done is
   * routed by the same preface sniffing as cleartext.
   */
  readonly tls?: {
    readonly cert: string | Buffer;
    readonly key: string | Buffer;
    /**
     * Ask every client for a certificate and verify it against these CAs.
     * The handshake still completes without one (or with one that does not
     * verify), so the request can be refused with a 401 that says why.
     */
    readonly clientCa?: string | Buffer;
  };
  /** Connection, stream and header limits (door-limits.ts); each absent one keeps its default. */
  readonly limits?: Partial<DoorLimits>;
  /** Peers not held to `limits.maxConnectionsPerAddress` (trusted proxies). */
  readonly exempt?: (address: string) => boolean;
  /** Told each time a connection or an HTTP/2 session is refused or ended at the door, and why. */
  readonly onRefusal?: (reason: DoorRefusal, address: string | undefined) => void;
}

/** A server that answers HTTP/1.1 and prior-knowledge HTTP/2 (h2c) on one port. */
export interface OnePortServer {
  readonly net: net.Server;
  readonly http1: http.Server;
  readonly http2: http2.Http2Server;
  /** Connections open now, whatever their protocol or state: for leak checks. */
  readonly openConnections: number;
  /** Open connections by protocol: "h2c" (HTTP/2 sessions), "http1", and "pending" (not yet sniffed). */
  connectionsByProtocol(): Record<string, number>;
  /** Requests whose answer has not finished yet. */
  readonly requestsInFlight: number;
  /**
   * First step of a graceful stop: new requests are refused at the
   * connection level. The listener closes (new connections are refused),
   * connections that have not sent a request and idle HTTP/1.1 keep-alive
   * connections are closed, HTTP/2 sessions get GOAWAY (streams the client
   * opens afterwards are refused with REFUSED_STREAM), and HTTP/1.1 answers
   * in flight end their connection. Requests in flight go on.
   */
  stopAccepting(): void;
  /** Resolves true once no request is in flight, or false after `ms`. */
  drained(ms: number): Promise<boolean>;
  /** Stops accepting, lets requests in flight finish for `graceMs`, then drops what is left. */
  close(graceMs: number): Promise<void>;
  /** A request from `address` was refused for want of credentials: it counts towards limits.maxRefusalsPerAddress. */
  refusedRequest(address: string | undefined): void;
}

/**
 * Reads the first bytes of each connection: the HTTP/2 preface goes to the
 * h2c server (gRPC, Connect over h2), anything else to the HTTP/1.1 server
 * (Connect, gRPC-Web, JSON-RPC, REST). The bytes read are put back first.
 *
 * Slow and vanishing clients cannot hold resources: every stage of a
 * connection has a timeout (first bytes and headers: headersTimeoutMs;
 * body: bodyTimeoutMs; idle keep-alive or HTTP/2 session), and a stream
 * whose reader falls more events behind than its buffer allows is dropped
 * here, where the transport is, since its writer is stuck waiting for the
 * socket to drain.
 */
export function createOnePortServer(handler: Handler, options: OnePortOptions = {}): OnePortServer {
  const headersTimeoutMs = options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const bodyTimeoutMs = options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  const limits: DoorLimits = { ...DEFAULT_DOOR_LIMITS, ...options.limits };
  const gate = new ConnectionGate(limits, options.exempt);
  /** Counts a refusal against an address; the one that bars it also ends its connections open now. */
  const strike = (address: string | undefined, weight?: number): void => {
    if (!gate.strike(address, weight)) return;
    for (const s of sockets) if (s.remoteAddress === address) s.destroy();
  };
  const refused = (reason: DoorRefusal, socket: net.Socket | undefined): void => {
    // A session ended for how it behaved counts against its address; a connection over a limit does not.
    if (!reason.startsWith("limits.maxConnections") && reason !== "limits.maxRefusalsPerAddress") strike(socket?.remoteAddress);
    options.onRefusal?.(reason, socket?.remoteAddress);
  };
  /** The socket whose HTTP/2 session is being made (the session's own is a proxy that cannot destroy it). */
  let arriving: net.Socket | undefined;
  let accepting = true;
  let inFlight = 0;
  const quiet = new Set<() => void>();
  const sockets = new Set<net.Socket>();
  /** Sockets still being sniffed: no protocol yet, hence no request to wait for at stop. */
  const sniffing = new Set<net.Socket>();
  const sessions = new Set<http2.ServerHttp2Session>();
  /** HTTP/1.1 answers not yet finished, whose connection a stop must end after them. */
  const h1Answers = new Set<http.ServerResponse>();

  const onRequest: Handler = (req, res) => {
    if (!accepting && !isH2(req)) {
      // A request that raced the stop on a kept-alive connection: the
      // connection is closed unanswered, as one closed while idle would be.
      req.socket.destroy();
      return;
    }
    const x: Exchange = { req, res, socket: isH2(req) ? undefined : req.socket };
    inFlight++;
    // One listener for everything an exchange's end settles (each listener
    // added and removed per request counts under load).
    let stopBodyTimer: (() => void) | undefined;
    res.once("close", () => {
      stopBodyTimer?.();
      if (!isH2(req)) h1Answers.delete(res as http.ServerResponse);
      inFlight--;
      if (inFlight === 0) for (const fn of [...quiet]) fn();
    });
    if (!isH2(req)) {
      const answer = res as http.ServerResponse;
      h1Answers.add(answer);
      // After a stop began, an HTTP/1.1 answer ends its connection (Connection: close).
      if (!accepting) answer.shouldKeepAlive = false;
      if (!bodyReceived(req) && mayLeaveLargeBody(req as http.IncomingMessage)) closeIfBodyLeftLarge(answer, req as http.IncomingMessage);
    }
    stopBodyTimer = armBodyTimeout(x, bodyTimeoutMs);
    // An answer given before the body arrived (a refusal: too large, not
    // allowed) does not want the rest: reading on would let a client keep
    // the server draining a body of any size.
    // An HTTP/2 compat response emits "finish" only once its stream has
    // closed, which the upload holds off; it is out after its trailers
    // ("wantTrailers", which every compat response emits) are sent.
    if (isH2(req)) req.stream.once("wantTrailers", () => !bodyReceived(req) && setImmediate(() => !bodyReceived(req) && dropRest(x)));
    else res.once("finish", () => !bodyReceived(req) && dropRest(x));
    const drop = (error: QueueOverflowError): void => {
      options.onOverflowDrop?.(error, req);
      dropExchange(x, http2.constants.NGHTTP2_ENHANCE_YOUR_CALM);
    };
    dropOnOverflow(req, drop);
    handler(req, res);
  };

  const http1 = http.createServer(
    {
      headersTimeout: headersTimeoutMs,
      // A backstop behind the body timer: Node's own limit on receiving a whole request.
      requestTimeout: headersTimeoutMs + bodyTimeoutMs + ANSWER_GRACE_MS,
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      // Node checks the two limits above on this period (default 30 s, far coarser than they may be).
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(headersTimeoutMs / 4))),
      maxHeaderSize: limits.maxHeaderBytes,
    },
    onRequest,
  );
  // The HTTP/1.1 server never listens itself (connections are handed to it),
  // so it is told it does: that starts its connection tracking, without
  // which neither closeIdleConnections() nor the timeouts above would work.
  http1.emit("listening");

  const h2 = http2.createServer(http2Limits(limits), onRequest);
  const onSession = (session: http2.ServerHttp2Session): void => {
    sessions.add(session);
    const socket = arriving;
    calmOnFlood(session, socket, (reason) => refused(reason, socket));
    watchSessionIdle(session, headersTimeoutMs, () => refused("limits.headersTimeoutMs", socket));
    session.once("close", () => sessions.delete(session));
    // GOAWAY at once for a session that begins after the stop.
    if (!accepting) session.close();
  };
  h2.on("session", onSession);

  /** TLS: Node's own handshake and ALPN dispatch, the same request handler and session bookkeeping. */
  const secureServer = options.tls
    ? http2.createSecureServer(
        {
          cert: options.tls.cert,
          key: options.tls.key,
          ...(options.tls.clientCa ? { ca: options.tls.clientCa, requestCert: true, rejectUnauthorized: false } : {}),
          allowHTTP1: true,
          handshakeTimeout: headersTimeoutMs,
          ...http2Limits(limits),
          // The HTTP/1.1 fallback keeps the cleartext server's limits.
          ...({ headersTimeout: headersTimeoutMs, requestTimeout: headersTimeoutMs + bodyTimeoutMs + ANSWER_GRACE_MS, keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS, maxHeaderSize: limits.maxHeaderBytes } as object),
        },
        onRequest,
      )
    : undefined;
  secureServer?.on("session", onSession);

  /** Hands a cleartext connection to the HTTP/2 or the HTTP/1.1 server by its first bytes. */
  const route = (socket: net.Socket, silence: NodeJS.Timeout): void => {
    let seen = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      seen = Buffer.concat([seen, chunk]);
      const n = Math.min(seen.length, PREFACE.length);
      const isH2 = seen.subarray(0, n).equals(PREFACE.subarray(0, n));
      // A first read shorter than the preface that still matches it: wait for more.
      if (isH2 && seen.length < PREFACE.length) return;
      clearTimeout(silence);
      sniffing.delete(socket);
      socket.removeListener("data", onData);
      socket.removeListener("error", onEarlyError);
      socket.removeListener("close", onEarlyClose);
      socket.pause();
      if (isH2) {
        // The HTTP/2 session reads what is buffered on the socket before it takes over the handle.
        socket.unshift(seen);
        arriving = socket;
        h2.emit("connection", socket);
        arriving = undefined;
      } else {
        // The HTTP/1.1 parser consumes the handle directly and never sees unshifted
        // bytes, so the bytes already read are handed to its data listener.
        http1.emit("connection", socket);
        socket.emit("data", seen);
        socket.resume();
      }
    };
    const onEarlyError = (): void => {
      socket.destroy();
    };
    const onEarlyClose = (): void => clearTimeout(silence);
    socket.on("data", onData);
    socket.on("error", onEarlyError);
    socket.once("close", onEarlyClose);
  };

  const server = net.createServer((socket) => {
    const refusal = accepting ? gate.admit(socket) : undefined;
    if (refusal) {
      refused(refusal, socket);
      socket.destroy();
      return;
    }
    // Small frames (an SSE event, a unary answer) must leave at once, not wait
    // for Nagle's algorithm to meet the client's delayed ACK (~40 ms).
    socket.setNoDelay(true);
    sockets.add(socket);
    sniffing.add(socket);
    socket.once("close", () => {
      sockets.delete(socket);
      sniffing.delete(socket);
      if (sockets.size === 0) for (const fn of [...quiet]) fn();
    });
    if (!accepting) {
      socket.destroy();
      return;
    }
    if (secureServer) {
      // ALPN (RFC 7301) picks the protocol: gRPC clients require h2; browsers
      // and curl may fall back to http/1.1. A silent client meets handshakeTimeout.
      sniffing.delete(socket);
      secureServer.emit("connection", socket);
      return;
    }
    // A client that connects and says nothing (or half a preface) is a slowloris too.
    route(
      socket,
      setTimeout(() => {
        refused("limits.headersTimeoutMs", socket);
        socket.destroy();
      }, headersTimeoutMs),
    );
  });

  /** Resolves once `done()` holds, or after `ms` (false). */
  const waitFor = (done: () => boolean, ms: number): Promise<boolean> =>
    new Promise<boolean>((resolve) => {
      if (done()) return resolve(true);
      const check = (): void => {
        if (!done()) return;
        finish(true);
      };
      const finish = (ok: boolean): void => {
        clearTimeout(timer);
        quiet.delete(check);
        resolve(ok);
      };
      const timer = setTimeout(() => finish(done()), ms);
      quiet.add(check);
    });

  const stopAccepting = (): void => {
    if (!accepting) return;
    accepting = false;
    server.close();
    http1.close();
    h2.close();
    secureServer?.close();
    for (const s of sniffing) s.destroy();
    for (const s of sessions) s.close();
    // http1.close() closed the idle keep-alive connections; an answer in
    // flight ends its connection once written, whether its head is out or not.
    for (const res of h1Answers) {
      if (!res.headersSent) res.shouldKeepAlive = false;
      else {
        const socket = res.socket;
        res.once("finish", () => socket?.destroySoon());
      }
    }
  };

  return {
    net: server,
    http1,
    http2: h2,
    get openConnections() {
      return sockets.size;
    },
    connectionsByProtocol: () => ({ h2c: sessions.size, http1: Math.max(0, sockets.size - sessions.size - sniffing.size), pending: sniffing.size }),
    get requestsInFlight() {
      return inFlight;
    },
    stopAccepting,
    refusedRequest: (address) => strike(address, REFUSED_REQUEST_WEIGHT),
    drained: (ms) => waitFor(() => inFlight === 0, ms),
    close: async (graceMs) => {
      stopAccepting();
      const ended = await waitFor(() => sockets.size === 0, graceMs);
      if (ended) return;
      for (const s of sessions) s.destroy();
      for (const s of sockets) s.destroy();
    },
  };
}

function isH2(req: Request): req is http2.Http2ServerRequest {
  return "stream" in req;
}

/** One request and its answer, with the HTTP/1.1 socket kept: Node detaches it once the answer is written. */
interface Exchange {
  readonly req: Request;
  readonly res: Response;
  readonly socket: net.Socket | undefined;
}

/** Ends one exchange without an answer: its HTTP/2 stream is reset, or its HTTP/1.1 connection closed. */
function dropExchange(x: Exchange, code: number): void {
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
function dropRest(x: Exchange): void {
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
 * Why not wrap every answer, as the hub did: a POST's body is never
 * complete when its request is handed over (Node parses it afterwards), so
 * every JSON-RPC, REST and Connect call put a closure of its own on its
 * ServerResponse, the kind of per-object shape docs/hot-path-objects.md
 * is about. Measured with --trace-gc on a hub cut down to this server
 * answering a fixed body: scavenges of ~7.9 ms with the wrapper on every
 * answer, ~0.9 ms without.
 */
function mayLeaveLargeBody(req: http.IncomingMessage): boolean {
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
function closeIfBodyLeftLarge(res: http.ServerResponse, req: http.IncomingMessage): void {
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
function bodyReceived(req: Request): boolean {
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
function armBodyTimeout(x: Exchange, ms: number): (() => void) | undefined {
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

/**
 * An HTTP/2 session with no stream open is closed (GOAWAY): after
 * `firstMs` if it never opened one (a preface and silence), after
 * H2_IDLE_TIMEOUT_MS once it has served requests. A stream open keeps it,
 * however quiet (a subscription waiting for events).
 *
 * One idle timer per session, re-armed (`refresh`) whenever its last
 * stream closes and ignored while a stream is open, rather than a timer
 * made at each close and cleared at the next stream: a client that sends
 * one call at a time closes its last stream on every call.
 */
function watchSessionIdle(session: http2.ServerHttp2Session, firstMs: number, onSilent: () => void): void {
  let open = 0;
  let served = false;
  const closeIfIdle = (): void => {
    if (open !== 0 || session.closed || session.destroyed) return;
    if (!served) onSilent();
    session.close();
  };
  let timer = setTimeout(closeIfIdle, firstMs);
  session.on("stream", (stream) => {
    open++;
    if (!served) {
      served = true;
      clearTimeout(timer);
      timer = setTimeout(closeIfIdle, H2_IDLE_TIMEOUT_MS);
      timer.unref();
    }
    stream.once("close", () => {
      if (--open === 0) timer.refresh();
    });
  });
  session.once("close", () => clearTimeout(timer));
}
