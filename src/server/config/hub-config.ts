import type { JwtIssuerConfig } from "../../auth/index.js";
import type { RetentionPolicy } from "../../lifecycle/index.js";
import type { LimitsConfig } from "./limits-config.js";

/** An agent's card fields, as the config file declares them (§4.4.1 names). */
export interface AgentCardConfig {
  readonly name?: string;
  readonly description?: string;
  readonly version?: string;
  readonly documentationUrl?: string;
  readonly provider?: { readonly organization: string; readonly url: string };
  readonly defaultInputModes?: readonly string[];
  readonly defaultOutputModes?: readonly string[];
  readonly skills?: ReadonlyArray<{
    readonly id: string;
    readonly name: string;
    readonly description: string;
    readonly tags: readonly string[];
    readonly examples?: readonly string[];
  }>;
}

/** One hosted agent. */
export interface AgentConfig {
  readonly id: string;
  /** What runs behind it; `echo` for now. */
  readonly kind: string;
  /** Tenants that may call it; absent means every tenant. */
  readonly tenants?: readonly string[];
  readonly card?: AgentCardConfig;
  /** Kind-specific settings (e.g. a command agent's program). */
  readonly options?: Readonly<Record<string, unknown>>;
  /** This agent's retry handling, over the hub's `retries`. */
  readonly retries?: RetriesConfig;
  /** Scopes a caller must hold to use this agent, beyond the operation's own (§7.5). */
  readonly requiredScopes?: readonly string[];
}

/** Retry handling (README "Retries"): whether a resent messageId is a retry (§3.3.1 MAY). */
export interface RetriesConfig {
  readonly byMessageId?: boolean;
}

/** One tenant and the SHA-256 hashes (hex) of its static bearer tokens (possibly none: a tenant of identity providers only). */
export interface TenantConfig {
  readonly id: string;
  readonly tokens: readonly string[];
  /** The scopes of the tokens listed as `{ hash, scopes }`, by hash; the others have every scope. */
  readonly tokenScopes?: Readonly<Record<string, readonly string[]>>;
}

/** `auth:`: identity providers, client certificates, scope names. */
export interface AuthConfig {
  /** The issuers as `auth.jwt[]` writes them (the clock skew is `clockSkewSeconds`, for all of them). */
  readonly jwt: ReadonlyArray<Omit<JwtIssuerConfig, "clockSkewS" | "refetchCooldownMs">>;
  /** Seconds of clock difference tolerated on a token's exp and nbf; default 30. */
  readonly clockSkewSeconds?: number;
  readonly scopes?: { readonly send?: string; readonly read?: string; readonly cancel?: string; readonly push?: string };
  readonly mtls?: { readonly tenantFrom: "subject.CN" | "san.uri" | "san.dns"; readonly map: Readonly<Record<string, string>> };
  /** Problems worth a warning at start (an http:// issuer on loopback). */
  readonly warnings: readonly string[];
}

/** Everything a hub is configured with; see README "Configuration". */
export interface HubConfig {
  readonly host: string;
  readonly port: number;
  /** Allow binding a non-loopback address. */
  readonly insecure: boolean;
  /** The base URL clients reach the hub at; without it cards take URLs from each request's Host. */
  readonly publicUrl?: string;
  readonly dataDir: string;
  /** Keep tasks in PostgreSQL (a postgres:// URL) instead of SQLite under `dataDir`. */
  readonly store?: StoreConfig;
  /** Serve TLS (HTTP/2 by ALPN, HTTP/1.1 fallback) with these PEM files: the certificate (chain) and its private key. */
  readonly tls?: { readonly certFile: string; readonly keyFile: string; readonly clientCaFile?: string };
  /**
   * Proxies whose X-Forwarded-Proto/Host and Forwarded (RFC 7239) headers are
   * believed: IP addresses, CIDR ranges, or "loopback". Empty: none.
   */
  readonly trustedProxies: readonly string[];
  readonly tenants: readonly TenantConfig[];
  /** Identity providers, client certificates and scope names; absent: static tokens only. */
  readonly auth?: AuthConfig;
  readonly agents: readonly AgentConfig[];
  readonly push: {
    readonly allowPrivateNetworks: boolean;
    readonly allowCidrs: readonly string[];
    readonly retry?: { readonly baseMs: number; readonly capMs: number; readonly attempts: number };
    readonly timeoutMs?: number;
  };
  readonly rateLimit?: { readonly burst: number; readonly perSecond: number };
  /** Limits over the built-in defaults (see limits-config.ts). */
  readonly limits: LimitsConfig;
  /** Hub-wide retry handling; default: every send is a new message. */
  readonly retries: RetriesConfig;
  /** A registry file of remote agents (arbiter's a2a_agents.json shape), each hosted as a `remote` agent. */
  readonly remoteRegistry?: string;
  /** §8.4: card signing keys (each signs every served card) and where their JWKS is served. */
  readonly cards?: {
    readonly signing: ReadonlyArray<{ readonly key: string; readonly kid: string; readonly alg: string }>;
    readonly jwksPath: string;
  };
  /** Lowest log level written (pino levels); default info. */
  readonly logLevel: string;
  /** Prometheus metrics at /metrics. */
  readonly metrics: MetricsConfig;
  /** OpenTelemetry traces; the standard OTEL_* variables also turn them on. */
  readonly tracing?: TracingConfig;
  /** How long settled tasks are kept, hub-wide and per tenant and agent; absent: for ever. */
  readonly retention?: RetentionPolicy;
  /** How long a graceful stop answers /readyz 503 before it stops accepting (ms); default 0. */
  readonly readinessDrainMs?: number;
}

/** `store:` of the config file (or --store / A2A_HUB_STORE for the URL). */
export interface StoreConfig {
  /** postgres://user:password@host:port/database, libpq's URL form with its query parameters (e.g. sslmode). */
  readonly url: string;
  /** Connections one hub keeps to the database at most (default 10). */
  readonly poolSize?: number;
  /**
   * How long a replica's lease lasts without renewal (ms, default 15000; renewed every third).
   * When a replica dies, its tasks in flight are failed once its lease has run out, within
   * about 4/3 of this.
   */
  readonly leaseMs?: number;
}

/** `metrics:` of the config file. */
export interface MetricsConfig {
  readonly enabled: boolean;
  /** Label request and task series by tenant (only when tenants are few). */
  readonly tenantLabel: boolean;
  /** SHA-256 hex of the scrape token (`npm start -- hash-token`); required to scrape when set. */
  readonly tokenHash?: string;
  /** Serve /metrics on this port too. */
  readonly port?: number;
}

/** `tracing:` of the config file. */
export interface TracingConfig {
  /** OTLP/HTTP traces URL, e.g. http://127.0.0.1:4318/v1/traces. */
  readonly endpoint?: string;
  /** Fraction of new traces sampled, 0..1; default 1. */
  readonly sampleRatio?: number;
  readonly serviceName?: string;
}

/** The hub with no config: one echo agent, one open tenant, loopback only. */
export const DEFAULT_CONFIG: HubConfig = {
  host: "127.0.0.1",
  port: 41241,
  insecure: false,
  dataDir: "data",
  trustedProxies: [],
  tenants: [],
  agents: [{ id: "echo", kind: "echo" }],
  push: { allowPrivateNetworks: false, allowCidrs: [] },
  limits: {},
  retries: {},
  logLevel: "info",
  metrics: { enabled: true, tenantLabel: false },
};
