import { sendJson, type HttpRequest, type HttpResponse } from "../bindings/http/index.js";
import { cardDocument, cardFormFor, type CardDocument, type CardSigner } from "../cards/index.js";
import type { AgentCard } from "../../gen/a2a/v1/a2a_pb.js";


/** §8.2: the well-known path of the public agent card. */
export const WELL_KNOWN_CARD_PATH = "/.well-known/agent-card.json";

/** §8.6.1: how long clients may cache a card before revalidating it (seconds). */
const CARD_MAX_AGE_S = 300;

/** Where the JWKS of the card signing keys is served unless configured. */
export const DEFAULT_JWKS_PATH = "/.well-known/jwks.json";

/** §8.4: card signing as the router uses it: the signer and the JWKS path its `jku` names. */
export interface CardSigning {
  readonly signer: CardSigner;
  readonly jwksPath: string;
}

/**
 * §8.6: serves a card in the form its A2A-Version asks for (§3.6.2), with
 * Cache-Control, an ETag per form, Last-Modified (`since`: when the hub
 * built its cards from its configuration) and Vary: A2A-Version, answering
 * 304 to a matching If-None-Match or, without one, to an If-Modified-Since
 * not before Last-Modified (RFC 9110 §13.1.3).
 *
 * `vary` names the request headers its URLs were built from: such a card
 * is the answer for that request only, so it is never offered to shared
 * caches (a forged Host must not reach another client through a proxy's
 * cache). With signing, the finished card is signed first (§8.4), its
 * `jku` under `baseUrl`, so the ETag covers the signatures.
 */
export async function sendCard(
  req: HttpRequest,
  res: HttpResponse,
  card: AgentCard,
  options: { readonly since: Date; readonly vary?: readonly string[]; readonly signing?: CardSigning; readonly baseUrl?: string },
): Promise<void> {
  const { since, vary = [], signing, baseUrl } = options;
  if (signing) card = await signing.signer.sign(card, baseUrl ? new URL(signing.jwksPath, baseUrl).toString() : undefined);
  const version = req.headers["a2a-version"];
  const doc = cardDocument(card, cardFormFor(Array.isArray(version) ? version[0] : version));
  sendDocument(req, res, doc, since, {
    vary: ["A2A-Version", ...vary].join(", "),
    "cache-control": `${vary.length > 0 ? "private" : "public"}, max-age=${CARD_MAX_AGE_S}`,
  });
}

/**
 * A document served at a card's path (a card, or the discovery document of
 * a several-agent hub) with its validators: the ETag of its bytes and
 * Last-Modified (`since`, whole seconds as HTTP dates carry them); 304 to a
 * matching If-None-Match or, without one, to an If-Modified-Since not
 * before Last-Modified (RFC 9110 §13.1.3, §13.2.2).
 */
export function sendDocument(req: HttpRequest, res: HttpResponse, doc: CardDocument, since: Date, extra: Readonly<Record<string, string>>): void {
  const lastModified = new Date(Math.floor(since.getTime() / 1000) * 1000);
  const headers: Record<string, string> = { etag: doc.etag, "last-modified": lastModified.toUTCString(), ...extra };
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
