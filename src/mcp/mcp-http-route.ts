import { randomUUID } from "node:crypto";
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { IncomingMessage, ServerResponse } from "node:http";
import { accessRefusal, type AccessGuard } from "../auth/index.js";
import { BodyTooLargeError, callScopeOf, DEFAULT_MAX_BODY_BYTES, identificationOf, DEFAULT_MAX_JSON_DEPTH, exceedsJsonDepth, headerValue, jsonDepthRefusal, readBody, sendJson, type HttpRequest, type HttpResponse } from "../bindings/http/index.js";
import type { A2ACore, Logger } from "../core/index.js";
import { createAgentMcpServer } from "./agent-mcp-server.js";
import { hubBackend, type McpCaller } from "./hub-backend.js";
import { mcpSdk } from "./mcp-sdk.js";
import { bearerChallenge, PROTECTED_RESOURCE_PATHS, protectedResourceMetadata } from "./protected-resource.js";
import type { ToolGrouping } from "./tool-catalog.js";

/** Where the hub serves MCP (Streamable HTTP). */
export const MCP_PATH = "/mcp";

/** What a hub's configuration sets of its `/mcp` endpoint. */
export interface McpOptions {
  /** One tool per agent (default) or per skill. */
  readonly tools?: ToolGrouping;
  /**
   * OAuth authorization servers whose tokens the hub accepts, listed in the
   * protected-resource metadata (RFC 9728); empty by default (static tokens).
   */
  readonly authorizationServers?: readonly string[];
  /** A session with no request for this long is closed (ms); default 30 min. */
  readonly sessionIdleMs?: number;
  /** Most MCP sessions open at once; a new one past it is refused with 503. Default 1,000. */
  readonly maxSessions?: number;
  /** Most MCP sessions one tenant may hold open, so that one cannot take them all; default 100. */
  readonly maxSessionsPerTenant?: number;
}

/** Options of the `/mcp` endpoint. */
export interface McpRouteOptions extends McpOptions {
  readonly core: Pick<A2ACore, "service" | "agents">;
  readonly guard: AccessGuard;
  readonly logger: Logger;
  readonly maxBodyBytes?: number;
  readonly maxJsonDepth?: number;
}

/** The `/mcp` endpoint: sessions of the MCP Streamable HTTP transport, each bound to the tenant that opened it. */
export interface McpRoute {
  /** Whether the path is the route's (the endpoint or its protected-resource metadata). */
  owns(path: string): boolean;
  handle(req: HttpRequest, res: HttpResponse, path: string, baseUrl: string): Promise<void>;
  /** Ends the sessions' open server-to-client streams (a graceful stop: the clients stop listening). */
  quiesce(): void;
  /** Closes every session. */
  close(): Promise<void>;
}

interface Session {
  readonly tenant: string;
  readonly transport: StreamableHTTPServerTransport;
  readonly server: McpServer;
  /** When its last request ended. */
  lastSeen: number;
  /** Its requests being answered now. */
  inFlight: number;
}

const SESSION_HEADER = "mcp-session-id";
/** JSON-RPC's server-defined error codes the SDK's own refusals use (no MCP code exists for these). */
const SERVER_ERROR = -32000;

function jsonRpcError(res: HttpResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, { jsonrpc: "2.0", error: { code, message }, id: null }, headers);
}

/**
 * The MCP server of the hub over Streamable HTTP (MCP 2025-11-25,
 * transports): a session per initialize, held in memory on this replica,
 * its MCP server bound to the tenant the bearer token authenticated (the
 * same AccessGuard as every binding). Every later request of the session
 * must authenticate as the same tenant; another tenant gets the 404 of a
 * session that does not exist.
 */
export function createMcpRoute(options: McpRouteOptions): McpRoute {
  const { core, guard, logger } = options;
  const sessions = new Map<string, Session>();
  const idleMs = options.sessionIdleMs ?? 30 * 60_000;
  const maxSessions = options.maxSessions ?? 1_000;
  const maxPerTenant = options.maxSessionsPerTenant ?? 100;
  const capLogged = new Map<string, number>();
  const sessionsOf = (tenant: string): number => {
    let n = 0;
    for (const s of sessions.values()) if (s.tenant === tenant) n++;
    return n;
  };
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxDepth = options.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH;
  const servers = options.authorizationServers ?? [];
  const sweep = setInterval(() => {
    const before = Date.now() - idleMs;
    // A session answering a request (a tool call following a long task, an open GET stream) is not idle.
    for (const s of sessions.values()) if (s.inFlight === 0 && s.lastSeen < before) void s.transport.close();
  }, Math.min(idleMs, 60_000));
  sweep.unref();

  const metadataUrl = (baseUrl: string): string => new URL(PROTECTED_RESOURCE_PATHS[0]!.slice(1), baseUrl).toString();

  /** MCP transports "Security Warning": a browser page of another origin must not reach a local server (DNS rebinding). */
  const foreignOrigin = (req: HttpRequest, baseUrl: string): boolean => {
    const origin = headerValue(req, "origin");
    if (origin === undefined || origin === "null") return origin === "null";
    try {
      // The hub's own origin as the request reached it, or as its proxy or publicUrl presents it.
      const host = new URL(origin).host;
      return host !== (headerValue(req, "host") ?? headerValue(req, ":authority")) && host !== new URL(baseUrl).host;
    } catch {
      return true;
    }
  };

  const openSession = async (caller: McpCaller): Promise<StreamableHTTPServerTransport> => {
    const tenant = caller.tenant;
    const { StreamableHTTPServerTransport } = await mcpSdk();
    const server = await createAgentMcpServer(hubBackend(core, caller), { tools: options.tools, logger });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, { tenant, transport, server, lastSeen: Date.now(), inFlight: 0 }),
      onsessionclosed: (id) => void sessions.delete(id),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    transport.onerror = (error) => logger.warn("MCP transport error", { error: error.message });
    await server.connect(transport);
    return transport;
  };

  /** The body of a POST, parsed: undefined after answering a refusal. */
  const readMessage = async (req: HttpRequest, res: HttpResponse): Promise<unknown> => {
    let body: Buffer;
    try {
      body = await readBody(req, maxBody);
    } catch (e) {
      if (e instanceof BodyTooLargeError) return jsonRpcError(res, 413, ErrorCodes.invalidRequest, e.message);
      return jsonRpcError(res, 400, ErrorCodes.invalidRequest, e instanceof Error ? e.message : String(e));
    }
    if (exceedsJsonDepth(body, maxDepth)) return jsonRpcError(res, 400, ErrorCodes.invalidRequest, jsonDepthRefusal(maxDepth));
    try {
      return JSON.parse(body.toString("utf8")) as unknown;
    } catch {
      return jsonRpcError(res, 400, ErrorCodes.parse, "the request body is not JSON");
    }
  };

  const handle = async (req: HttpRequest, res: HttpResponse, path: string, baseUrl: string): Promise<void> => {
    if (PROTECTED_RESOURCE_PATHS.includes(path)) {
      if (req.method !== "GET" || !guard.authRequired) return sendJson(res, 404, { error: "not found" });
      return sendJson(res, 200, protectedResourceMetadata(new URL(MCP_PATH.slice(1), baseUrl).toString(), servers), { "cache-control": "public, max-age=300" });
    }
    if (foreignOrigin(req, baseUrl)) return jsonRpcError(res, 403, SERVER_ERROR, "requests from another origin are refused");
    const decision = guard.decide(identificationOf(guard, req), undefined, "mcp", req.socket?.remoteAddress);
    if (!decision.ok) {
      const r = accessRefusal(decision);
      // RFC 6750's challenge (with error="invalid_token" for a bad token) plus MCP's resource_metadata (RFC 9728 §5.1).
      const headers = decision.why === "unauthenticated" ? { "www-authenticate": bearerChallenge(metadataUrl(baseUrl), r.headers["www-authenticate"]) } : { ...r.headers };
      return jsonRpcError(res, r.error.row.httpStatus, SERVER_ERROR, r.error.message, headers);
    }
    const tenant = decision.tenant;
    const { mayCall, refuseOperation } = callScopeOf(guard, decision, "mcp");
    const auth = { token: "", clientId: tenant, scopes: [], extra: { tenant } };
    const id = headerValue(req, SESSION_HEADER);
    let session: Session | undefined;
    if (id !== undefined) {
      session = sessions.get(id);
      // Another tenant's session is as unknown as one that never was.
      if (!session || session.tenant !== tenant) return jsonRpcError(res, 404, SERVER_ERROR, "Session not found");
      const open = session;
      open.inFlight++;
      res.once("close", () => {
        open.inFlight--;
        open.lastSeen = Date.now();
      });
    }
    let body: unknown;
    if (req.method === "POST") {
      body = await readMessage(req, res);
      if (body === undefined) return;
    }
    let transport = session?.transport;
    if (!transport) {
      if (req.method !== "POST" || !(Array.isArray(body) ? body.some(isInitialize) : isInitialize(body))) {
        return jsonRpcError(res, 400, SERVER_ERROR, `Bad Request: no ${SESSION_HEADER}; open a session with an initialize request`);
      }
      if (sessions.size >= maxSessions) return jsonRpcError(res, 503, SERVER_ERROR, "too many MCP sessions are open; retry later", { "retry-after": "5" });
      if (sessionsOf(tenant) >= maxPerTenant) {
        // Logged once a minute per tenant: a client that retries in a loop must not flood the log.
        const now = Date.now();
        if ((capLogged.get(tenant) ?? 0) < now - 60_000) {
          capLogged.set(tenant, now);
          logger.warn("MCP session refused: the tenant holds its limit of sessions", { tenant, limit: maxPerTenant });
        }
        return jsonRpcError(res, 429, SERVER_ERROR, `this tenant has ${maxPerTenant} MCP sessions open (the limit); end one (DELETE /mcp) or let one expire`);
      }
      transport = await openSession({ tenant, mayCall: mayCall ?? (() => true), refuseOperation });
    }
    const nodeReq = req as IncomingMessage & { auth?: typeof auth };
    nodeReq.auth = auth;
    await transport.handleRequest(nodeReq, res as ServerResponse, body as JSONRPCMessage | JSONRPCMessage[] | undefined);
  };

  return {
    owns: (path) => path === MCP_PATH || PROTECTED_RESOURCE_PATHS.includes(path),
    handle,
    quiesce: () => {
      for (const s of sessions.values()) s.transport.closeStandaloneSSEStream();
    },
    close: async () => {
      clearInterval(sweep);
      await Promise.all([...sessions.values()].map((s) => s.transport.close().catch(() => undefined)));
      sessions.clear();
    },
  };
}

/** MCP lifecycle: a session begins with an initialize request. */
function isInitialize(m: unknown): boolean {
  return typeof m === "object" && m !== null && (m as { method?: unknown }).method === "initialize" && "id" in m;
}

/** JSON-RPC 2.0 §5.1 codes of a body that cannot be read. */
const ErrorCodes = { parse: -32700, invalidRequest: -32600 } as const;
