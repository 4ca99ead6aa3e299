import { sendJson, type HttpRequest, type HttpResponse } from "../bindings/http/index.js";
import { cardDocument } from "../cards/index.js";
import type { AgentCard } from "../../gen/a2a/v1/a2a_pb.js";

export type { HttpRequest, HttpResponse };
export type HttpHandler = (req: HttpRequest, res: HttpResponse) => void | Promise<void>;

/** §8.2: the well-known path of the public agent card. */
export const WELL_KNOWN_CARD_PATH = "/.well-known/agent-card.json";

/** §8.6.1: how long clients may cache a card before revalidating it (seconds). */
const CARD_MAX_AGE_S = 300;

/**
 * §8.6: serves a card with Cache-Control and an ETag, answering 304 to a
 * matching If-None-Match. `vary` names the request headers its URLs were
 * built from: such a card is the answer for that request only, so it is
 * never offered to shared caches (a forged Host must not reach another
 * client through a proxy's cache).
 */
export function sendCard(req: HttpRequest, res: HttpResponse, card: AgentCard, vary: readonly string[] = []): void {
  const doc = cardDocument(card);
  const headers: Record<string, string> = {
    etag: doc.etag,
    "cache-control": `${vary.length > 0 ? "private" : "public"}, max-age=${CARD_MAX_AGE_S}`,
    ...(vary.length > 0 ? { vary: vary.join(", ") } : {}),
  };
  const match = req.headers["if-none-match"];
  const tags = (Array.isArray(match) ? match.join(",") : match ?? "").split(",").map((t) => t.trim().replace(/^W\//, ""));
  if (tags.includes(doc.etag) || tags.includes("*")) {
    (res as import("node:http").ServerResponse).writeHead(304, headers);
    res.end();
    return;
  }
  sendJson(res, 200, JSON.parse(doc.body), headers);
}

/** RFC 9112 §3.2: a request whose Host (or forwarded host) cannot be a URL's authority is refused. */
export function sendBadHost(res: HttpResponse, message: string): void {
  sendJson(res, 400, { error: { code: 400, status: "INVALID_ARGUMENT", message } });
}

/** The answer for paths nothing serves. */
export function sendNotFound(req: HttpRequest, res: HttpResponse): void {
  sendJson(res, 404, { error: { code: 404, status: "NOT_FOUND", message: `nothing is served at ${req.method} ${req.url}` } });
}
