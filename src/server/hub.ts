import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { EchoAgent, echoCard } from "../agents/index.js";
import { AccessGuard, type AccessPolicy } from "../auth/index.js";
import { accessInterceptor, connectRoutes, guardRpcRequests, rpcBinding, rpcRefusal, v03ConnectRoutes, rpcContextValues, serveDirect, serviceParamsInterceptor } from "../bindings/rpc/index.js";
import { DEFAULT_MAX_BODY_BYTES, identifyFirst, keptIdentification, writeHead } from "../bindings/http/index.js";
import { dialectV03 } from "../bindings/jsonrpc/index.js";
import type { ServedInterface } from "../cards/index.js";
import type { AgentCard } from "../../gen/a2a/v1/a2a_pb.js";
import type { McpOptions } from "../mcp/index.js";
import { createA2ACore, DEFAULT_LIMITS, scopeOf, silentLogger, type A2ACore, type CoreLimits, type HostedAgent, type RetryPolicy as SendRetryPolicy, type Logger } from "../core/index.js";
import { AddressPolicy, PushDeliveryWorker, pushUrlRefusal, type AddressPolicyOptions, type RetryPolicy } from "../push/index.js";
import { DATABASE_FILE, lockDataDir, PostgresTaskStore, SqliteTaskStore, type OutboxStats, type TaskStore } from "../store/index.js";
import { HubMetrics, instrumentAgent, instrumentService, instrumentStore, Refusals, requestLog, type MetricsOptions } from "../telemetry/index.js";
import { healthRoute } from "./health-routes.js";
import { createHttpRouter, ROOT_INTERFACES } from "./http-router.js";
import { listenMetricsPort, metricsRoute } from "./metrics-route.js";
import type { CardSigning, HttpHandler, HttpRequest, HttpResponse } from "./card-responses.js";
import type { DoorLimits } from "./door-limits.js";
import { createOnePortServer, type OnePortServer } from "./one-port.js";
import { TrustedProxies } from "./request-origin.js";
import { startRetention, type RetentionOptions } from "./retention-runner.js";

/** How to start a hub. */
export interface HubOptions {
  /** TCP port; 0 picks a free one. Default 41241. */
  readonly port?: number;
  /** Address to bind. Default 127.0.0.1. */
  readonly host?: string;
  /** Directory of the SQLite database. Default ./data. One hub per directory: a second one's start fails with DataDirLockedError. */
  readonly dataDir?: string;
  /** Keep tasks in PostgreSQL instead of SQLite (then `dataDir` is not used): a postgres:// URL and the connections kept at most (default 10). */
  readonly store?: { readonly url: string; readonly poolSize?: number; readonly leaseMs?: number };
  /** Delete settled tasks once they outlive the policy (a background sweep); default: everything is kept. */
  readonly retention?: RetentionOptions;
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
  readonly tls?: {
    readonly cert: string | Buffer;
    readonly key: string | Buffer;
    /** PEM CA certificates of client certificates: the server asks every client for one (mutual TLS, RFC 8705 §2). */
    readonly clientCa?: string | Buffer;
  };
  /** Where the hub reports problems; default: nowhere (the CLI passes one that writes to stderr). */
  readonly logger?: Logger;
  readonly limits?: Partial<CoreLimits>;
  /** Hub-wide retry handling: `{ byMessageId: true }` makes a resent messageId a retry (§3.3.1); default off. */
  readonly retries?: Partial<SendRetryPolicy>;
  /** Push notification delivery (§3.5.3) and its SSRF policy (§13.2). */
  readonly push?: AddressPolicyOptions & { readonly retry?: RetryPolicy; readonly timeoutMs?: number };
  /** Tenants, their tokens, identity providers, client certificates, scopes, which agents they may call, rate limits; default: no authentication, one open tenant. */
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
  /** Connections in all and per address, HTTP/2 streams per connection, session memory, header size (door-limits.ts). */
  readonly connectionLimits?: Partial<DoorLimits>;
  /**
   * Extra HTTP routes tried before the card and the 404 (facades mount
   * here); a route returns false when the request is not its own.
   */
  readonly routes?: ReadonlyArray<(req: HttpRequest, res: HttpResponse, hub: HubContext) => boolean | Promise<boolean>>;
  /** §8.4: sign every served card (public, per-agent, extended) and serve the JWKS at its path. */
  readonly cardSigning?: CardSigning;
  /**
   * The MCP endpoint at /mcp: one tool per agent (default) or per skill, the
   * OAuth authorization servers its protected-resource metadata names (RFC 9728;
   * default none), and how many sessions it keeps for how long.
   */
  readonly mcp?: McpOptions;
  /** Prometheus metrics at GET /metrics (see HubMetricsOptions); `false` turns them off. Default on. */
  readonly metrics?: false | HubMetricsOptions;
  /**
   * Start OpenTelemetry spans (server span per operation, agent runs, store
   * units of work, push deliveries). Only useful once an SDK is registered
   * (`startTracing`, or the embedding application's own); default false.
   */
  readonly tracing?: boolean;
  /**
   * How long a graceful stop keeps serving while /readyz answers 503, so a
   * balancer takes the replica out before it stops accepting (ms); default 0.
   */
  readonly readinessDrainMs?: number;
}

/** Metrics of a hub: labels, who may scrape, and an optional port of their own. */
export interface HubMetricsOptions extends MetricsOptions {
  /** SHA-256 hex of the scrape token; required to scrape when set. */
  readonly tokenHash?: string;
  /** Also serve /metrics (and /healthz, /readyz) on this port of the same host; 0 picks one. */
  readonly port?: number;
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
  /**
   * Takes a new access policy (tenants, tokens, issuers, scopes) without a
   * restart: requests and streams already admitted go on as they were,
   * the next request meets the new policy.
   */
  reloadAccess(policy: AccessPolicy): void;
  /** Connections open on the port now, whatever their protocol or state: for leak checks. */
  readonly openConnections: number;
  /** Base URL of the metrics port, when `metrics.port` asked for one. */
  readonly metricsUrl?: string;
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
  const maxHistoryMessages = options.limits?.maxHistoryMessages ?? DEFAULT_LIMITS.maxHistoryMessages;
  if (options.store) {
    // PostgreSQL: no data directory, so no lock; the schema is migrated under an advisory lock.
    const logger = options.logger ?? silentLogger;
    const store = await PostgresTaskStore.open({
      url: options.store.url,
      poolSize: options.store.poolSize,
      maxHistoryMessages,
      onIdleError: (error) => logger.warn("an idle PostgreSQL connection broke; the pool replaces it", { error: error.message }),
      onBackgroundError: (error) => logger.error("a store write outside a unit of work was not stored", { error: error.message }),
      fleet: {
        leaseMs: options.store.leaseMs,
        onProblem: (what, error) => logger.warn(what, { error: error instanceof Error ? error.message : String(error) }),
      },
    });
    try {
      return await serveOn({ store, system: "postgresql", release: () => store.close() }, options);
    } catch (e) {
      await store.close();
      throw e;
    }
  }
  // One hub per data directory, taken before the database is opened: the
  // store writes as the file's only writer, and the start-up fails the
  // tasks it finds in flight, which would be another live hub's.
  const lock = lockDataDir(options.dataDir ?? "data");
  try {
    const store = new SqliteTaskStore({ filename: join(lock.dataDir, DATABASE_FILE), maxHistoryMessages });
    return await serveOn(
      {
        store,
        system: "sqlite",
        release: () => {
          store.close();
          lock.release();
        },
      },
      options,
    );
  } catch (e) {
    lock.release();
    throw e;
  }
}

/** The hub's store, opened, and what gives it (and a SQLite data directory's lock) back at the end. */
interface OpenedStore {
  readonly store: TaskStore;
  /** OTel's `db.system` for the store's spans. */
  readonly system: "sqlite" | "postgresql";
  readonly release: () => void | Promise<void>;
}

async function serveOn(opened: OpenedStore, options: HubOptions): Promise<Hub> {
  // A library prints nothing of its own accord: the CLI passes a logger that writes to stderr.
  const logger = options.logger ?? silentLogger;
  const store = opened.store;
  const metrics = options.metrics === false ? undefined : new HubMetrics(options.metrics);
  const tracing = options.tracing ?? false;
  // Core and push see the store through the probe only when something records what it sees.
  const observedStore = metrics || tracing ? instrumentStore(store, { metrics, tracing, system: opened.system }) : store;
  const agents = options.agents ?? defaultAgents();
  const policy = new AddressPolicy(options.push);
  const signedAgents = await signedExtendedCards(agents, options.cardSigning, options.publicBaseUrl);
  const inner = createA2ACore({
    store: observedStore,
    agents: tracing ? signedAgents.map(instrumentAgent) : signedAgents,
    logger,
    limits: options.limits,
    retries: options.retries,
    pushUrlRefusal: (url) => pushUrlRefusal(url, policy),
  });
  // Tasks the previous process left in flight are failed before the first call is served.
  await inner.recovered;
  const logRequests = requestLog(logger);
  // Every binding calls the service through the probe: one place observes them all.
  const core: A2ACore =
    metrics || tracing || logRequests
      ? {
          ...inner,
          service: instrumentService(inner.service, {
            metrics,
            tracing,
            log: logRequests,
            agentOf: (ctx, requestTenant) => {
              const id = scopeOf(ctx).agentId || requestTenant || inner.agents.defaultAgentId;
              return inner.agents.get(id) ? id : "unknown";
            },
          }),
        }
      : inner;
  const push = new PushDeliveryWorker(observedStore, logger, {
    policy,
    retry: options.push?.retry,
    timeoutMs: options.push?.timeoutMs,
    // Configs made by v0.3 clients get v0.3 events (kind-tagged, lowercase states).
    encoders: { "0.3": (event) => dialectV03.v1ToV03StreamResult(event) },
    writes: inner.engine.work,
    onDelivery: metrics
      ? (result, seconds) => {
          metrics.pushDeliveries.inc({ result });
          metrics.webhookSeconds.observe(seconds);
        }
      : undefined,
  });
  push.start();
  const refusals = new Refusals(metrics?.refusals, logger);
  // The port is made below; a refused request counts against its address there.
  let door: OnePortServer | undefined;
  const refusedRequest = (why: string, address: string | undefined): void => {
    refusals.refuse(why, address);
    if (why === "unauthenticated") door?.refusedRequest(address);
  };
  const guard = new AccessGuard(options.access ?? { tenants: [], agentTenants: new Map() }, {
    logger,
    countRefusal: metrics && ((binding, reason) => metrics.authRefusals.inc({ binding, reason })),
    onRefusal: refusedRequest,
  });
  // The issuers' keys and discovery documents before the first request: the card names their token endpoints.
  await guard.ready();
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
    mcp: options.mcp,
    outboundPolicy: policy,
    onRefusal: (reason, address) => refusals.refuse(reason, address),
  });
  const cardFor = router.cardFor;
  const hubContext: HubContext = { core, cardFor };
  const routes = options.routes ?? [];
  let draining = false;
  const health = healthRoute({
    draining: () => draining,
    storeProblem: () => {
      const why = (e: unknown): string => (e instanceof Error ? e.message : String(e));
      try {
        const pinged = store.ping?.();
        return pinged instanceof Promise ? pinged.then(() => undefined, why) : undefined;
      } catch (e) {
        return why(e);
      }
    },
  });
  const scrape = metrics && metricsRoute(metrics, { tokenHash: options.metrics ? options.metrics.tokenHash : undefined, tenantsConfigured: (options.access?.tenants.length ?? 0) > 0 });
  const fallback: HttpHandler = async (req, res) => {
    try {
      // Operability first: cheap, unauthenticated (metrics: its own token), never shadowed by a route.
      if (health(req, res) || (scrape && scrape(req, res))) return;
      for (const route of routes) if (await route(req, res, hubContext)) return;
      await router.handle(req, res);
    } catch (e) {
      logger.error("HTTP route failed", { error: e instanceof Error ? e.stack : String(e) });
      if (!res.headersSent) writeHead(res, 500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { code: 500, status: "INTERNAL", message: "internal error" } }));
    }
  };
  const readMaxBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const handler = connectNodeAdapter({
    // lf.a2a.v1 (v1.0) and a2a.v1 (v0.3) differ by package: both services answer on the one port.
    routes: (router) => {
      connectRoutes(core.service, logger)(router);
      v03ConnectRoutes(core.service, logger)(router);
    },
    // The same body limit as the JSON facades: connect-node would otherwise buffer up to 4 GiB per message.
    readMaxBytes,
    // Authentication first (§7.4): nothing reaches the service without a tenant.
    interceptors: [accessInterceptor(guard), serviceParamsInterceptor(logger)],
    // What a stream's transport does when its reader stops reading (one-port.ts sets it per request).
    contextValues: rpcContextValues,
    fallback: fallback as never,
  });
  // Plain gRPC and Connect unary calls skip connect-node's per-call machinery (bindings/rpc/direct/).
  const rpc = serveDirect({ service: core.service, guard, logger, readMaxBytes }, handler);
  // A gRPC or unary Connect call whose caller was not identified is refused from its headers, before its body is read.
  const unauthenticated = (req: HttpRequest) => {
    const id = guard.authRequired ? keptIdentification(req) : undefined;
    return id && !id.ok ? rpcRefusal(guard, id, rpcBinding(req.headers["content-type"]), req.socket?.remoteAddress) : undefined;
  };
  // Authentication runs once per request, before any binding: each reads the caller it found.
  const server = createOnePortServer(identifyFirst(guard, guardRpcRequests(rpc, unauthenticated)), {
    headersTimeoutMs: options.headersTimeoutMs,
    tls: options.tls,
    bodyTimeoutMs: options.bodyTimeoutMs,
    onOverflowDrop: (error, req) => logger.warn("stream dropped: its reader stopped reading", { path: req.url, limit: error.limit }),
    limits: options.connectionLimits,
    exempt: (address) => trustedProxies.trusts(address),
    onRefusal: (reason, address) => refusals.refuse(reason, address),
  });
  door = server;
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
  let lastOutbox = { pending: 0, oldestDueAgeS: 0 };
  metrics?.setSources({
    runsInFlight: () => inner.engine.activeRuns,
    subscribers: () => inner.engine.bus.listenerCount(),
    streamBacklog: () => inner.engine.streamBacklog(),
    connections: () => server.connectionsByProtocol(),
    pool: () => store.poolStats?.(),
    outbox: () => {
      const o = store.outboxStats?.(Date.now()) ?? { pending: 0 };
      if (!(o instanceof Promise)) return outboxGauge(o);
      // A networked store answers after the scrape's synchronous pass: this
      // scrape shows what the previous one asked, and asks for the next.
      o.then((v) => (lastOutbox = outboxGauge(v)), () => undefined);
      return lastOutbox;
    },
  });
  const retention = startRetention({ store, engine: inner.engine, metrics, logger, options: options.retention });
  const metricsPort = options.metrics ? options.metrics.port : undefined;
  const metricsServer = scrape && metricsPort !== undefined ? await listenMetricsPort(metricsPort, host, (req, res) => health(req, res) || scrape(req, res)) : undefined;
  const metricsUrl = metricsServer && `http://${host.includes(":") ? `[${host}]` : host}:${(metricsServer.address() as AddressInfo).port}/`;
  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    metricsUrl,
    store,
    core,
    cardFor,
    reloadAccess: (policy) => guard.reload(policy),
    get openConnections() {
      return server.openConnections;
    },
    close: () =>
      (closing ??= (async () => {
        const grace = options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS;
        // /readyz says 503 first, while everything else is still served, so a balancer stops sending before we stop accepting.
        draining = true;
        if (options.readinessDrainMs) await new Promise((r) => setTimeout(r, options.readinessDrainMs));
        server.stopAccepting();
        router.quiesce();
        // Agents keep running meanwhile: a unary call or a stream whose task
        // ends within the grace period gets its answer or its last event.
        await server.drained(grace);
        await retention?.stop();
        // What is still open then is ended: runs aborted (the restart fails
        // their tasks), streams closed after the events they already have.
        await core.stop();
        await router.close();
        await server.close(Math.min(grace, FLUSH_MS));
        await push.stop();
        if (metricsServer) await new Promise((r) => metricsServer.close(r).closeAllConnections());
        await opened.release();
      })()),
  };
}

/** The outbox gauges' values from what the store reports. */
function outboxGauge(o: OutboxStats): { pending: number; oldestDueAgeS: number } {
  return { pending: o.pending, oldestDueAgeS: o.oldestDueMs === undefined ? 0 : Math.max(0, Date.now() - o.oldestDueMs) / 1000 };
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
