/** One frame as it crossed the wire: a request body, a response message, or the end-of-stream trailer. */
export interface WireFrame {
  readonly seq: number;
  readonly direction: "sent" | "received";
  readonly method: string;
  readonly text: string;
}

type Listener = (frame: WireFrame) => void;
const listeners = new Set<Listener>();
let seq = 0;

/** Calls `fn` for every later frame; returns the unsubscribe. */
export function onWireFrame(fn: Listener): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

function emit(direction: WireFrame["direction"], method: string, text: string): void {
  const frame = { seq: ++seq, direction, method, text };
  for (const l of listeners) l(frame);
}

const decoder = new TextDecoder();

/**
 * Splits Connect's streaming envelopes (1 flag byte, 4-byte big-endian
 * length, payload; flag 0x02 marks the end-of-stream JSON) as bytes arrive,
 * so each message is shown when it arrived, not when the stream ended.
 */
function envelopeReader(onFrame: (flags: number, payload: Uint8Array) => void): (chunk: Uint8Array) => void {
  let buf = new Uint8Array(0);
  return (chunk) => {
    const joined = new Uint8Array(buf.length + chunk.length);
    joined.set(buf);
    joined.set(chunk, buf.length);
    buf = joined;
    while (buf.length >= 5) {
      const len = new DataView(buf.buffer, buf.byteOffset + 1, 4).getUint32(0);
      if (buf.length < 5 + len) break;
      onFrame(buf[0]!, buf.subarray(5, 5 + len));
      buf = buf.slice(5 + len);
    }
  };
}

function bodyBytes(body: BodyInit | null | undefined): Uint8Array | undefined {
  if (typeof body === "string") return new TextEncoder().encode(body);
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  return undefined;
}

/**
 * A fetch for connect-web that records what it sends and receives: the
 * request body, then each response message as its bytes come in (the
 * response body is teed, so the client reads exactly what it would have).
 */
export const recordingFetch: typeof fetch = async (input, init) => {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  const method = url.slice(url.lastIndexOf("/") + 1);
  const streaming = (new Headers(init?.headers).get("content-type") ?? "").startsWith("application/connect+");
  const sent = bodyBytes(init?.body);
  if (sent) {
    if (streaming) envelopeReader((_, p) => emit("sent", method, decoder.decode(p)))(sent);
    else emit("sent", method, decoder.decode(sent));
  }
  const res = await fetch(input, init);
  if (!res.body) return res;
  const [mine, theirs] = res.body.tee();
  void (async () => {
    const reader = mine.getReader();
    const isStream = (res.headers.get("content-type") ?? "").startsWith("application/connect+");
    const feed = envelopeReader((flags, p) => emit("received", flags & 0x02 ? `${method} (end of stream)` : method, decoder.decode(p)));
    const whole: Uint8Array[] = [];
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done || !value) break;
      if (isStream) feed(value);
      else whole.push(value);
    }
    if (!isStream) emit("received", `${method} (HTTP ${res.status})`, whole.map((c) => decoder.decode(c, { stream: true })).join("") + decoder.decode());
  })();
  return new Response(theirs, { status: res.status, statusText: res.statusText, headers: res.headers });
};
