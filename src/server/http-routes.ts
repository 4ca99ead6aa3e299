import { sendJson, type HttpRequest, type HttpResponse } from "../bindings/http/index.js";
import { cardDocument, type CardSigner } from "../cards/index.js";
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

/** Where the JWKS of the card signing keys is served unless configured. */
export const DEFAULT_JWKS_PATH = "/.well-known/jwks.json";

/** §8.4: card signing as the router uses it: the signer and the JWKS path its `jku` names. */
export interface CardSigning {
  readonly signer: CardSigner;
  readonly jwksPath: string;
}

/**
 * §8.6: serves a card with Cache-Control and an ETag, answering 304 to a
 * matching If-None-Match. With signing, the finished card is signed first
 * (§8.4), so the ETag covers the signatures too.
 */
export async function sendCard(req: HttpRequest, res: HttpResponse, card: AgentCard, signing?: CardSigning, publicBaseUrl?: string): Promise<void> {
  if (signing) card = await signing.signer.sign(card, new URL(signing.jwksPath, requestBaseUrl(req, publicBaseUrl)).toString());
  const doc = cardDocument(card);
  const headers = { etag: doc.etag, "cache-control": `public, max-age=${CARD_MAX_AGE_S}` };
  const match = req.headers["if-none-match"];
  const tags = (Array.isArray(match) ? match.join(",") : match ?? "").split(",").map((t) => t.trim().replace(/^W\//, ""));
  if (tags.includes(doc.etag) || tags.includes("*")) {
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
