import { connect, type Socket } from "node:net";

/**
 * HTTP/2 spoken frame by frame over a plain socket (RFC 9113 §4), for what
 * Node's client refuses to do: open streams past the server's limit, reset
 * them at once, send endless CONTINUATION, floods of PING and SETTINGS,
 * empty DATA frames. Header blocks are HPACK literals without indexing and
 * without Huffman coding (RFC 7541 §6.2.2), which every decoder accepts.
 */

export const FRAME = { DATA: 0x0, HEADERS: 0x1, RST_STREAM: 0x3, SETTINGS: 0x4, PING: 0x6, GOAWAY: 0x7, WINDOW_UPDATE: 0x8, CONTINUATION: 0x9 } as const;
export const FLAG = { END_STREAM: 0x1, ACK: 0x1, END_HEADERS: 0x4 } as const;
/** RFC 9113 §7 error codes this suite looks for. */
export const H2_ERROR = { NO_ERROR: 0x0, PROTOCOL_ERROR: 0x1, CANCEL: 0x8, REFUSED_STREAM: 0x7, ENHANCE_YOUR_CALM: 0xb, FRAME_SIZE_ERROR: 0x6, COMPRESSION_ERROR: 0x9 } as const;
const PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");

/** One frame, header and payload. */
export function frame(type: number, flags: number, streamId: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(streamId & 0x7fffffff, 5);
  return Buffer.concat([head, payload]);
}

/** An HPACK integer with an `n`-bit prefix (RFC 7541 §5.1). */
function hpackInt(value: number, n: number, first: number): number[] {
  const max = (1 << n) - 1;
  if (value < max) return [first | value];
  const out = [first | max];
  value -= max;
  while (value >= 128) {
    out.push((value % 128) + 128);
    value = Math.floor(value / 128);
  }
  out.push(value);
  return out;
}

/**
 * A header block of literal fields, not indexed (RFC 7541 §6.2.2), opened by
 * a dynamic table size update to 0 (§6.3): the hub allows its clients no
 * dynamic table, and a decoder may require the update first.
 */
export function headerBlock(headers: ReadonlyArray<readonly [string, string]>): Buffer {
  return Buffer.concat([Buffer.from([0x20]), headerFields(headers)]);
}

/** Literal header fields alone: what a CONTINUATION frame carries on from its block's start. */
export function headerFields(headers: ReadonlyArray<readonly [string, string]>): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of headers) {
    const n = Buffer.from(name);
    const v = Buffer.from(value);
    parts.push(Buffer.from([0x00, ...hpackInt(n.length, 7, 0)]), n, Buffer.from(hpackInt(v.length, 7, 0)), v);
  }
  return Buffer.concat(parts);
}

/** The headers of a JSON-RPC POST on `authority`. */
export function postHeaders(authority: string, extra: ReadonlyArray<readonly [string, string]> = []): Array<readonly [string, string]> {
  return [[":method", "POST"], [":scheme", "http"], [":path", "/"], [":authority", authority], ["content-type", "application/json"], ...extra];
}

/** What the server sent back on a raw session, as far as the suite judges it. */
export interface H2Seen {
  /** RST_STREAM error codes received, in order. */
  readonly resets: number[];
  /** The GOAWAY error code, once one arrived. */
  goaway: number | undefined;
  /** HEADERS frames received (answers begun). */
  answers: number;
  /** The socket was closed (by either side). */
  closed: boolean;
}

/** A raw HTTP/2 connection: the preface and an empty SETTINGS are sent, the server's SETTINGS acknowledged. */
export interface RawH2 {
  readonly socket: Socket;
  readonly seen: H2Seen;
  /** Writes bytes unless the socket is gone; resolves once they are handed to the kernel (backpressure). */
  send(bytes: Buffer): Promise<boolean>;
  /** Opens stream `id` with `headers`, ending it (no body) unless `endStream` is false. */
  open(id: number, headers: ReadonlyArray<readonly [string, string]>, endStream?: boolean): Promise<boolean>;
  destroy(): void;
}

/** Connects to `url` and speaks HTTP/2 over the socket without a client library in between. */
export async function rawH2(url: string, options: { readonly ackSettings?: boolean; readonly from?: string } = {}): Promise<RawH2> {
  const socket = await connectFrom(url, options.from);
  const seen: H2Seen = { resets: [], goaway: undefined, answers: 0, closed: false };
  let buf: Buffer = Buffer.alloc(0);
  socket.on("data", (chunk: Buffer) => {
    buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
    while (buf.length >= 9) {
      const len = buf.readUIntBE(0, 3);
      if (buf.length < 9 + len) break;
      const type = buf[3]!;
      const flags = buf[4]!;
      const payload = buf.subarray(9, 9 + len);
      buf = buf.subarray(9 + len);
      if (type === FRAME.RST_STREAM) seen.resets.push(payload.readUInt32BE(0));
      else if (type === FRAME.GOAWAY) seen.goaway = payload.readUInt32BE(4);
      else if (type === FRAME.HEADERS) seen.answers++;
      else if (type === FRAME.SETTINGS && !(flags & FLAG.ACK) && options.ackSettings !== false) void send(frame(FRAME.SETTINGS, FLAG.ACK, 0));
    }
  });
  socket.once("close", () => (seen.closed = true));
  const send = (bytes: Buffer): Promise<boolean> =>
    new Promise((resolve) => {
      if (socket.destroyed || !socket.writable) return resolve(false);
      if (socket.write(bytes)) resolve(true);
      else socket.once("drain", () => resolve(true)).once("close", () => resolve(false));
    });
  await send(Buffer.concat([PREFACE, frame(FRAME.SETTINGS, 0, 0)]));
  return {
    socket,
    seen,
    send,
    open: (id, headers, endStream = true) => send(frame(FRAME.HEADERS, FLAG.END_HEADERS | (endStream ? FLAG.END_STREAM : 0), id, headerBlock(headers))),
    destroy: () => socket.destroy(),
  };
}

/**
 * A TCP connection to `url`'s host and port, from the loopback address
 * `from` (any of 127.0.0.0/8), so a test can be several clients at once.
 */
export async function connectFrom(url: string, from?: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = connect({ port: Number(port), host: hostname, localAddress: from });
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  socket.on("error", () => {});
  return socket;
}

/** Resolves once `done()` holds or `ms` passed; returns whether it held. */
export async function waitUntil(done: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!done() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
  return done();
}
