import { readReply, type HttpReply } from "./http-reply.js";
import { openSse, type SseStream } from "./sse.js";

/** A JSON-RPC 2.0 request object; `params` is left out when undefined. */
export const rpc = (method: string, params?: unknown, id: unknown = 1) => ({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });

/** POSTs a body (JSON-encoded unless a string) as application/json and reads the answer. */
export async function post(url: string, body: string | object, headers: Record<string, string> = {}): Promise<HttpReply> {
  const res = await fetch(url, { method: "POST", body: typeof body === "string" ? body : JSON.stringify(body), headers: { "content-type": "application/json", ...headers } });
  return readReply(res);
}

/** Calls `method` with id 1 and returns its result (undefined when it failed). */
export async function call(url: string, method: string, params: unknown): Promise<any> {
  return (await post(url, rpc(method, params))).json.result;
}

/** Calls a streaming method (id "s" unless given), asking for text/event-stream. */
export async function openRpcStream(url: string, method: string, params: unknown, options: { id?: unknown; headers?: Record<string, string> } = {}): Promise<SseStream> {
  return openSse(url, { method: "POST", body: JSON.stringify(rpc(method, params, options.id ?? "s")), headers: { "content-type": "application/json", ...options.headers } });
}
