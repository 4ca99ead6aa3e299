import * as http from "node:http";
import * as http2 from "node:http2";
import * as net from "node:net";
import { dropOnOverflow } from "../bindings/http/index.js";
import type { QueueOverflowError } from "../execution/index.js";
import { ANSWER_GRACE_MS, armBodyTimeout, bodyReceived, closeIfBodyLeftLarge, dropExchange, dropRest, isH2, mayLeaveLargeBody, type Exchange } from "./exchange.js";
import { answerClientError } from "./h1-client-errors.js";
import { watchSessionIdle } from "./session-idle.js";
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
    // A session ended for how it behaved counts against its address; a connection over a limit does not,
    // and a header section too large (a browser's cookies can be) counts as one refused request.
    if (reason === "limits.maxHeaderBytes") strike(socket?.remoteAddress, REFUSED_REQUEST_WEIGHT);
    else if (!reason.startsWith("limits.maxConnections") && reason !== "limits.maxRefusalsPerAddress") strike(socket?.remoteAddress);
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
  // Node's parser gave up on a request (headers too slow or too large): counted like every refusal at the door.
  http1.on("clientError", (error: NodeJS.ErrnoException, socket: net.Socket) => answerClientError(error, socket, (reason) => refused(reason, socket)));
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
