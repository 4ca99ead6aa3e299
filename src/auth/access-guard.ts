import { Authenticator, type Credentials } from "./authenticator.js";
import type { TenantTokens } from "./bearer-tokens.js";
import type { Caller, CredentialRefusal, Identification } from "./caller.js";
import type { IssuerKeys } from "./issuer-keys.js";
import type { JwtIssuerConfig } from "./jwt-issuer.js";
import type { MtlsConfig } from "./mtls-identity.js";
import { RateLimiter, type RateLimit } from "./rate-limiter.js";
import { RefusalLog, type WarnLogger } from "./refusal-log.js";
import { DEFAULT_SCOPE_NAMES, ScopePolicy, type ScopeNames } from "./scope-policy.js";

/** The tenant used when authentication is off. */
export const OPEN_TENANT = "default";

/** Who may call which agent, and how callers prove who they are. */
export interface AccessPolicy {
  /** Tenants and their static token hashes. */
  readonly tenants: readonly TenantTokens[];
  /** Agent id → tenants allowed to call it; an agent not listed may be called by every tenant. */
  readonly agentTenants: ReadonlyMap<string, readonly string[]>;
  /** Per-tenant rate limit; undefined means none. */
  readonly rateLimit?: RateLimit;
  /** Identity providers whose JWT access tokens are accepted. */
  readonly jwt?: readonly JwtIssuerConfig[];
  /** Client certificates that name a tenant (the TLS server must ask for them: `tls.clientCa`). */
  readonly mtls?: MtlsConfig;
  /** Scope names of the operations; default a2a.send, a2a.read, a2a.cancel, a2a.push. */
  readonly scopes?: Partial<ScopeNames>;
  /** Agent id → scopes a caller must hold to use it. */
  readonly agentScopes?: ReadonlyMap<string, readonly string[]>;
}

/** What the guard decided about one request. */
export type AccessDecision =
  | { readonly ok: true; readonly tenant: string; readonly caller: Caller }
  /** Missing or bad credentials: 401 / UNAUTHENTICATED. */
  | { readonly ok: false; readonly why: "unauthenticated"; readonly refusal: CredentialRefusal }
  /** The tenant may not call this agent: answered as if the agent did not exist (§3.3.2). */
  | { readonly ok: false; readonly why: "unknown-agent" }
  /** Over the rate limit: 429 / RESOURCE_EXHAUSTED, retry after `retryAfterS`. */
  | { readonly ok: false; readonly why: "rate-limited"; readonly retryAfterS: number };

/** What the guard reports to. */
export interface AccessGuardOptions {
  readonly logger?: WarnLogger;
  /** Counts a refusal (a2a_auth_refusals_total). */
  readonly countRefusal?: (binding: string, reason: CredentialRefusal["reason"]) => void;
  /** Told of every refusal acted on (401, 429), with the client's address: the door's counters and per-address limits. */
  readonly onRefusal?: (why: "unauthenticated" | "rate-limited", address: string | undefined) => void;
}

const quiet: WarnLogger = { warn: () => {} };

/**
 * The one guard every binding applies before anything reaches the service
 * (§7.4, §13.1): identifies the caller once per request, checks the tenant
 * may call the agent, spends from its rate limit, and knows the scopes each
 * operation and agent need. Its policy can be replaced while the hub runs
 * (a reload): requests already admitted keep the caller they were given.
 */
export class AccessGuard {
  private authenticator!: Authenticator;
  private limiter: RateLimiter | undefined;
  private policy!: AccessPolicy;
  private scopePolicy!: ScopePolicy;
  private readonly refusals: RefusalLog;
  private readonly logger: WarnLogger;
  private warming: Promise<unknown> = Promise.resolve();
  private readonly onRefusal: AccessGuardOptions["onRefusal"];

  constructor(policy: AccessPolicy, options: AccessGuardOptions = {}) {
    this.logger = options.logger ?? quiet;
    this.refusals = new RefusalLog(this.logger, options.countRefusal);
    this.onRefusal = options.onRefusal;
    this.reload(policy);
  }

  /** Takes a new policy; the keys already fetched for an issuer that stays are kept. */
  reload(policy: AccessPolicy): void {
    const previous = this.authenticator;
    const keysOf = (issuer: string): IssuerKeys | undefined => {
      const old = previous?.jwtIssuers.find((i) => i.config.issuer === issuer);
      const now = policy.jwt?.find((j) => j.issuer === issuer);
      return old && now && old.config.jwksUri === now.jwksUri ? old.keys : undefined;
    };
    this.authenticator = new Authenticator({
      tenants: policy.tenants,
      jwt: policy.jwt,
      mtls: policy.mtls,
      openTenant: OPEN_TENANT,
      keysOf,
      onFetchError: (issuer, error) => this.logger.warn("the identity provider's keys cannot be fetched; the keys held so far stay in use", { issuer, error: error.message }),
    });
    // A limiter is kept across reloads with the same limit, so a reload does not refill every bucket.
    const same = this.policy?.rateLimit && policy.rateLimit && this.policy.rateLimit.burst === policy.rateLimit.burst && this.policy.rateLimit.perSecond === policy.rateLimit.perSecond;
    this.limiter = same ? this.limiter : policy.rateLimit ? new RateLimiter(policy.rateLimit) : undefined;
    this.scopePolicy = new ScopePolicy({ ...DEFAULT_SCOPE_NAMES, ...policy.scopes }, policy.agentScopes);
    this.policy = policy;
    // Keys (and the discovery document the card names) are fetched now rather than on the first token, so that the first caller does not wait.
    this.warming = Promise.all(this.authenticator.jwtIssuers.filter((i) => !keysOf(i.config.issuer)).map((i) => i.keys.fetch()));
  }

  /** Resolves once the keys of every issuer have been fetched, or failed to be (a bounded wait: each fetch times out). */
  ready(): Promise<void> {
    return this.warming.then(() => undefined);
  }

  /** Whether callers must authenticate. */
  get authRequired(): boolean {
    return this.authenticator.required;
  }

  /** The policy in force. */
  get current(): AccessPolicy {
    return this.policy;
  }

  /** The scopes of operations and agents in force. */
  get scopes(): ScopePolicy {
    return this.scopePolicy;
  }

  /** The JWT issuers in force (their metadata, for the card). */
  get issuers(): Authenticator["jwtIssuers"] {
    return this.authenticator.jwtIssuers;
  }

  /** Who a request's credentials name: run once per request, before any binding. */
  identify(credentials: Credentials): Identification | Promise<Identification> {
    return this.authenticator.identify(credentials);
  }

  /** Whether a tenant may call an agent. */
  mayCall(tenant: string, agentId: string): boolean {
    const allowed = this.policy.agentTenants.get(agentId);
    return allowed === undefined || allowed.includes(tenant);
  }

  /** The scopes a caller lacks for an operation on an agent, reported as a refusal on `binding` when some are. */
  missingScopes(caller: Caller, operation: string, agentId: string, binding: string): string[] {
    const missing = this.scopePolicy.missing(caller, operation, agentId);
    if (missing.length > 0) this.refusals.report(binding, "scope", `missing scope ${missing.join(" ")}`, { tenant: caller.tenant, operation, agent: agentId });
    return missing;
  }

  /**
   * The full decision for a request to `agentId` (undefined: no agent named
   * yet), from its identification; a refusal is counted and logged under
   * `binding` (undefined: the decision is only looked at, not acted on),
   * from the client at `address`.
   */
  decide(identification: Identification, agentId: string | undefined, binding?: string, address?: string): AccessDecision {
    if (!identification.ok) {
      if (binding !== undefined) {
        this.refusals.report(binding, identification.refusal.reason, identification.refusal.message);
        this.onRefusal?.("unauthenticated", address);
      }
      return { ok: false, why: "unauthenticated", refusal: identification.refusal };
    }
    const caller = identification.caller;
    if (agentId !== undefined && !this.mayCall(caller.tenant, agentId)) return { ok: false, why: "unknown-agent" };
    const wait = this.limiter?.take(caller.tenant) ?? 0;
    if (wait > 0) {
      if (binding !== undefined) {
        this.refusals.note(binding, "over the tenant's rate limit", { tenant: caller.tenant, retryAfterS: wait });
        this.onRefusal?.("rate-limited", address);
      }
      return { ok: false, why: "rate-limited", retryAfterS: wait };
    }
    return { ok: true, tenant: caller.tenant, caller };
  }

  /** Identifies and decides at once, for callers without a request (tests, tools); static tokens only answer synchronously. */
  check(authorization: string | null | undefined, agentId: string | undefined): AccessDecision | Promise<AccessDecision> {
    const id = this.identify({ authorization });
    return id instanceof Promise ? id.then((i) => this.decide(i, agentId)) : this.decide(id, agentId);
  }

  /** The tenant an Authorization header names by a static token (OPEN_TENANT when authentication is off). */
  authenticate(authorization: string | null | undefined): string | undefined {
    const id = this.identify({ authorization });
    return id instanceof Promise || !id.ok ? undefined : id.caller.tenant;
  }
}
