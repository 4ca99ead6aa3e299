import { AgentCardSchema, type AgentCard } from "../../gen/a2a/v1/a2a_pb.js";
import { A2AError, dialectV03, VERSION_HEADER } from "../protocol/index.js";
import { clientFailureOf, invalidResponse } from "./client-failure.js";
import { httpCall, readJson, throwHttpError } from "./http-call.js";
import { decodeResult } from "./proto-json.js";

/** §8.2: the well-known path of an agent card, under a server's base URL. */
export const WELL_KNOWN_CARD_PATH = "/.well-known/agent-card.json";

/**
 * The URLs a card is looked for at, in order: a URL naming a JSON document
 * (path ending in `.json`) is the card itself; any other URL is a base URL
 * whose well-known card is read (§8.2, below its path as the SDKs do), and
 * when that path is not the root, `<url>/agent-card.json` after it (where
 * arbiter and a2a-hub serve each agent's card).
 */
export function cardUrlsOf(url: string): string[] {
  const u = new URL(url);
  if (u.pathname.endsWith(".json")) return [u.toString()];
  const path = u.pathname.replace(/\/+$/, "");
  const at = (p: string): string => {
    const c = new URL(u);
    c.pathname = p;
    return c.toString();
  };
  return path === "" ? [at(WELL_KNOWN_CARD_PATH)] : [at(`${path}${WELL_KNOWN_CARD_PATH}`), at(`${path}/agent-card.json`)];
}

/** The first URL a card is looked for at (see cardUrlsOf). */
export function cardUrlOf(url: string): string {
  return cardUrlsOf(url)[0]!;
}

/**
 * A card document as the v1.0 AgentCard. A card with supportedInterfaces
 * is read as v1.0 ProtoJSON (§5.5, unknown fields ignored: our own cards
 * also carry the v0.3 fields); one without is a v0.3 card whose `url`,
 * `preferredTransport` and `additionalInterfaces` become interfaces through
 * the server's own v0.3 dialect.
 */
export function parseAgentCard(json: unknown): AgentCard {
  if (typeof json !== "object" || json === null || Array.isArray(json)) throw invalidResponse("the agent card is not a JSON object");
  const doc = json as Record<string, unknown>;
  const v1 = Array.isArray(doc.supportedInterfaces) && doc.supportedInterfaces.length > 0;
  if (!v1 && typeof doc.url !== "string" && typeof doc.agentCardUrlTemplate === "string") {
    // A discovery document of a server hosting several agents (as arbiter's), not a card.
    throw new A2AError("InvalidParams", `this server hosts several agents; use the URL of one agent's card: ${doc.agentCardUrlTemplate}`);
  }
  return decodeResult(AgentCardSchema, v1 ? doc : dialectV03.v03ToV1AgentCard(doc), "the agent card");
}

/** Options of a card fetch. */
export interface CardFetchOptions {
  /** Sent as a bearer token: some agents serve their card only to known callers. */
  readonly token?: string;
  readonly signal: AbortSignal;
  /** The fetch to read it with; default the global one. */
  readonly fetch?: typeof fetch;
}

/**
 * Fetches and parses an agent card. A2A-Version 1.0 is sent so that a
 * server serving both versions' cards (by that header, as @a2a-js/sdk's
 * compatibility layer does) answers with the v1.0 one.
 */
export async function fetchAgentCard(url: string, options: CardFetchOptions): Promise<AgentCard> {
  const headers: Record<string, string> = { accept: "application/json", [VERSION_HEADER]: "1.0" };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const candidates = cardUrlsOf(url);
  for (let i = 0; ; i++) {
    const cardUrl = candidates[i]!;
    const response = await httpCall({ method: "GET", url: cardUrl, headers, signal: options.signal, fetch: options.fetch });
    if (response.ok) return parseAgentCard(await readJson(response, `the agent card at ${cardUrl}`));
    try {
      await throwHttpError(response);
    } catch (e) {
      if (response.status === 404 && i + 1 < candidates.length && clientFailureOf(e)) continue;
      throw e;
    }
  }
}
