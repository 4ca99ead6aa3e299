import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { EchoAgent, echoCard } from "../agents/index.js";
import { AccessGuard, type AccessPolicy } from "../auth/index.js";
import { accessInterceptor, connectRoutes, guardRpcRequests, serviceParamsInterceptor } from "../bindings/connect/index.js";
import { DEFAULT_MAX_BODY_BYTES } from "../bindings/http/index.js";
import { dialectV03 } from "../bindings/jsonrpc/index.js";
import type { ServedInterface } from "../cards/index.js";
import type { AgentCard } from "../../gen/a2a/v1/a2a_pb.js";
import { createA2ACore, DEFAULT_LIMITS, silentLogger, type A2ACore, type CoreLimits, type HostedAgent, type RetryPolicy as SendRetryPolicy, type Logger } from "../core/index.js";
import { AddressPolicy, PushDeliveryWorker, pushUrlRefusal, type AddressPolicyOptions, type RetryPolicy } from "../push/index.js";
import { SqliteTaskStore, type TaskStore } from "../store/index.js";
import { createHttpRouter, ROOT_INTERFACES } from "./http-router.js";
import type { CardSigning, HttpHandler, HttpRequest, HttpResponse } from "./http-routes.js";
import { createOnePortServer } from "./one-port.js";
import { TrustedProxies } from "./request-origin.js";

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
  /**
   * Peers (IP addresses, CIDR blocks, or `loopback`) whose `Forwarded` /
   * `X-Forwarded-Proto` / `X-Forwarded-Host` headers tell the URL a client
   * used; nobody else's are believed. Default none.
   */
  readonly trustedProxies?: readonly string[];
  /** Serve TLS on the port (HTTP/2 by ALPN, HTTP/1.1 fallback), with this PEM certificate chain and key. */
  readonly tls?: { readonly cert: string | Buffer; readonly key: string | Buffer };
  /** Where the hub reports problems; default: nowhere (the CLI passes one that writes to stderr). */
  readonly logger?: Logger;
  readonly limits?: Partial<CoreLimits>;
  /** Hub-wide retry handling: `{ byMessageId: true }` makes a resent messageId a retry (§3.3.1); default off. */
  readonly retries?: Partial<SendRetryPolicy>;
  /** Push notification delivery (§3.5.3) and its SSRF policy (§13.2). */
  readonly push?: AddressPolicyOptions & { readonly retry?: RetryPolicy; readonly timeoutMs?: number };
  /** Tenants, their tokens, which agents they may call, rate limits; default: no authentication, one open tenant. */
  readonly access?: AccessPolicy;
  /** Largest JSON-RPC or REST request body (bytes); default 10 MiB. */
  readonly maxBodyBytes?: number;
  /** Deepest nesting of arrays and objects in a JSON-RPC or REST request body; default 64. */
  readonly maxJsonDepth?: number;
  /** How long a graceful stop lets requests in flight finish (ms); default 5 s. */
  readonly shutdownGraceMs?: number;
  /** Time a client has to send a request's headers (ms); past it the connection is closed. Default 30 s. */
  readonly headersTimeoutMs?: number;
  /** Time a client has to send a request's body once the headers are in (ms); past it 408. Default 60 s. */
  readonly bodyTimeoutMs?: number;
  /**
   * Extra HTTP routes tried before the card and the 404 (facades mount
   * here); a route returns false when the request is not its own.
   */
  readonly routes?: ReadonlyArray<(req: HttpRequest, res: HttpResponse, hub: HubContext) => boolean | Promise<boolean>>;
  /** §8.4: sign every served card (public, per-agent, extended) and serve the JWKS at its path. */
  readonly cardSigning?: CardSigning;
}

/** What HTTP routes of the hub can reach. */
export interface HubContext {
  readonly core: A2ACore;
  /** The public card of an agent (default: the default agent), with URLs as the request reached us. */
  cardFor(req: HttpRequest, agentId?: string): AgentCard;
}

/** A running hub. */
export interface Hub extends HubContext {
  /** Base URL it listens on, e.g. http://127.0.0.1:41241/ */
  readonly url: string;
  readonly port: number;
  readonly store: TaskStore;
  /** Connections open on the port now, whatever their protocol or state: for leak checks. */
  readonly openConnections: number;
  /**
   * Graceful stop: refuse new requests at once (connection level), let
   * requests in flight (unary calls and streams) finish for the grace
   * period, then stop the agents still running and end the streams still
   * open, flush what they wrote, and close the database.
   */
  close(): Promise<void>;
}

/** How long a graceful stop lets requests in flight finish, by default. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 5_000;
/** After the grace period, how long the streams just ended have to flush their last bytes. */
const FLUSH_MS = 2_000;

/** The bindings the root card lists (§8.3.1); all answer on the one port. */
export const SERVED_INTERFACES: readonly ServedInterface[] = ROOT_INTERFACES;

/** The default hosted agent: echo. */
export function defaultAgents(): HostedAgent[] {
  return [{ id: "echo", executor: new EchoAgent(), card: echoCard() }];
}

/**
 * Starts the store, the core and one port serving Connect, gRPC, gRPC-Web
 * and the HTTP facades, on 127.0.0.1 unless told otherwise.
 */
export async function startHub(options: HubOptions = {}): Promise<Hub> {
  // A library prints nothing of its own accord: the CLI passes a logger that writes to stderr.
  const logger = options.logger ?? silentLogger;
  const store = new SqliteTaskStore({
    filename: join(options.dataDir ?? "data", "a2a-hub.db"),
    maxHistoryMessages: options.limits?.maxHistoryMessages ?? DEFAULT_LIMITS.maxHistoryMessages,
  });
  const policy = new AddressPolicy(options.push);
  const core = createA2ACore({
    store,
    agents: await signedExtendedCards(options.agents ?? defaultAgents(), options.cardSigning, options.publicBaseUrl),
    logger,
    limits: options.limits,
    retries: options.retries,
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
  const guard = new AccessGuard(options.access ?? { tenants: [], agentTenants: new Map() });
  const trustedProxies = new TrustedProxies(options.trustedProxies);
  const router = createHttpRouter({
    core,
    guard,
    logger,
    publicBaseUrl: options.publicBaseUrl,
    trustedProxies,
    maxBodyBytes: options.maxBodyBytes,
    maxJsonDepth: options.maxJsonDepth,
    cardSigning: options.cardSigning,
  });
  const cardFor = router.cardFor;
  const hubContext: HubContext = { core, cardFor };
  const routes = options.routes ?? [];
  const fallback: HttpHandler = async (req, res) => {
    try {
      for (const route of routes) if (await route(req, res, hubContext)) return;
      await router.handle(req, res);
    } catch (e) {
      logger.error("HTTP route failed", { error: e instanceof Error ? e.stack : String(e) });
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { code: 500, status: "INTERNAL", message: "internal error" } }));
    }
  };
  const handler = connectNodeAdapter({
    routes: connectRoutes(core.service, logger),
    // The same body limit as the JSON facades: connect-node would otherwise buffer up to 4 GiB per message.
    readMaxBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    // Authentication first (§7.4): nothing reaches the service without a tenant.
    interceptors: [accessInterceptor(guard), serviceParamsInterceptor(logger)],
    fallback: fallback as never,
  });
  const server = createOnePortServer(guardRpcRequests(handler), {
    headersTimeoutMs: options.headersTimeoutMs,
    tls: options.tls,
    bodyTimeoutMs: options.bodyTimeoutMs,
    onOverflowDrop: (error, req) => logger.warn("stream dropped: its reader stopped reading", { path: req.url, limit: error.limit }),
  });
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.net.once("error", reject);
    server.net.listen(options.port ?? 41241, host, () => {
      server.net.off("error", reject);
      resolve();
    });
  });
  const port = (server.net.address() as AddressInfo).port;
  const url = `${options.tls ? "https" : "http"}://${host.includes(":") ? `[${host}]` : host}:${port}/`;
  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    store,
    core,
    cardFor,
    get openConnections() {
      return server.openConnections;
    },
    close: () =>
      (closing ??= (async () => {
        const grace = options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS;
        server.stopAccepting();
        // Agents keep running meanwhile: a unary call or a stream whose task
        // ends within the grace period gets its answer or its last event.
        await server.drained(grace);
        // What is still open then is ended: runs aborted (the restart fails
        // their tasks), streams closed after the events they already have.
        await core.stop();
        await server.close(Math.min(grace, FLUSH_MS));
        await push.stop();
        store.close();
      })()),
  };
}

/**
 * §8.4: extended cards are fixed at start, so they are signed once here and
 * every binding's GetExtendedAgentCard returns the signed card. `jku` is
 * named only with a configured public URL (no request to take a host from).
 */
async function signedExtendedCards(agents: readonly HostedAgent[], signing: CardSigning | undefined, publicBaseUrl: string | undefined): Promise<HostedAgent[]> {
  if (!signing) return [...agents];
  const jku = publicBaseUrl ? new URL(signing.jwksPath, publicBaseUrl).toString() : undefined;
  return Promise.all(agents.map(async (a) => (a.extendedCard ? { ...a, extendedCard: await signing.signer.sign(a.extendedCard, jku) } : a)));
}
