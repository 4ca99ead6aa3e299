import * as http from "node:http";
import * as http2 from "node:http2";
import { connect, type Socket } from "node:net";

/** A TCP connection to the host and port of `url`, once connected; errors are kept, not thrown. */
export async function rawConnection(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  socket.on("error", () => {});
  return socket;
}

/** How a raw connection ended and what the server wrote on it. */
export interface RawEnd {
  readonly text: string;
  /** Milliseconds from the call to the close. */
  readonly afterMs: number;
}

/** Collects what the server writes on `socket` until the connection closes (or rejects after `ms`). */
export function readUntilClosed(socket: Socket, ms: number): Promise<RawEnd> {
  const t0 = Date.now();
  let text = "";
  socket.setEncoding("latin1");
  socket.on("data", (d: string) => (text += d));
  socket.resume();
  return new Promise<RawEnd>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the connection was still open after ${ms} ms; received: ${text.slice(0, 200)}`)), ms);
    socket.once("close", () => {
      clearTimeout(timer);
      resolve({ text, afterMs: Date.now() - t0 });
    });
  });
}

/** The head of an HTTP/1.1 POST to `path` on `url`'s host, with the given extra headers. */
export function postHead(url: string, path: string, headers: Record<string, string>): string {
  const host = new URL(url).host;
  const lines = [`POST ${path} HTTP/1.1`, `host: ${host}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  return `${lines.join("\r\n")}\r\n\r\n`;
}

/** An HTTP/1.1 answer read off a raw connection: status, lower-cased headers, and the body as sent. */
export interface RawReply {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** Parses the answer at the start of `text` (no chunked bodies: answers with a Content-Length or ended by the close). */
export function parseRawReply(text: string): RawReply {
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) throw new Error(`no complete HTTP answer in: ${JSON.stringify(text.slice(0, 200))}`);
  const [statusLine, ...lines] = text.slice(0, end).split("\r\n");
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine!)?.[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(":");
    headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  const length = headers["content-length"];
  const rest = text.slice(end + 4);
  return { status, headers, body: length === undefined ? rest : rest.slice(0, Number(length)) };
}

/**
 * A POST whose answer the test reads only when it wants to: the response
 * is paused as soon as it arrives, so the client's socket stops reading
 * and the server's writes back up (a client that stopped reading).
 */
export function pausedPost(url: string, body: string, headers: Record<string, string>): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: "POST", agent: false, headers: { "content-length": String(Buffer.byteLength(body)), ...headers } }, (res) => {
      res.pause();
      resolve(res);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** A gRPC length-prefixed message, uncompressed (gRPC over HTTP/2, "Length-Prefixed-Message"). */
export function grpcFrame(message: Uint8Array): Buffer {
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  return frame;
}

/** Opens a gRPC call of an A2AService method on an HTTP/2 session and sends `message` as its only request. */
export function rawGrpcCall(session: http2.ClientHttp2Session, method: string, message: Uint8Array): http2.ClientHttp2Stream {
  const stream = session.request({ ":method": "POST", ":path": `/lf.a2a.v1.A2AService/${method}`, "content-type": "application/grpc", te: "trailers" });
  stream.on("error", () => {});
  stream.end(grpcFrame(message));
  return stream;
}

/** What a client that uploaded a large body saw. */
export interface Upload {
  /** Body bytes written to the socket before it closed or the body ended. */
  readonly sent: number;
  /** Everything the server wrote back. */
  readonly text: string;
  /** How the upload ended: the whole body went out, or the connection closed under it. */
  readonly ended: "complete" | "closed";
}

/**
 * Sends `head` then a chunked body of `total` bytes made on the fly from
 * one reused `chunk` (nothing of size `total` is allocated), honouring
 * backpressure, while reading what the server answers. Stops when the
 * server closes the connection; resolves once it is closed.
 */
export async function uploadChunked(url: string, head: string, total: number, chunk: Buffer): Promise<Upload> {
  const socket = await rawConnection(url);
  let text = "";
  let closed = false;
  socket.setEncoding("latin1");
  socket.on("data", (d: string) => (text += d));
  const gone = new Promise<void>((resolve) => socket.once("close", () => ((closed = true), resolve())));
  const drained = (): Promise<void> => new Promise((resolve) => {
    const done = (): void => {
      socket.off("drain", done);
      socket.off("close", done);
      resolve();
    };
    socket.once("drain", done);
    socket.once("close", done);
  });
  const frame = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")]);
  socket.write(head);
  let sent = 0;
  while (!closed && sent < total) {
    sent += chunk.length;
    if (!socket.write(frame)) await drained();
  }
  if (!closed) socket.write("0\r\n\r\n");
  await gone;
  return { sent, text, ended: sent >= total ? "complete" : "closed" };
}

/** What an HTTP/2 client that uploaded a large body saw. */
export interface H2Upload {
  readonly sent: number;
  readonly status: number;
  /** The answer's headers, and its trailers if any. */
  readonly headers: http2.IncomingHttpHeaders;
  readonly text: string;
  /** The RST_STREAM code the stream closed with (0: a clean end). */
  readonly rstCode: number;
}

/**
 * Opens a stream with `headers` on `session` and writes `total` bytes of
 * body from one reused `chunk`, honouring flow control, while reading the
 * answer. Stops once the server has answered in full or reset the stream,
 * as RFC 9113 §8.1 has a client do when the answer comes before the end of
 * its upload (Node's client does not stop by itself: its writes just stall).
 */
export async function uploadH2(session: http2.ClientHttp2Session, headers: http2.OutgoingHttpHeaders, total: number, chunk: Buffer): Promise<H2Upload> {
  const stream = session.request(headers);
  let status = 0;
  let answer: http2.IncomingHttpHeaders = {};
  let text = "";
  let over = false;
  const wake = new Set<() => void>();
  const stop = (): void => {
    over = true;
    for (const fn of wake) fn();
  };
  stream.on("error", () => {});
  stream.on("response", (h) => {
    answer = h;
    status = Number(h[":status"]);
  });
  // gRPC puts its status in trailers, or in the headers of a trailers-only answer.
  stream.on("trailers", (t) => (answer = { ...answer, ...t }));
  stream.setEncoding("latin1");
  stream.on("data", (d: string) => (text += d));
  const answered = new Promise<void>((resolve) => {
    stream.once("end", () => (stop(), resolve()));
    stream.once("close", () => (stop(), resolve()));
  });
  let sent = 0;
  while (!over && sent < total) {
    sent += chunk.length;
    if (!stream.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          stream.off("drain", done);
          wake.delete(done);
          resolve();
        };
        stream.once("drain", done);
        wake.add(done);
      });
    }
  }
  if (!over) stream.end();
  await answered;
  const rstCode = stream.rstCode ?? 0;
  stream.close();
  return { sent, status, headers: answer, text, rstCode };
}
