import { create, toJson, type JsonObject } from "@bufbuild/protobuf";
import { AgentCardSchema, type AgentCard } from "../../gen/a2a/v1/a2a_pb.js";
import type { AccessGuard } from "../auth/index.js";
import { sendJson, type HttpRequest, type HttpResponse } from "../bindings/http/index.js";
import { cardSecurityFields, documentOf, publicCard, type ServedInterface } from "../cards/index.js";
import type { A2ACore } from "../core/index.js";
import { sendAgentCatalog } from "./agent-catalog-route.js";
import { cardSecurity, type CardSecurity } from "./card-security-of.js";
import { sendCard, sendDocument, WELL_KNOWN_CARD_PATH, type CardSigning } from "./card-responses.js";
import { requestOrigin, TrustedProxies, type OriginPolicy } from "./request-origin.js";

/** Where each agent's own endpoints live (as arbiter serves them). */
export const AGENT_BASE = "/v1/a2a/agents/";

/** The bindings the root endpoints serve (§8.3.1); all answer on the one port. */
export const ROOT_INTERFACES: readonly ServedInterface[] = [
  { protocolBinding: "JSONRPC", path: "/", protocolVersion: "1.0" },
  // §3.6.2: the same endpoint speaks the v0.3 dialect to clients that ask for it.
  { protocolBinding: "JSONRPC", path: "/", protocolVersion: "0.3" },
  { protocolBinding: "GRPC", path: "/", protocolVersion: "1.0" },
  // §11.3: the REST routes at the root, beside JSON-RPC's POST / (no path collides).
  { protocolBinding: "HTTP+JSON", path: "/", protocolVersion: "1.0" },
  // v0.3's gRPC service (a2a.v1) on the same port, and its HTTP+JSON routes under /v1/ of the same base.
  { protocolBinding: "GRPC", path: "/", protocolVersion: "0.3" },
  { protocolBinding: "HTTP+JSON", path: "/", protocolVersion: "0.3" },
];

/** An agent's own interfaces: its path for the HTTP bindings, its id as the gRPC `tenant` (§8.3.2). */
export function agentInterfaces(agentId: string): ServedInterface[] {
  const path = `${AGENT_BASE}${encodeURIComponent(agentId)}`;
  return [
    { protocolBinding: "JSONRPC", path, protocolVersion: "1.0" },
    { protocolBinding: "JSONRPC", path, protocolVersion: "0.3" },
    { protocolBinding: "GRPC", path: "/", protocolVersion: "1.0", tenant: agentId },
    { protocolBinding: "HTTP+JSON", path, protocolVersion: "1.0" },
    // v0.3 HTTP+JSON under the agent's base; v0.3 gRPC has no `tenant` to name an agent by, so it is the root card's only.
    { protocolBinding: "HTTP+JSON", path, protocolVersion: "0.3" },
  ];
}

/** What the card routes need. */
export interface CardRoutesOptions {
  readonly core: A2ACore;
  readonly guard: AccessGuard;
  readonly publicBaseUrl?: string;
  /** Peers whose Forwarded / X-Forwarded-* headers are believed (see TrustedProxies). */
  readonly trustedProxies?: TrustedProxies;
  /** §8.4: sign every served card and serve the keys' JWKS. */
  readonly cardSigning?: CardSigning;
}

/** Where a request reached the hub, as the card routes build URLs from it. */
interface Origin {
  readonly baseUrl: string;
  /** The request headers the URLs were built from (a card built so is never shared). */
  readonly vary: readonly string[];
}

/** The agent cards, their JWKS and the catalog, each answered with URLs as the request reached the hub. */
export interface CardRoutes {
  /** The public card of an agent (the default one at the root), with URLs as the request reached us. */
  cardFor(req: HttpRequest, agentId?: string): AgentCard;
  /** The public card of one agent; undefined when there is no such agent. */
  agentCard(req: HttpRequest, agentId: string): AgentCard | undefined;
  /** The JWKS (§8.4) and the well-known card (§8.2), which anyone may read; false for any other request. */
  servePublic(req: HttpRequest, res: HttpResponse, path: string, origin: Origin): boolean | Promise<void>;
  /** An agent's own card (§8.3), for a caller admitted to it. */
  sendAgentCard(req: HttpRequest, res: HttpResponse, card: AgentCard, origin: Origin): Promise<void>;
  /** The cards of the agents `tenant` may call (the catalog). */
  sendCatalog(req: HttpRequest, res: HttpResponse, tenant: string, origin: Origin): Promise<void>;
}

export function createCardRoutes(options: CardRoutesOptions): CardRoutes {
  const { core, guard } = options;
  // Read per request: a reload may turn authentication on or off.
  const security = (): CardSecurity | undefined => cardSecurity(guard);
  const origins: OriginPolicy = { publicUrl: options.publicBaseUrl, trustedProxies: options.trustedProxies ?? new TrustedProxies() };
  /** The base URL of the request; the dispatch has refused requests whose host is not valid, so this is a fallback only. */
  const baseUrl = (req: HttpRequest): string => {
    const o = requestOrigin(req, origins);
    return o.ok ? o.baseUrl : "http://127.0.0.1/";
  };
  const agentCard = (req: HttpRequest, agentId: string): AgentCard | undefined => {
    const agent = core.agents.get(agentId);
    return agent && publicCard(agent, baseUrl(req), agentInterfaces(agentId), { security: security(), agentScopes: guard.scopes.agentScopes.get(agentId) });
  };
  const rootCard = (req: HttpRequest): AgentCard =>
    publicCard(core.agents.get(core.agents.defaultAgentId)!, baseUrl(req), ROOT_INTERFACES, { security: security(), agentScopes: guard.scopes.agentScopes.get(core.agents.defaultAgentId) });
  const cardUrl = (req: HttpRequest, id: string): string => `${baseUrl(req).replace(/\/$/, "")}${AGENT_BASE}${encodeURIComponent(id)}/agent-card.json`;
  // Cards are built from the configuration, fixed since start: their Last-Modified (§8.6).
  const cardsSince = new Date();
  const signing = options.cardSigning;

  return {
    cardFor: (req, agentId) => (agentId !== undefined && agentCard(req, agentId)) || rootCard(req),
    agentCard,
    servePublic(req, res, path, origin) {
      if (req.method !== "GET") return false;
      if (signing && path === signing.jwksPath) {
        sendJson(res, 200, signing.signer.jwks, { "cache-control": "public, max-age=300" });
        return true;
      }
      if (path !== WELL_KNOWN_CARD_PATH) return false;
      // §8.2; with several agents, arbiter's minimal stub: it names no agent.
      if (core.agents.all().length === 1) return sendCard(req, res, rootCard(req), { since: cardsSince, vary: origin.vary, signing, baseUrl: origin.baseUrl });
      const caching: Record<string, string> =
        origin.vary.length > 0 ? { "cache-control": "private, max-age=300", vary: origin.vary.join(", ") } : { "cache-control": "public, max-age=300" };
      sendDocument(req, res, documentOf(discoveryStub(origin.baseUrl, security())), cardsSince, caching);
      return true;
    },
    sendAgentCard: (req, res, card, origin) => sendCard(req, res, card, { since: cardsSince, vary: origin.vary, signing, baseUrl: origin.baseUrl }),
    sendCatalog(req, res, tenant, origin) {
      const agents = core.agents
        .all()
        .filter((agent) => guard.mayCall(tenant, agent.id))
        .map((agent) => ({ id: agent.id, cardUrl: cardUrl(req, agent.id), card: agentCard(req, agent.id)! }));
      return sendAgentCatalog(req, res, agents, { signing, baseUrl: origin.baseUrl });
    },
  };
}

/** The unauthenticated discovery document of a hub with several agents. */
function discoveryStub(base: string, security: CardSecurity | undefined): JsonObject {
  const fields = security && cardSecurityFields(security);
  const template = `${base.replace(/\/$/, "")}${AGENT_BASE}{agentId}/agent-card.json`;
  return {
    name: "a2a-hub",
    description: `This server hosts several A2A agents. ${fields ? "Authenticate with 'Authorization: Bearer <token>' and fetch" : "Fetch"} an agent's card at ${template}.`,
    agentCardUrlTemplate: template,
    // §4.5: the same schemes every agent card declares.
    ...(fields ? pickSecurity(toJson(AgentCardSchema, create(AgentCardSchema, fields)) as JsonObject) : {}),
  };
}

function pickSecurity(card: JsonObject): JsonObject {
  return { securitySchemes: card.securitySchemes ?? {}, securityRequirements: card.securityRequirements ?? [] };
}
