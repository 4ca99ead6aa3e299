import { expect } from "vitest";
import { createRestHandler, type RestHandlerOptions } from "../../src/bindings/rest/index.js";
import { readReply, type HttpReply } from "./http-reply.js";
import { userMessage } from "./json-messages.js";
import { handlerBase, startMountedHub, type HandlerMount } from "./mounted-hub.js";
import { openSse, type SseStream } from "./sse.js";
import type { TestHub } from "./test-hub.js";

/** One REST answer, body read in full. */
export type RestReply = HttpReply;

/** What to send: a JSON `body`, or `raw` text as it is. */
export interface RestInit {
  readonly body?: unknown;
  readonly raw?: string;
  readonly headers?: Record<string, string>;
}

/** Sends one request to `base` + `path` and reads the answer. */
export async function rest(base: string, method: string, path: string, init: RestInit = {}): Promise<RestReply> {
  const { url, body, headers } = restRequest(base, path, init);
  return readReply(await fetch(url, { method, body, headers }));
}

/** A v1.0 user message with one text part (re-exported for the REST tests). */
export { userMessage };

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
  // §11.1: either JSON type, as the request's Accept prefers (test/bindings/rest/rest-media-types.test.ts pins which).
  expect(["application/json", "application/a2a+json"]).toContain(r.type);
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

/** A streaming request's answer: SSE `events`, or a plain reply when the server refused before streaming. */
export type RestStream = SseStream;

/** Opens a streaming route (POST /message:stream, GET or POST /tasks/{id}:subscribe). */
export async function openStream(base: string, method: string, path: string, init: RestInit = {}): Promise<RestStream> {
  const { url, body, headers } = restRequest(base, path, init);
  return openSse(url, { method, body, headers });
}

/** What a test mounts: a REST handler of its own (options, a wrapped service) ahead of the hub's. */
export type RestMount = HandlerMount<RestHandlerOptions>;

/** A hub whose REST paths are answered by a handler built with the mount's options (JSON-RPC and cards stay the hub's). */
export async function startRestHub(mount: RestMount): Promise<TestHub> {
  return startMountedHub(
    mount.hub,
    (req) => {
      // JSON-RPC's POST / and the cards stay the hub's.
      const path = (req.url ?? "/").split("?")[0]!;
      return path !== "/" && !path.startsWith("/.well-known/");
    },
    (hub) => createRestHandler({ ...handlerBase(hub, mount.wrap), ...mount.handler }),
  );
}

/** The URL, body and headers of a REST request: a JSON body goes as application/a2a+json unless the headers say otherwise. */
function restRequest(base: string, path: string, init: RestInit): { url: string; body?: string; headers: Record<string, string> } {
  const body = init.raw ?? (init.body === undefined ? undefined : JSON.stringify(init.body));
  return { url: `${base.replace(/\/+$/, "")}${path}`, body, headers: { ...(body === undefined ? {} : { "content-type": "application/a2a+json" }), ...init.headers } };
}
