import type { AccessPolicy } from "../auth/index.js";
import type { HttpRequest, HttpResponse } from "../bindings/http/index.js";
import type { AgentCard } from "../../gen/a2a/v1/a2a_pb.js";
import type { A2ACore, CoreLimits, HostedAgent, Logger, RetryPolicy as SendRetryPolicy } from "../core/index.js";
import type { McpOptions } from "../mcp/index.js";
import type { AddressPolicyOptions, RetryPolicy } from "../push/index.js";
import type { TaskStore } from "../store/index.js";
import type { MetricsOptions } from "../telemetry/index.js";
import type { CardSigning } from "./card-responses.js";
import type { DoorLimits } from "./door-limits.js";
import type { RetentionOptions } from "./retention-runner.js";

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
