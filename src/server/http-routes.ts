import { sendJson, type HttpRequest, type HttpResponse } from "../bindings/http/index.js";
import { cardDocument, cardFormFor } from "../cards/index.js";
import type { AgentCard } from "../../gen/a2a/v1/a2a_pb.js";

export type { HttpRequest, HttpResponse };
export type HttpHandler = (req: HttpRequest, res: HttpResponse) => void | Promise<void>;

/** §8.2: the well-known path of the public agent card. */
export const WELL_KNOWN_CARD_PATH = "/.well-known/agent-card.json";

/** §8.6.1: how long clients may cache a card before revalidating it (seconds). */
const CARD_MAX_AGE_S = 300;

/** The base URL clients reached us at: the configured one, else the request's Host (issue: card URLs). */
export function requestBaseUrl(req: HttpRequest, configured: string | undefined): string {
  if (configured) return configured;
  const host = (req.headers[":authority"] as string | undefined) ?? req.headers.host ?? "127.0.0.1";
  return `http://${host}/`;
}

/**
 * §8.6: serves a card in the form its A2A-Version asks for (§3.6.2), with
 * Cache-Control, an ETag per form, Last-Modified (`since`: when the hub
 * built its cards from its configuration) and Vary: A2A-Version, answering
 * 304 to a matching If-None-Match or, without one, to an If-Modified-Since
 * not before Last-Modified (RFC 9110 §13.1.3).
 */
export function sendCard(req: HttpRequest, res: HttpResponse, card: AgentCard, since: Date): void {
  const version = req.headers["a2a-version"];
  const doc = cardDocument(card, cardFormFor(Array.isArray(version) ? version[0] : version));
  const lastModified = new Date(Math.floor(since.getTime() / 1000) * 1000);
  const headers = { etag: doc.etag, "last-modified": lastModified.toUTCString(), vary: "A2A-Version", "cache-control": `public, max-age=${CARD_MAX_AGE_S}` };
  const match = req.headers["if-none-match"];
  const tags = (Array.isArray(match) ? match.join(",") : match ?? "").split(",").map((t) => t.trim().replace(/^W\//, ""));
  const modifiedSince = match === undefined ? Date.parse(req.headers["if-modified-since"] ?? "") : NaN;
  if (tags.includes(doc.etag) || tags.includes("*") || modifiedSince >= lastModified.getTime()) {
    (res as import("node:http").ServerResponse).writeHead(304, headers);
    res.end();
    return;
  }
  sendJson(res, 200, JSON.parse(doc.body), headers);
}

/** The answer for paths nothing serves. */
export function sendNotFound(req: HttpRequest, res: HttpResponse): void {
  sendJson(res, 404, { error: { code: 404, status: "NOT_FOUND", message: `nothing is served at ${req.method} ${req.url}` } });
}
