import { invalidResponse } from "./client-failure.js";

/** One event of a text/event-stream (WHATWG HTML §9.2.6). */
export interface SseMessage {
  /** The `event:` field; undefined for the default "message" type. */
  readonly event?: string;
  readonly data: string;
  readonly id?: string;
}

/**
 * Reads Server-Sent Events from a response body as they arrive: `data:`
 * lines joined with "\n", `event:` and `id:` kept, comments (keep-alives)
 * skipped, any line ending accepted. Returning early cancels the body.
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let data: string[] = [];
  let event: string | undefined;
  let id: string | undefined;
  let done = false;
  try {
    while (!done) {
      const chunk = await reader.read();
      done = chunk.done;
      buffer += done ? decoder.decode() : decoder.decode(chunk.value, { stream: true });
      // A "\r" at the very end may be the first half of "\r\n": wait for more.
      let end: number;
      while ((end = lineEnd(buffer, done)) >= 0) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(buffer[end] === "\r" && buffer[end + 1] === "\n" ? end + 2 : end + 1);
        if (line === "") {
          if (data.length > 0) yield { event, data: data.join("\n"), id };
          data = [];
          event = undefined;
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? "" : line.slice(colon + 1);
        if (value.startsWith(" ")) value = value.slice(1);
        if (field === "data") data.push(value);
        else if (field === "event") event = value;
        else if (field === "id" && !value.includes("\0")) id = value;
      }
    }
    // §9.2.6: an event not ended by a blank line when the stream closes is discarded.
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

function lineEnd(buffer: string, done: boolean): number {
  for (let i = 0; i < buffer.length; i++) {
    const c = buffer[i];
    if (c === "\n") return i;
    if (c === "\r") return i + 1 < buffer.length || done ? i : -1;
  }
  return -1;
}

/** One SSE event whose data is JSON, with its `event:` and `id:` fields. */
export interface SseJson {
  readonly event?: string;
  readonly id?: string;
  readonly json: unknown;
}

/**
 * The JSON events of an SSE body (events with empty data skipped); data
 * that is not JSON is InvalidAgentResponse naming `what`.
 */
export async function* readSseJson(body: ReadableStream<Uint8Array>, what: string): AsyncGenerator<SseJson> {
  for await (const message of readSse(body)) {
    if (message.data.trim() === "") continue;
    let json: unknown;
    try {
      json = JSON.parse(message.data);
    } catch (e) {
      throw invalidResponse(`${what} is not JSON: ${message.data.slice(0, 120)}`, e);
    }
    yield { event: message.event, id: message.id, json };
  }
}
