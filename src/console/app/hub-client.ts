import { fromJson, type JsonValue } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { A2AService, AgentCardSchema, type AgentCard } from "../../../gen/a2a/v1/a2a_pb.js";
import { recordingFetch } from "./wire-log.js";

const TOKEN_KEY = "a2a-hub.console.token";

/** The bearer token, kept for this tab only (sessionStorage), never in localStorage or a cookie. */
export const token = {
  get: (): string => sessionStorage.getItem(TOKEN_KEY) ?? "",
  set: (value: string): void => (value ? sessionStorage.setItem(TOKEN_KEY, value) : sessionStorage.removeItem(TOKEN_KEY)),
};

/** Authorization headers for the current token, if any. */
export function authHeaders(): Record<string, string> {
  const t = token.get();
  return t ? { authorization: `Bearer ${t}` } : {};
}

const bearer: Interceptor = (next) => (req) => {
  const t = token.get();
  if (t) req.header.set("authorization", `Bearer ${t}`);
  return next(req);
};

/**
 * The hub's A2A service over Connect (JSON, HTTP/1.1) from the page's own
 * origin: the same public API any browser client uses. Every request and
 * response frame is recorded for the raw pane.
 */
export const hub: Client<typeof A2AService> = createClient(
  A2AService,
  createConnectTransport({ baseUrl: location.origin, fetch: recordingFetch, interceptors: [bearer] }),
);

/** An agent the token may use, where its card is, and the card as the catalog gave it. */
export interface CatalogEntry {
  readonly id: string;
  readonly cardUrl: string;
  readonly card?: unknown;
}

/** The catalog's answer: the agents, or why there are none to show. */
export type Catalog =
  | { readonly ok: true; readonly agents: readonly CatalogEntry[] }
  | { readonly ok: false; readonly status: number; readonly message: string };

/** The agents the current token may use: the hub's public card catalog, v1.0 cards. */
export async function loadCatalog(): Promise<Catalog> {
  const res = await fetch(`${location.origin}/v1/a2a/agents`, { headers: { ...authHeaders(), "a2a-version": "1.0" }, cache: "no-cache" });
  const body = (await res.json().catch(() => ({}))) as { agents?: CatalogEntry[]; error?: { message?: string } };
  if (!res.ok) return { ok: false, status: res.status, message: body.error?.message ?? `HTTP ${res.status}` };
  return { ok: true, agents: body.agents ?? [] };
}

/** A fetched card: raw JSON as served, the typed card when it parses, and why not otherwise. */
export interface FetchedCard {
  readonly entry: CatalogEntry;
  readonly raw?: unknown;
  readonly card?: AgentCard;
  readonly error?: string;
}

/**
 * Reads an agent's card as the v1.0 AgentCard: the one the catalog listed,
 * else fetched from its card URL with the bearer token.
 */
export async function fetchCard(entry: CatalogEntry): Promise<FetchedCard> {
  let raw: unknown = entry.card;
  if (raw === undefined) {
    try {
      const res = await fetch(entry.cardUrl, { headers: { ...authHeaders(), accept: "application/json", "a2a-version": "1.0" }, cache: "no-cache" });
      if (!res.ok) return { entry, error: `the card URL answered HTTP ${res.status}` };
      raw = await res.json();
    } catch (e) {
      return { entry, error: `the card URL did not answer (${e instanceof Error ? e.message : String(e)})` };
    }
  }
  try {
    return { entry, raw, card: fromJson(AgentCardSchema, raw as JsonValue, { ignoreUnknownFields: true }) };
  } catch (e) {
    return { entry, raw, error: `the card is not a valid v1.0 AgentCard: ${e instanceof Error ? e.message : String(e)}` };
  }
}

let loaded: Promise<{ catalog: Catalog; cards: FetchedCard[] }> | undefined;

/** The catalog and every usable agent's card, fetched once per token (forgetCards() when the token changes). */
export function allCards(): Promise<{ catalog: Catalog; cards: FetchedCard[] }> {
  loaded ??= (async () => {
    const catalog = await loadCatalog();
    return { catalog, cards: catalog.ok ? await Promise.all(catalog.agents.map(fetchCard)) : [] };
  })().catch((e: unknown) => {
    loaded = undefined;
    throw e;
  });
  return loaded;
}

/** Drops the cached catalog and cards, e.g. when the token changes. */
export function forgetCards(): void {
  loaded = undefined;
}

/** An error as the console shows it: a Connect error by its code's name (NotFound, Unauthenticated, …) and message. */
export function errorText(e: unknown): string {
  if (e instanceof ConnectError) return `${Code[e.code] ?? e.code}: ${e.rawMessage}`;
  return e instanceof Error ? e.message : String(e);
}
