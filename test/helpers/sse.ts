import { mediaType } from "./http-reply.js";

/** One Server-Sent Event as a client sees it; comments are kept to observe keep-alives. */
export interface SseMessage {
  readonly id?: string;
  readonly event?: string;
  readonly data?: any;
  readonly comment?: string;
}

/** Parses an event stream (WHATWG HTML §9.2.6) incrementally. */
export async function* sseMessages(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  let buf = "";
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buf += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, end);
      buf = buf.slice(end + 2);
      let id: string | undefined;
      let event: string | undefined;
      let comment: string | undefined;
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) comment = line.slice(1).trim();
        else if (line.startsWith("id: ")) id = line.slice(4);
        else if (line.startsWith("event: ")) event = line.slice(7);
        else if (line.startsWith("data: ")) data.push(line.slice(6));
      }
      yield data.length > 0 ? { id, event, data: JSON.parse(data.join("\n")) } : { comment };
    }
  }
}

/** Every data event of a stream, until it closes. */
export async function dataEvents(events: AsyncGenerator<SseMessage>): Promise<SseMessage[]> {
  const out: SseMessage[] = [];
  for await (const e of events) if (e.data !== undefined) out.push(e);
  return out;
}

/** A streaming request's answer: SSE `events`, or a plain JSON reply when the server refused before streaming. */
export interface SseStream {
  readonly status: number;
  readonly type: string;
  readonly headers: Headers;
  readonly json?: any;
  readonly events?: AsyncGenerator<SseMessage>;
  readonly abort: AbortController;
}

/** Sends a request that asks for text/event-stream and opens its answer, abortable through `abort`. */
export async function openSse(url: string, init: { method: string; body?: string; headers?: Record<string, string> }): Promise<SseStream> {
  const abort = new AbortController();
  const res = await fetch(url, { method: init.method, body: init.body, headers: { accept: "text/event-stream", ...init.headers }, signal: abort.signal });
  const type = mediaType(res);
  if (type !== "text/event-stream") return { status: res.status, type, headers: res.headers, json: await res.json(), abort };
  return { status: res.status, type, headers: res.headers, events: sseMessages(res.body!), abort };
}
