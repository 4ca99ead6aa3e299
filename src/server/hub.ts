import type { AddressInfo } from "node:net";
import { EchoAgent, echoCard } from "../agents/index.js";
import { AccessGuard } from "../auth/index.js";
import { identifyFirst } from "../bindings/http/index.js";
import { dialectV03 } from "../bindings/jsonrpc/index.js";
import type { ServedInterface } from "../cards/index.js";
import { createA2ACore, silentLogger, type HostedAgent } from "../core/index.js";
import { AddressPolicy, PushDeliveryWorker, pushUrlRefusal } from "../push/index.js";
import { Refusals } from "../telemetry/index.js";
import type { CardSigning } from "./card-responses.js";
import { ROOT_INTERFACES } from "./card-routes.js";
import { healthRoute } from "./health-routes.js";
import type { Hub, HubContext, HubOptions } from "./hub-options.js";
import { wireTelemetry } from "./hub-telemetry.js";
import { listenMetricsPort } from "./metrics-route.js";
import { createOnePortServer, type OnePortServer } from "./one-port.js";
import { openStore, type OpenedStore } from "./open-store.js";
import { createRequestDispatch } from "./request-dispatch.js";
import { TrustedProxies } from "./request-origin.js";
import { startRetention } from "./retention-runner.js";

export type { Hub, HubContext, HubMetricsOptions, HubOptions } from "./hub-options.js";

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
  const opened = await openStore(options);
  try {
    return await serveOn(opened, options);
  } catch (e) {
    await opened.abandon();
    throw e;
  }
}

/** The hub's lifecycle on an opened store: core, push, the way in, the port; and the graceful stop. */
async function serveOn(opened: OpenedStore, options: HubOptions): Promise<Hub> {
  // A library prints nothing of its own accord: the CLI passes a logger that writes to stderr.
  const logger = options.logger ?? silentLogger;
  const store = opened.store;
  const telemetry = wireTelemetry(options, logger);
  const metrics = telemetry.metrics;
  const observedStore = telemetry.observeStore(store, opened.system);
  const policy = new AddressPolicy(options.push);
  const signedAgents = await signedExtendedCards(options.agents ?? defaultAgents(), options.cardSigning, options.publicBaseUrl);
  const inner = createA2ACore({
    store: observedStore,
    agents: telemetry.observeAgents(signedAgents),
    logger,
    limits: options.limits,
    retries: options.retries,
    pushUrlRefusal: (url) => pushUrlRefusal(url, policy),
  });
  // Tasks the previous process left in flight are failed before the first call is served.
  await inner.recovered;
  const core = telemetry.observeCore(inner);
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
  let hubContext: HubContext | undefined;
  const dispatch = createRequestDispatch({
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
    health,
    metrics: telemetry.scrape,
    routes: (options.routes ?? []).map((route) => (req, res) => route(req, res, hubContext!)),
  });
  const cardFor = dispatch.cardFor;
  hubContext = { core, cardFor };
  // Authentication runs once per request, before any binding: each reads the caller it found.
  const server = createOnePortServer(identifyFirst(guard, dispatch.handle), {
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
  telemetry.watch(inner, store, server);
  const retention = startRetention({ store, engine: inner.engine, metrics, logger, options: options.retention });
  const metricsPort = options.metrics ? options.metrics.port : undefined;
  const scrape = telemetry.scrape;
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
        dispatch.quiesce();
        // Agents keep running meanwhile: a unary call or a stream whose task
        // ends within the grace period gets its answer or its last event.
        await server.drained(grace);
        await retention?.stop();
        // What is still open then is ended: runs aborted (the restart fails
        // their tasks), streams closed after the events they already have.
        await core.stop();
        await dispatch.close();
        await server.close(Math.min(grace, FLUSH_MS));
        await push.stop();
        if (metricsServer) await new Promise((r) => metricsServer.close(r).closeAllConnections());
        await opened.release();
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
