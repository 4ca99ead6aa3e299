import * as http from "node:http";
import * as http2 from "node:http2";
import * as net from "node:net";

type Handler = (req: http.IncomingMessage | http2.Http2ServerRequest, res: http.ServerResponse | http2.Http2ServerResponse) => void;

/** The client connection preface every cleartext HTTP/2 connection starts with (RFC 9113 §3.4). */
const PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");

/** A server that answers HTTP/1.1 and prior-knowledge HTTP/2 (h2c) on one port. */
export interface OnePortServer {
  readonly net: net.Server;
  readonly http1: http.Server;
  readonly http2: http2.Http2Server;
  /** Stops accepting, lets requests in flight finish for `graceMs`, then drops what is left. */
  close(graceMs: number): Promise<void>;
}

/**
 * Reads the first bytes of each connection: the HTTP/2 preface goes to the
 * h2c server (gRPC, Connect over h2), anything else to the HTTP/1.1 server
 * (Connect, gRPC-Web, JSON-RPC, REST). The bytes read are put back first.
 */
export function createOnePortServer(handler: Handler): OnePortServer {
  const http1 = http.createServer({ requestTimeout: 0, headersTimeout: 30_000, keepAliveTimeout: 5_000 }, handler);
  // The HTTP/1.1 server never listens itself (connections are handed to it),
  // so it is told it does: that starts its connection tracking, without
  // which closeIdleConnections() cannot find keep-alive sockets at stop.
  http1.emit("listening");
  const h2 = http2.createServer({}, handler);
  const sockets = new Set<net.Socket>();
  const sessions = new Set<http2.ServerHttp2Session>();
  h2.on("session", (s) => {
    sessions.add(s);
    s.once("close", () => sessions.delete(s));
  });

  const server = net.createServer((socket) => {
    // Small frames (an SSE event, a unary answer) must leave at once, not wait
    // for Nagle's algorithm to meet the client's delayed ACK (~40 ms).
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    let seen = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      seen = Buffer.concat([seen, chunk]);
      const n = Math.min(seen.length, PREFACE.length);
      const isH2 = seen.subarray(0, n).equals(PREFACE.subarray(0, n));
      // A first read shorter than the preface that still matches it: wait for more.
      if (isH2 && seen.length < PREFACE.length) return;
      socket.removeListener("data", onData);
      socket.removeListener("error", onEarlyError);
      socket.pause();
      if (isH2) {
        // The HTTP/2 session reads what is buffered on the socket before it takes over the handle.
        socket.unshift(seen);
        h2.emit("connection", socket);
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
    socket.on("data", onData);
    socket.on("error", onEarlyError);
  });

  return {
    net: server,
    http1,
    http2: h2,
    close: (graceMs) =>
      new Promise<void>((resolve) => {
        server.close();
        http1.close();
        h2.close();
        http1.closeIdleConnections();
        for (const s of sessions) s.close();
        const timer = setTimeout(() => {
          for (const s of sessions) s.destroy();
          for (const s of sockets) s.destroy();
        }, graceMs);
        const check = setInterval(() => {
          http1.closeIdleConnections();
          if (sockets.size === 0) {
            clearInterval(check);
            clearTimeout(timer);
            resolve();
          }
        }, 25);
      }),
  };
}
