import { BearerAuthenticator, type TenantTokens } from "./bearer-tokens.js";
import { RateLimiter, type RateLimit } from "./rate-limiter.js";

/** The tenant used when authentication is off. */
export const OPEN_TENANT = "default";

/** Who may call which agent. */
export interface AccessPolicy {
  /** Tenants and their token hashes; empty means authentication is off. */
  readonly tenants: readonly TenantTokens[];
  /** Agent id → tenants allowed to call it; an agent not listed may be called by every tenant. */
  readonly agentTenants: ReadonlyMap<string, readonly string[]>;
  /** Per-tenant rate limit; undefined means none. */
  readonly rateLimit?: RateLimit;
}

/** What the guard decided about one request. */
export type AccessDecision =
  | { readonly ok: true; readonly tenant: string }
  /** Missing or bad credentials: 401 / UNAUTHENTICATED. */
  | { readonly ok: false; readonly why: "unauthenticated" }
  /** The tenant may not call this agent: answered as if the agent did not exist (§3.3.2). */
  | { readonly ok: false; readonly why: "unknown-agent" }
  /** Over the rate limit: 429 / RESOURCE_EXHAUSTED, retry after `retryAfterS`. */
  | { readonly ok: false; readonly why: "rate-limited"; readonly retryAfterS: number };

/**
 * The one guard every binding applies before anything reaches the service
 * (§7.4, §13.1): authenticates the bearer token, checks the tenant may call
 * the agent, and spends from its rate limit.
 */
export class AccessGuard {
  private readonly authenticator: BearerAuthenticator;
  private readonly limiter: RateLimiter | undefined;

  constructor(
    private readonly policy: AccessPolicy,
    /** Told of every refusal (401, 429; not unknown-agent, which is answered as a missing agent). */
    private readonly onRefusal?: (why: "unauthenticated" | "rate-limited", address: string | undefined) => void,
  ) {
    this.authenticator = new BearerAuthenticator(policy.tenants);
    this.limiter = policy.rateLimit ? new RateLimiter(policy.rateLimit) : undefined;
  }

  /** Whether callers must authenticate. */
  get authRequired(): boolean {
    return this.policy.tenants.length > 0;
  }

  /** The tenant an Authorization header authenticates (OPEN_TENANT when authentication is off). */
  authenticate(authorization: string | null | undefined): string | undefined {
    return this.authRequired ? this.authenticator.authenticate(authorization) : OPEN_TENANT;
  }

  /** Whether a tenant may call an agent. */
  mayCall(tenant: string, agentId: string): boolean {
    const allowed = this.policy.agentTenants.get(agentId);
    return allowed === undefined || allowed.includes(tenant);
  }

  /** The full decision for a request to `agentId` (undefined: no agent named yet, e.g. a card stub) from the client at `address`. */
  check(authorization: string | null | undefined, agentId: string | undefined, address?: string): AccessDecision {
    const tenant = this.authenticate(authorization);
    if (tenant === undefined) {
      this.onRefusal?.("unauthenticated", address);
      return { ok: false, why: "unauthenticated" };
    }
    if (agentId !== undefined && !this.mayCall(tenant, agentId)) return { ok: false, why: "unknown-agent" };
    const wait = this.limiter?.take(tenant) ?? 0;
    if (wait > 0) {
      this.onRefusal?.("rate-limited", address);
      return { ok: false, why: "rate-limited", retryAfterS: wait };
    }
    return { ok: true, tenant };
  }
}
