import { create, toJson, type JsonObject } from "@bufbuild/protobuf";
import { AgentCardSchema, type AgentCard } from "../../gen/a2a/v1/a2a_pb.js";
import { accessRefusal, type AccessDecision, type AccessGuard } from "../auth/index.js";
import { callScopeOf, identificationOf, sendJson, type HttpRequest, type HttpResponse } from "../bindings/http/index.js";
import { createJsonRpcHandler, type JsonRpcRefusal } from "../bindings/jsonrpc/index.js";
import { createRestHandler, statusBody, toRestFailure } from "../bindings/rest/index.js";
import { cardSecurityFields, documentOf, publicCard, type ServedInterface } from "../cards/index.js";
import { CONSOLE_PATH, createConsoleRoute, FAVICON_PATH } from "../console/index.js";
import type { A2ACore, CallScope, Logger } from "../core/index.js";
import { createMcpRoute, type McpOptions } from "../mcp/index.js";
import { AddressPolicy } from "../push/index.js";
import { AGENT_CATALOG_PATH, sendAgentCatalog } from "./agent-catalog-route.js";
import { cardSecurity, type CardSecurity } from "./card-security-of.js";
import { sendBadHost, sendCard, sendDocument, WELL_KNOWN_CARD_PATH, type CardSigning } from "./card-responses.js";
import { hubIndex } from "./hub-index.js";
import { requestOrigin, TrustedProxies, type OriginPolicy } from "./request-origin.js";

/** Where each agent's own endpoints live (as arbiter serves them). */
export const AGENT_BASE = "/v1/a2a/agents/";
const AGENT_PATH = /^\/v1\/a2a\/agents\/([^/]+)(\/.*)?$/;

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

/** What the router needs. */
export interface HttpRouterOptions {
  readonly core: A2ACore;
  readonly guard: AccessGuard;
  readonly logger: Logger;
  readonly publicBaseUrl?: string;
  /** Peers whose Forwarded / X-Forwarded-* headers are believed (see TrustedProxies). */
  readonly trustedProxies?: TrustedProxies;
  /** Largest JSON-RPC or REST request body (bytes); default 10 MiB. */
  readonly maxBodyBytes?: number;
  /** Deepest nesting of arrays and objects in a JSON-RPC or REST request body; default 64. */
  readonly maxJsonDepth?: number;
  /** §8.4: sign every served card and serve the keys' JWKS. */
  readonly cardSigning?: CardSigning;
  /** The MCP endpoint at /mcp: tools per agent or per skill, and the OAuth issuers its metadata names. */
  readonly mcp?: McpOptions;
  /** Who the console's inspector may reach (the push webhook policy); default public addresses only. */
  readonly outboundPolicy?: AddressPolicy;
  /** Counts and logs an outbound address the inspector's guard refused. */
  readonly onRefusal?: (reason: string, address?: string) => void;
}

/** What a request was found to be, kept for the facades' scope and admission hooks. */
interface Admission {
  readonly decision: AccessDecision;
  readonly scope: CallScope;
  readonly agentId?: string;
}

/** Kept on the request under a private symbol, not in a WeakMap keyed by every request (an ephemeron the GC traces each time). */
const ADMISSION = Symbol("a2a-hub admission");
type Admitted = HttpRequest & { [ADMISSION]?: Admission };


/**
 * Routes the HTTP requests that are not Connect RPCs: the console, the well-known card,
 * each agent's card, the catalog of the cards a token may use, JSON-RPC and REST at the root and under each agent's
 * base path. The one AccessGuard decides every request before a facade
 * sees it (§7.4, §13.1).
 */
export interface HttpRouter {
  handle(req: HttpRequest, res: HttpResponse): Promise<void>;
  /** The public card of an agent (the default one at the root), with URLs as the request reached us. */
  cardFor(req: HttpRequest, agentId?: string): AgentCard;
  /** A graceful stop begins: MCP sessions end their open server-to-client streams. */
  quiesce(): void;
  /** Closes what the router holds open (MCP sessions). */
  close(): Promise<void>;
}

export function createHttpRouter(options: HttpRouterOptions): HttpRouter {
  const { core, guard, logger } = options;
  const admissions = { get: (req: HttpRequest) => (req as Admitted)[ADMISSION] };
  // Read per request: a reload may turn authentication on or off.
  const security = (): CardSecurity | undefined => cardSecurity(guard);

  const origins: OriginPolicy = { publicUrl: options.publicBaseUrl, trustedProxies: options.trustedProxies ?? new TrustedProxies() };
  /** The base URL of the request; handle() has refused requests whose host is not valid, so this is a fallback only. */
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
  /**
   * The card a facade negotiates extensions against (§3.2.6): the addressed agent's, else the default one.
   * Only its declared extensions are read, which the public card copies from the agent's own card: that one
   * is given, not a public card built (interface URLs and all) for every request.
   */
  const cardOf = (req: HttpRequest): AgentCard => {
    const id = admissions.get(req)?.agentId;
    return ((id !== undefined && core.agents.get(id)) || core.agents.get(core.agents.defaultAgentId)!).card;
  };

  const refusal = (req: HttpRequest): JsonRpcRefusal | undefined => {
    const d = admissions.get(req)?.decision;
    if (!d || d.ok || d.why === "unknown-agent") return undefined;
    const r = accessRefusal(d);
    return { httpStatus: r.error.row.httpStatus, headers: r.headers, error: r.error };
  };
  const scopeFor = (req: HttpRequest): CallScope | undefined => admissions.get(req)?.scope;
  const { maxBodyBytes, maxJsonDepth } = options;
  const jsonRpc = createJsonRpcHandler({ service: core.service, card: cardOf, scopeFor, admit: refusal, logger, maxBodyBytes, maxJsonDepth });
  const rest = createRestHandler({ service: core.service, card: cardOf, scopeFor, logger, maxBodyBytes, maxJsonDepth });

  /** `binding` labels the refusals counted here; undefined for routes that only read the decision. */
  const admit = (req: HttpRequest, agentId: string | undefined, binding: string | undefined): Admission => {
    const decision = guard.decide(identificationOf(guard, req), agentId, binding, req.socket?.remoteAddress);
    // A refused agent reaches core as one the caller may not use: AgentNotFound on every binding.
    const scope: CallScope = decision.ok ? callScopeOf(guard, decision, binding ?? "http", agentId) : { tenant: "", agentId, mayCall: () => false };
    const a = { decision, scope, agentId };
    (req as Admitted)[ADMISSION] = a;
    return a;
  };

  /** 401 or 429 in the google.rpc.Status form of §11.6; true when the request was refused. */
  const refuseHttp = (res: HttpResponse, d: AccessDecision): boolean => {
    if (d.ok || d.why === "unknown-agent") return false;
    const r = accessRefusal(d);
    sendJson(res, r.error.row.httpStatus, statusBody(toRestFailure(r.error, logger)), r.headers);
    return true;
  };

  const notFound = (req: HttpRequest, res: HttpResponse): void =>
    sendJson(res, 404, { error: { code: 404, status: "NOT_FOUND", message: `nothing is served at ${req.method} ${(req.url ?? "/").split("?")[0]}` } });

  const cardUrl = (req: HttpRequest, id: string): string => `${baseUrl(req).replace(/\/$/, "")}${AGENT_BASE}${encodeURIComponent(id)}/agent-card.json`;
  const consoleRoute = createConsoleRoute({
    policy: options.outboundPolicy ?? new AddressPolicy(),
    onRefusal: options.onRefusal,
    // The inspector makes requests from the hub: on a hub with tenants, only for a caller with a valid token.
    authorize: (req, res) => {
      const a = admit(req, undefined, "http");
      if (refuseHttp(res, a.decision)) return false;
      return a.decision.ok;
    },
  });
  const mcp = createMcpRoute({ core, guard, logger, maxBodyBytes, maxJsonDepth, ...options.mcp });

  const cardFor = (req: HttpRequest, agentId?: string): AgentCard => (agentId !== undefined && agentCard(req, agentId)) || rootCard(req);
  // Cards are built from the configuration, fixed since start: their Last-Modified (§8.6).
  const cardsSince = new Date();
  const handle = async (req: HttpRequest, res: HttpResponse): Promise<void> => {
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const path = q < 0 ? url : url.slice(0, q);
    const origin = requestOrigin(req, origins);
    if (!origin.ok) return sendBadHost(res, origin.message);
    const vary = origin.vary;

    if (options.cardSigning && path === options.cardSigning.jwksPath && req.method === "GET") {
      return sendJson(res, 200, options.cardSigning.signer.jwks, { "cache-control": "public, max-age=300" });
    }
    if (path === WELL_KNOWN_CARD_PATH && req.method === "GET") {
      // §8.2; with several agents, arbiter's minimal stub: it names no agent.
      if (core.agents.all().length === 1) return sendCard(req, res, rootCard(req), { since: cardsSince, vary, signing: options.cardSigning, baseUrl: origin.baseUrl });
      const caching: Record<string, string> =
        vary.length > 0 ? { "cache-control": "private, max-age=300", vary: vary.join(", ") } : { "cache-control": "public, max-age=300" };
      return sendDocument(req, res, documentOf(discoveryStub(origin.baseUrl, security())), cardsSince, caching);
    }

    if (mcp.owns(path)) return mcp.handle(req, res, path, origin.baseUrl);
    if (path === CONSOLE_PATH || path.startsWith(`${CONSOLE_PATH}/`) || path === FAVICON_PATH) return consoleRoute(req, res, path);

    if ((path === AGENT_CATALOG_PATH || path === `${AGENT_CATALOG_PATH}/`) && req.method === "GET") {
      // Admitted as the per-agent cards are: the same 401 without a valid token.
      const a = admit(req, undefined, "http");
      if (refuseHttp(res, a.decision) || !a.decision.ok) return;
      const tenant = a.decision.tenant;
      const agents = core.agents
        .all()
        .filter((agent) => guard.mayCall(tenant, agent.id))
        .map((agent) => ({ id: agent.id, cardUrl: cardUrl(req, agent.id), card: agentCard(req, agent.id)! }));
      return sendAgentCatalog(req, res, agents, { signing: options.cardSigning, baseUrl: origin.baseUrl });
    }

    const m = AGENT_PATH.exec(path);
    if (m) {
      let agentId: string;
      try {
        agentId = decodeURIComponent(m[1]!);
      } catch {
        return notFound(req, res);
      }
      const rest_ = m[2] ?? "";
      const rpc = rest_ === "" || rest_ === "/";
      const a = admit(req, agentId, rpc && req.method === "POST" ? "jsonrpc" : rest_ === "/agent-card.json" ? "http" : "rest");
      if (rpc) {
        if (req.method === "POST") return jsonRpc(req, res);
      }
      if (refuseHttp(res, a.decision)) return;
      if (rest_ === "/agent-card.json" && req.method === "GET") {
        const card = a.decision.ok ? agentCard(req, agentId) : undefined;
        return card ? sendCard(req, res, card, { since: cardsSince, vary, signing: options.cardSigning, baseUrl: origin.baseUrl }) : notFound(req, res);
      }
      // The REST routes of §11.3 under the agent's base path.
      (req as { url: string }).url = (rest_ || "/") + (q < 0 ? "" : url.slice(q));
      if (await rest(req, res)) return;
      return notFound(req, res);
    }

    const a = admit(req, undefined, req.method === "POST" && path === "/" ? "jsonrpc" : "rest");
    // §9: JSON-RPC at the root; the REST paths (§11.3) never collide with it.
    if (req.method === "POST" && path === "/") return jsonRpc(req, res);
    // A browser or curl at the root learns what this is and where to go, rather than a bare 404.
    if (req.method === "GET" && path === "/") return sendJson(res, 200, hubIndex(origin.baseUrl), { "cache-control": "no-cache" });
    if (refuseHttp(res, a.decision)) return;
    if (await rest(req, res)) return;
    notFound(req, res);
  };
  return { handle, cardFor, quiesce: mcp.quiesce, close: mcp.close };
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
