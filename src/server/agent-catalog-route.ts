import type { AgentCard } from "../../gen/a2a/v1/a2a_pb.js";
import { sendJson, type HttpRequest, type HttpResponse } from "../bindings/http/index.js";
import { cardDocument, cardFormFor } from "../cards/index.js";
import type { CardSigning } from "./card-responses.js";

/** Where the hub lists the cards of its agents, beside each agent's own `/v1/a2a/agents/:id/agent-card.json`. */
export const AGENT_CATALOG_PATH = "/v1/a2a/agents";

/** One agent the caller may use: its id, where its own card lives, and that card. */
export interface CatalogAgent {
  readonly id: string;
  readonly cardUrl: string;
  readonly card: AgentCard;
}

/**
 * §8.2 "curated discovery": A2A defines no listing call, and the well-known
 * document of a several-agent hub names no agent, so a client that may use
 * several agents here learns them from this one public document. The caller
 * has already been admitted (the same 401/429 as the per-agent card) and
 * `agents` holds only those its token may call. Each card takes the form
 * the request's A2A-Version asks for (§3.6.2) and is signed when cards are
 * (§8.4), so an entry is the very card its `cardUrl` serves.
 */
export async function sendAgentCatalog(
  req: HttpRequest,
  res: HttpResponse,
  agents: readonly CatalogAgent[],
  options: { readonly signing?: CardSigning; readonly baseUrl: string },
): Promise<void> {
  const version = req.headers["a2a-version"];
  const form = cardFormFor(Array.isArray(version) ? version[0] : version);
  const { signing, baseUrl } = options;
  const jku = signing && new URL(signing.jwksPath, baseUrl).toString();
  const listed = await Promise.all(
    agents.map(async (a) => {
      const card = signing ? await signing.signer.sign(a.card, jku) : a.card;
      return { id: a.id, cardUrl: a.cardUrl, card: JSON.parse(cardDocument(card, form).body) as unknown };
    }),
  );
  // What a token may see differs per token: never offered to a shared cache.
  sendJson(res, 200, { agents: listed }, { "cache-control": "private, no-cache", vary: "A2A-Version, Authorization" });
}
