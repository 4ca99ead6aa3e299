import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { EchoAgent, echoCard } from "../agents/index.js";
import { connectRoutes, serviceParamsInterceptor } from "../bindings/connect/index.js";
import { createJsonRpcHandler, dialectV03 } from "../bindings/jsonrpc/index.js";
import { createRestHandler } from "../bindings/rest/index.js";
import { publicCard, type ServedInterface } from "../cards/index.js";
import { createA2ACore, stderrLogger, type A2ACore, type CoreLimits, type HostedAgent, type Logger } from "../core/index.js";
import { AddressPolicy, PushDeliveryWorker, pushUrlRefusal, type AddressPolicyOptions, type RetryPolicy } from "../push/index.js";
import { SqliteTaskStore, type TaskStore } from "../store/index.js";
import { requestBaseUrl, sendCard, sendNotFound, WELL_KNOWN_CARD_PATH, type HttpHandler, type HttpRequest, type HttpResponse } from "./http-routes.js";
import { createOnePortServer } from "./one-port.js";

/** How to start a hub. */
export interface HubOptions {
  /** TCP port; 0 picks a free one. Default 41241. */
  readonly port?: number;
  /** Address to bind. Default 127.0.0.1. */
  readonly host?: string;
  /** Directory of the SQLite database. Default ./data. */
  readonly dataDir?: string;
  /** The agents to host; default one echo agent. */
  readonly agents?: readonly HostedAgent[];
  /** Public base URL for agent cards; default from the request's Host. */
  readonly publicBaseUrl?: string;
  readonly logger?: Logger;
  readonly limits?: Partial<CoreLimits>;
  /** Push notification delivery (§3.5.3) and its SSRF policy (§13.2). */
  readonly push?: AddressPolicyOptions & { readonly retry?: RetryPolicy; readonly timeoutMs?: number };
  /** How long a graceful stop lets requests in flight finish (ms). */
  readonly shutdownGraceMs?: number;
  /**
   * Extra HTTP routes tried before the card and the 404 (facades mount
   * here); a route returns false when the request is not its own.
   */
  readonly routes?: ReadonlyArray<(req: HttpRequest, res: HttpResponse, hub: HubContext) => boolean | Promise<boolean>>;
}

/** What HTTP routes of the hub can reach. */
export interface HubContext {
  readonly core: A2ACore;
  /** The public card of an agent, with URLs as the request reached us. */
  cardFor(req: HttpRequest, agentId?: string): ReturnType<typeof publicCard>;
}

/** A running hub. */
export interface Hub extends HubContext {
  /** Base URL it listens on, e.g. http://127.0.0.1:41241/ */
  readonly url: string;
  readonly port: number;
  readonly store: TaskStore;
  /** Graceful stop: refuse new work, end streams, finish requests, close the database. */
  close(): Promise<void>;
}

/** The bindings every agent card lists (§8.3.1); all answer on the one port. */
export const SERVED_INTERFACES: readonly ServedInterface[] = [
  { protocolBinding: "JSONRPC", path: "/", protocolVersion: "1.0" },
  // §3.6.2: the same endpoint speaks the v0.3 dialect to clients that ask for it.
  { protocolBinding: "JSONRPC", path: "/", protocolVersion: "0.3" },
  { protocolBinding: "GRPC", path: "/", protocolVersion: "1.0" },
  // §11.3: the REST routes at the root, beside JSON-RPC's POST / (no path collides).
  { protocolBinding: "HTTP+JSON", path: "/", protocolVersion: "1.0" },
];

/** The default hosted agent: echo. */
export function defaultAgents(): HostedAgent[] {
  return [{ id: "echo", executor: new EchoAgent(), card: echoCard() }];
}

/**
 * Starts the store, the core and one port serving Connect, gRPC, gRPC-Web
 * and the HTTP facades, on 127.0.0.1 unless told otherwise.
 */
export async function startHub(options: HubOptions = {}): Promise<Hub> {
  const logger = options.logger ?? stderrLogger;
  const store = new SqliteTaskStore({ filename: join(options.dataDir ?? "data", "a2a-hub.db") });
  const policy = new AddressPolicy(options.push);
  const core = createA2ACore({
    store,
    agents: options.agents ?? defaultAgents(),
    logger,
    limits: options.limits,
    pushUrlRefusal: (url) => pushUrlRefusal(url, policy),
  });
  const push = new PushDeliveryWorker(store, logger, {
    policy,
    retry: options.push?.retry,
    timeoutMs: options.push?.timeoutMs,
    // Configs made by v0.3 clients get v0.3 events (kind-tagged, lowercase states).
    encoders: { "0.3": (event) => dialectV03.v1ToV03StreamResult(event) },
  });
  push.start();
  const cardFor = (req: HttpRequest, agentId?: string) => {
    const agent = core.agents.get(agentId ?? core.agents.defaultAgentId)!;
    return publicCard(agent, requestBaseUrl(req, options.publicBaseUrl), SERVED_INTERFACES);
  };
  const hubContext: HubContext = { core, cardFor };
  const jsonRpc = createJsonRpcHandler({ service: core.service, card: (req) => cardFor(req), logger });
  const rest = createRestHandler({ service: core.service, card: (req) => cardFor(req), logger });
  const routes = options.routes ?? [];
  const fallback: HttpHandler = async (req, res) => {
    try {
      for (const route of routes) if (await route(req, res, hubContext)) return;
      const path = (req.url ?? "/").split("?")[0];
      // §9: JSON-RPC at the root; the REST paths (§11.3) never collide with it.
      if (req.method === "POST" && path === "/") return await jsonRpc(req, res);
      if (req.method === "GET" && path === WELL_KNOWN_CARD_PATH) return sendCard(req, res, cardFor(req));
      if (await rest(req, res)) return;
      sendNotFound(req, res);
    } catch (e) {
      logger.error("HTTP route failed", { error: e instanceof Error ? e.stack : String(e) });
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { code: 500, status: "INTERNAL", message: "internal error" } }));
    }
  };
  const handler = connectNodeAdapter({
    routes: connectRoutes(core.service, logger),
    interceptors: [serviceParamsInterceptor(logger)],
    fallback: fallback as never,
  });
  const server = createOnePortServer(handler);
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.net.once("error", reject);
    server.net.listen(options.port ?? 41241, host, () => {
      server.net.off("error", reject);
      resolve();
    });
  });
  const port = (server.net.address() as AddressInfo).port;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}/`;
  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    store,
    core,
    cardFor,
    close: () =>
      (closing ??= (async () => {
        const grace = options.shutdownGraceMs ?? 5_000;
        const serverClosed = server.close(grace);
        await core.stop();
        await serverClosed;
        await push.stop();
        store.close();
      })()),
  };
}
