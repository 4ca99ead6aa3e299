import { clientFailure, invalidResponse } from "./client-failure.js";
import { exchangeFailureOf, fromHttpError, fromJsonRpcError } from "./binding-errors.js";

/** One HTTP request of the JSON bindings. */
export interface HttpCallInit {
  readonly method: "GET" | "POST" | "DELETE";
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** A JSON body, serialised here. */
  readonly body?: unknown;
  readonly signal: AbortSignal;
  /** The fetch to send it with; default the global one. */
  readonly fetch?: typeof fetch;
}

/**
 * Sends a request and returns the response once its head arrived. A
 * network failure is UNAVAILABLE; an abort is rethrown as it is so that the
 * client can tell its deadline from the caller's cancel.
 */
export async function httpCall(init: HttpCallInit): Promise<Response> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.body !== undefined) headers["content-type"] ??= "application/json";
  try {
    return await (init.fetch ?? fetch)(init.url, {
      method: init.method,
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: init.signal,
      redirect: "follow",
    });
  } catch (e) {
    if (init.signal.aborted) throw e;
    const cause = e instanceof Error && e.cause instanceof Error ? e.cause.message : e instanceof Error ? e.message : String(e);
    throw clientFailure("UNAVAILABLE", `cannot reach ${init.url}: ${cause}`, e);
  }
}

/** The JSON of a response body; InvalidAgentResponse when it is not JSON. */
export async function readJson(response: Response, what: string): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch (e) {
    throw invalidResponse(`${what} is not JSON (HTTP ${response.status}, ${response.headers.get("content-type") ?? "no content type"}): ${text.slice(0, 120)}`, e);
  }
}

/**
 * Throws the A2A reading of a non-2xx response (its body read as JSON when
 * it is). With `jsonRpc`, a JSON-RPC error in the body is read as such
 * (§9.5), unless the status is about access or availability.
 */
export async function throwHttpError(response: Response, jsonRpc = false): Promise<never> {
  const text = await response.text().catch(() => "");
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = text.trim() ? { message: text.trim().slice(0, 200) } : undefined;
  }
  const rpcError = jsonRpc && typeof body === "object" && body !== null && "jsonrpc" in body ? (body as { error?: unknown }).error : undefined;
  if (rpcError !== undefined && !exchangeFailureOf(response.status)) throw fromJsonRpcError(rpcError);
  throw fromHttpError(response.status, response.statusText, body);
}

/** Whether a response is an event stream. */
export function isEventStream(response: Response): boolean {
  return (response.headers.get("content-type") ?? "").toLowerCase().startsWith("text/event-stream");
}
