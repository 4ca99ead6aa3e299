import type { AccessGuard } from "../auth/index.js";
import { DEFAULT_MAX_BODY_BYTES, HTTP_FAILURES, httpFailureBody, nothingServedAt, sendJson, writeHead, type HttpRequest, type HttpResponse } from "../bindings/http/index.js";
import { createJsonRpcHandler } from "../bindings/jsonrpc/index.js";
import { createRestHandler } from "../bindings/rest/index.js";
import { createRpcBinding } from "../bindings/rpc/index.js";
import type { AgentCard } from "../../gen/a2a/v1/a2a_pb.js";
import { CONSOLE_PATH, createConsoleRoute, FAVICON_PATH } from "../console/index.js";
import type { A2ACore, Logger } from "../core/index.js";
import { createMcpRoute, type McpOptions } from "../mcp/index.js";
import { AddressPolicy } from "../push/index.js";
import { AGENT_CATALOG_PATH } from "./agent-catalog-route.js";
import { createCardRoutes } from "./card-routes.js";
import type { CardSigning } from "./card-responses.js";
import { hubIndex } from "./hub-index.js";
import { createRequestAdmission } from "./request-admission.js";
import { requestOrigin, TrustedProxies, type OriginPolicy } from "./request-origin.js";

const AGENT_PATH = /^\/v1\/a2a\/agents\/([^/]+)(\/.*)?$/;

/** A route that answers only what it recognises: true (or a promise of true) when it answered, false to pass. */
export type Route = (req: HttpRequest, res: HttpResponse) => boolean | Promise<boolean>;

/** What the dispatch hands requests to, and what it builds the bindings from. */
export interface DispatchOptions {
  readonly core: A2ACore;
  readonly guard: AccessGuard;
  readonly logger: Logger;
  readonly publicBaseUrl?: string;
  /** Peers whose Forwarded / X-Forwarded-* headers are believed (see TrustedProxies). */
  readonly trustedProxies?: TrustedProxies;
  /** Largest JSON-RPC, REST or RPC request body (bytes); default 10 MiB. */
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
  /** /healthz and /readyz. */
  readonly health: Route;
  /** /metrics, when metrics are on. */
  readonly metrics?: Route;
  /** Routes the embedding application mounted, tried before the hub's own HTTP routes. */
  readonly routes?: readonly Route[];
}

/** The one way in: every request of the port, sent to exactly one binding or route. */
export interface RequestDispatch {
  handle(req: HttpRequest, res: HttpResponse): void;
  /** The public card of an agent (the default one at the root), with URLs as the request reached us. */
  cardFor(req: HttpRequest, agentId?: string): AgentCard;
  /** A graceful stop begins: MCP sessions end their open server-to-client streams. */
  quiesce(): void;
  /** Closes what the bindings hold open (MCP sessions). */
  close(): Promise<void>;
}

/**
 * Sends each request, by its path and protocol, to its binding, in this
 * order: the RPC bindings (gRPC, Connect, gRPC-Web) for the A2A services'
 * method paths; health and metrics; the mounted routes; then, once the
 * Host is known to be a URL's authority, the public cards, MCP, the
 * console, the catalog, each agent's base (JSON-RPC, its card, REST) and
 * the root (JSON-RPC, the index, REST); the "nothing here" 404 last. The
 * caller was identified before (identifyFirst); each HTTP binding is
 * handed the guard's decision (§7.4, §13.1) rather than asking back for it.
 */
export function createRequestDispatch(options: DispatchOptions): RequestDispatch {
  const { core, guard, logger, maxJsonDepth } = options;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const origins: OriginPolicy = { publicUrl: options.publicBaseUrl, trustedProxies: options.trustedProxies ?? new TrustedProxies() };
  const rpc = createRpcBinding({ service: core.service, guard, logger, readMaxBytes: maxBodyBytes });
  const cards = createCardRoutes({ core, guard, publicBaseUrl: options.publicBaseUrl, trustedProxies: options.trustedProxies, cardSigning: options.cardSigning });
  const admission = createRequestAdmission(core, guard, logger);
  const defaultCard = (): AgentCard => core.agents.get(core.agents.defaultAgentId)!.card;
  const jsonRpc = createJsonRpcHandler({ service: core.service, card: defaultCard, logger, maxBodyBytes: options.maxBodyBytes, maxJsonDepth });
  const rest = createRestHandler({ service: core.service, card: defaultCard, logger, maxBodyBytes: options.maxBodyBytes, maxJsonDepth });
  const mcp = createMcpRoute({ core, guard, logger, maxBodyBytes: options.maxBodyBytes, maxJsonDepth, ...options.mcp });
  const consoleRoute = createConsoleRoute({
    policy: options.outboundPolicy ?? new AddressPolicy(),
    onRefusal: options.onRefusal,
    // The inspector makes requests from the hub: on a hub with tenants, only for a caller with a valid token.
    authorize: (req, res) => {
      const a = admission.admit(req, undefined, "http");
      return !admission.refuse(res, a) && a.decision.ok;
    },
  });
  const routes = options.routes ?? [];
  const notFound = (req: HttpRequest, res: HttpResponse, path: string): void =>
    sendJson(res, HTTP_FAILURES.notFound.httpStatus, httpFailureBody("notFound", nothingServedAt(req.method, path)));

  /** Everything that is not an RPC: HTTP routes and the JSON facades, tried in order. */
  const serveHttp = async (req: HttpRequest, res: HttpResponse, path: string, query: string): Promise<void> => {
    // Operability first: cheap, unauthenticated (metrics: its own token), never shadowed by a route.
    if (options.health(req, res) || (options.metrics && options.metrics(req, res))) return;
    for (const route of routes) if (await route(req, res)) return;
    // RFC 9112 §3.2: every answer below may name URLs of this host, so a Host that cannot be a URL's authority is refused.
    const origin = requestOrigin(req, origins);
    if (!origin.ok) return sendJson(res, HTTP_FAILURES.badHost.httpStatus, httpFailureBody("badHost", origin.message));

    const shared = cards.servePublic(req, res, path, origin);
    if (shared) return shared === true ? undefined : shared;
    if (mcp.owns(path)) return mcp.handle(req, res, path, origin.baseUrl);
    if (path === CONSOLE_PATH || path.startsWith(`${CONSOLE_PATH}/`) || path === FAVICON_PATH) return consoleRoute(req, res, path);
    if ((path === AGENT_CATALOG_PATH || path === `${AGENT_CATALOG_PATH}/`) && req.method === "GET") {
      // Admitted as the per-agent cards are: the same 401 without a valid token.
      const a = admission.admit(req, undefined, "http");
      if (admission.refuse(res, a) || !a.decision.ok) return;
      return cards.sendCatalog(req, res, a.decision.tenant, origin);
    }

    // An agent's own base (AGENT_BASE): JSON-RPC at it, its card, and the REST routes of §11.3 under it.
    const m = AGENT_PATH.exec(path);
    if (m) {
      let agentId: string;
      try {
        agentId = decodeURIComponent(m[1]!);
      } catch {
        return notFound(req, res, path);
      }
      const under = m[2] ?? "";
      const atBase = under === "" || under === "/";
      const a = admission.admit(req, agentId, atBase && req.method === "POST" ? "jsonrpc" : under === "/agent-card.json" ? "http" : "rest");
      // JSON-RPC answers a refusal itself, in its envelope with the request's ids.
      if (atBase && req.method === "POST") return jsonRpc(req, res, a.facade);
      if (admission.refuse(res, a)) return;
      if (under === "/agent-card.json" && req.method === "GET") {
        const card = a.decision.ok ? cards.agentCard(req, agentId) : undefined;
        return card ? cards.sendAgentCard(req, res, card, origin) : notFound(req, res, path);
      }
      (req as { url: string }).url = (under || "/") + query;
      if (await rest(req, res, a.facade)) return;
      return notFound(req, res, path);
    }

    // The root: JSON-RPC at POST / (§9); the REST paths (§11.3) never collide with it.
    const a = admission.admit(req, undefined, req.method === "POST" && path === "/" ? "jsonrpc" : "rest");
    if (req.method === "POST" && path === "/") return jsonRpc(req, res, a.facade);
    // A browser or curl at the root learns what this is and where to go, rather than a bare 404.
    if (req.method === "GET" && path === "/") return sendJson(res, 200, hubIndex(origin.baseUrl), { "cache-control": "no-cache" });
    if (admission.refuse(res, a)) return;
    if (await rest(req, res, a.facade)) return;
    notFound(req, res, path);
  };

  const handle = (req: HttpRequest, res: HttpResponse): void => {
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const path = q < 0 ? url : url.slice(0, q);
    // gRPC, Connect, gRPC-Web (§10): the method paths of the A2A services, whatever their content type.
    if (rpc.owns(path)) return rpc.serve(req, res);
    serveHttp(req, res, path, q < 0 ? "" : url.slice(q)).catch((e: unknown) => {
      logger.error("HTTP route failed", { error: e instanceof Error ? e.stack : String(e) });
      if (!res.headersSent) writeHead(res, HTTP_FAILURES.internal.httpStatus, { "content-type": "application/json" });
      res.end(JSON.stringify(httpFailureBody("internal", "internal error")));
    });
  };
  return { handle, cardFor: cards.cardFor, quiesce: mcp.quiesce, close: mcp.close };
}
