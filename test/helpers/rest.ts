import { expect } from "vitest";
import { silentLogger, type A2AServiceApi } from "../../src/core/index.js";
import { createRestHandler, type RestHandler, type RestHandlerOptions } from "../../src/bindings/rest/index.js";
import type { HubOptions } from "../../src/server/index.js";
import { startTestHub, type TestHub } from "./test-hub.js";

/** One REST answer, body read in full. */
export interface RestReply {
  readonly status: number;
  /** The media type of Content-Type, without parameters. */
  readonly type: string;
  readonly headers: Headers;
  readonly text: string;
  readonly json: any;
}

/** What to send: a JSON `body`, or `raw` text as it is. */
export interface RestInit {
  readonly body?: unknown;
  readonly raw?: string;
  readonly headers?: Record<string, string>;
}

/** Sends one request to `base` + `path` and reads the answer. */
export async function rest(base: string, method: string, path: string, init: RestInit = {}): Promise<RestReply> {
  const body = init.raw ?? (init.body === undefined ? undefined : JSON.stringify(init.body));
  const res = await fetch(`${base.replace(/\/+$/, "")}${path}`, {
    method,
    body,
    headers: { ...(body === undefined ? {} : { "content-type": "application/a2a+json" }), ...init.headers },
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, type: mediaType(res), headers: res.headers, text, json };
}

/** A v1.0 user message with one text part. */
export const userMessage = (text: string, extra: object = {}) => ({ messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }], ...extra });

/** POST /message:send with `text`; returns the task (fails the test on anything else). */
export async function sendText(base: string, text: string, extra: { configuration?: object; message?: object; prefix?: string } = {}): Promise<any> {
  const r = await rest(base, "POST", `${extra.prefix ?? ""}/message:send`, { body: { message: userMessage(text, extra.message), configuration: extra.configuration } });
  expect(r.status, r.text).toBe(200);
  expect(r.json.task, r.text).toBeDefined();
  return r.json.task;
}

/**
 * Expects the §11.6 google.rpc.Status body: HTTP status = error.code, the
 * google.rpc.Code name in error.status, a message, and (for A2A errors) an
 * ErrorInfo with `reason` and domain a2a-protocol.org.
 */
export function expectStatusError(r: RestReply, httpStatus: number, status: string, reason?: string): void {
  expect(r.status, r.text).toBe(httpStatus);
  expect(r.type).toBe("application/a2a+json");
  expect(r.json?.error, r.text).toMatchObject({ code: httpStatus, status, message: expect.any(String) });
  expect(Array.isArray(r.json.error.details)).toBe(true);
  const infos = r.json.error.details.filter((d: any) => d["@type"] === "type.googleapis.com/google.rpc.ErrorInfo");
  if (reason === undefined) expect(infos).toEqual([]);
  else expect(infos).toEqual([expect.objectContaining({ reason, domain: "a2a-protocol.org" })]);
}

/** The fields named by the google.rpc.BadRequest details of a status body. */
export function violatedFields(r: RestReply): string[] {
  return (r.json?.error?.details ?? [])
    .filter((d: any) => d["@type"] === "type.googleapis.com/google.rpc.BadRequest")
    .flatMap((d: any) => d.fieldViolations.map((v: any) => v.field));
}

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

/** A streaming request's answer: SSE `events`, or a plain reply when the server refused before streaming. */
export interface RestStream {
  readonly status: number;
  readonly type: string;
  readonly headers: Headers;
  readonly json?: any;
  readonly events?: AsyncGenerator<SseMessage>;
  readonly abort: AbortController;
}

/** Opens a streaming route (POST /message:stream, GET or POST /tasks/{id}:subscribe). */
export async function openStream(base: string, method: string, path: string, init: RestInit = {}): Promise<RestStream> {
  const abort = new AbortController();
  const body = init.raw ?? (init.body === undefined ? undefined : JSON.stringify(init.body));
  const res = await fetch(`${base.replace(/\/+$/, "")}${path}`, {
    method,
    body,
    headers: { accept: "text/event-stream", ...(body === undefined ? {} : { "content-type": "application/a2a+json" }), ...init.headers },
    signal: abort.signal,
  });
  const type = mediaType(res);
  if (type !== "text/event-stream") return { status: res.status, type, headers: res.headers, json: await res.json(), abort };
  return { status: res.status, type, headers: res.headers, events: sseMessages(res.body!), abort };
}

/** Every data event of a stream, until it closes. */
export async function dataEvents(events: AsyncGenerator<SseMessage>): Promise<SseMessage[]> {
  const out: SseMessage[] = [];
  for await (const e of events) if (e.data !== undefined) out.push(e);
  return out;
}

/** What a test mounts: a REST handler of its own (options, a wrapped service) ahead of the hub's. */
export interface RestMount {
  readonly hub?: HubOptions;
  readonly handler?: Partial<RestHandlerOptions>;
  readonly wrap?: (service: A2AServiceApi) => A2AServiceApi;
}

/** A hub whose REST paths are answered by a handler built with the mount's options (JSON-RPC and cards stay the hub's). */
export async function startRestHub(mount: RestMount): Promise<TestHub> {
  let handler: RestHandler | undefined;
  return startTestHub({
    ...mount.hub,
    routes: [
      (req, res, hub) => {
        // JSON-RPC's POST / and the cards stay the hub's.
        const path = (req.url ?? "/").split("?")[0]!;
        if (path === "/" || path.startsWith("/.well-known/")) return false;
        handler ??= createRestHandler({
          service: mount.wrap ? mount.wrap(hub.core.service) : hub.core.service,
          card: (r) => hub.cardFor(r),
          logger: silentLogger,
          ...mount.handler,
        });
        return handler(req, res);
      },
    ],
  });
}

function mediaType(res: Response): string {
  return (res.headers.get("content-type") ?? "").split(";")[0]!.trim();
}
