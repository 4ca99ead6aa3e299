import type * as http from "node:http";
import type * as http2 from "node:http2";
import { toJson } from "@bufbuild/protobuf";
import { AgentCardSchema, type AgentCard } from "../../gen/a2a/v1/a2a_pb.js";

export type HttpRequest = http.IncomingMessage | http2.Http2ServerRequest;
export type HttpResponse = http.ServerResponse | http2.Http2ServerResponse;
export type HttpHandler = (req: HttpRequest, res: HttpResponse) => void | Promise<void>;

/** §8.2: the well-known path of the public agent card. */
export const WELL_KNOWN_CARD_PATH = "/.well-known/agent-card.json";

/** The base URL clients reached us at: the configured one, else the request's Host (issue: card URLs). */
export function requestBaseUrl(req: HttpRequest, configured: string | undefined): string {
  if (configured) return configured;
  const host = (req.headers[":authority"] as string | undefined) ?? req.headers.host ?? "127.0.0.1";
  return `http://${host}/`;
}

/** Writes a JSON body with a status. */
export function sendJson(res: HttpResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  (res as http.ServerResponse).writeHead(status, {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

/** Serves an agent card as ProtoJSON (§5.5 camelCase names). */
export function sendCard(res: HttpResponse, card: AgentCard): void {
  sendJson(res, 200, toJson(AgentCardSchema, card), { "cache-control": "public, max-age=60" });
}

/** The answer for paths nothing serves. */
export function sendNotFound(req: HttpRequest, res: HttpResponse): void {
  sendJson(res, 404, { error: { code: 404, status: "NOT_FOUND", message: `nothing is served at ${req.method} ${req.url}` } });
}
