import { errors, jwtVerify, type JWTPayload } from "jose";
import type { Caller, Identification } from "./caller.js";
import { refused } from "./caller.js";
import { IssuerKeys } from "./issuer-keys.js";

/** One trusted identity provider, as `auth.jwt[]` configures it. */
export interface JwtIssuerConfig {
  /** The `iss` its tokens carry; an https URL (http only on a loopback address). */
  readonly issuer: string;
  /** Required `aud`: a token for another audience is refused. */
  readonly audience: string;
  /** Every token of this issuer is this tenant ... */
  readonly tenant?: string;
  /** ... or the tenant is this claim's value. */
  readonly tenantClaim?: string;
  /** The JWKS URL instead of discovery. */
  readonly jwksUri?: string;
  /** The claim holding the scopes; default `scope` (space-separated), else `scp` (a list). */
  readonly scopesClaim?: string;
  /** Seconds of clock difference tolerated on `exp` and `nbf`; default 30. */
  readonly clockSkewS?: number;
  /** How often an unknown key id may refetch the JWKS (ms); default 30 s. */
  readonly refetchCooldownMs?: number;
}

/** What a tenant-claim issuer may name: a configured tenant that no other issuer owns outright. */
export type TenantCheck = (tenant: string, issuer: string) => boolean;

/** Scopes from a claim: a space-separated string (RFC 8693 §4.2 `scope`) or a list (`scp`). */
function scopesFrom(value: unknown): Set<string> | undefined {
  if (typeof value === "string") return new Set(value.split(" ").filter((s) => s !== ""));
  if (Array.isArray(value) && value.every((s) => typeof s === "string")) return new Set(value as string[]);
  return undefined;
}

/**
 * Verifies access tokens of one issuer (RFC 9068 profile, RFC 8725 best
 * practice): the signature against the issuer's JWKS with only the
 * algorithms its keys allow, then `iss`, `aud`, `exp` and `nbf` with a
 * small clock skew; then maps the token to a tenant and its scopes.
 */
export class JwtIssuer {
  readonly keys: IssuerKeys;

  constructor(
    readonly config: JwtIssuerConfig,
    private readonly tenantAllowed: TenantCheck,
    onFetchError?: (error: Error) => void,
    keys?: IssuerKeys,
  ) {
    this.keys = keys ?? new IssuerKeys({ issuer: config.issuer, jwksUri: config.jwksUri, refetchCooldownMs: config.refetchCooldownMs, onFetchError });
  }

  /** The caller a token of this issuer names, or why it is refused. `kid` is the token's header's. */
  async verify(token: string, kid: string | undefined): Promise<Identification> {
    const keys = await this.keys.current(kid);
    if (!keys) return refused("signature", "the issuer's signing keys cannot be fetched");
    if (kid !== undefined && !keys.kids.has(kid)) return refused("signature", "the token is signed with a key the issuer does not publish");
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys.getKey, {
        issuer: this.config.issuer,
        audience: this.config.audience,
        algorithms: [...keys.algorithms],
        clockTolerance: this.config.clockSkewS ?? 30,
        requiredClaims: ["exp"],
      }));
    } catch (e) {
      return refusalOf(e);
    }
    return this.callerOf(payload);
  }

  private callerOf(payload: JWTPayload): Identification {
    let tenant = this.config.tenant;
    if (tenant === undefined) {
      const claim = payload[this.config.tenantClaim!];
      if (typeof claim !== "string" || claim === "") return refused("malformed", `the token has no ${this.config.tenantClaim} claim naming a tenant`);
      if (!this.tenantAllowed(claim, this.config.issuer)) return refused("issuer", `this issuer may not name tenant ${claim}`);
      tenant = claim;
    }
    const claimName = this.config.scopesClaim;
    const scopes = claimName !== undefined ? scopesFrom(payload[claimName]) : (scopesFrom(payload.scope) ?? scopesFrom(payload.scp));
    const caller: Caller = { tenant, scopes: scopes && scopes.size > 0 ? scopes : undefined, method: "jwt", subject: typeof payload.sub === "string" ? payload.sub : undefined };
    return { ok: true, caller };
  }
}

/** A jose failure as a refusal reason and a message that never quotes the token. */
function refusalOf(e: unknown): Identification {
  if (e instanceof errors.JWTExpired) return refused("expired", "the token has expired");
  if (e instanceof errors.JWTClaimValidationFailed) {
    if (e.claim === "iss") return refused("issuer", "the token's issuer is not trusted");
    if (e.claim === "aud") return refused("audience", "the token is for another audience");
    if (e.claim === "nbf") return refused("expired", "the token is not yet valid");
    if (e.claim === "exp") return refused("malformed", "the token has no expiry");
    return refused("malformed", `the token's ${e.claim} claim is invalid`);
  }
  if (e instanceof errors.JOSEAlgNotAllowed) return refused("signature", "the token's algorithm is not one of the issuer's keys");
  if (e instanceof errors.JWSSignatureVerificationFailed || e instanceof errors.JWKSNoMatchingKey || e instanceof errors.JWKSMultipleMatchingKeys) {
    return refused("signature", "the token's signature does not verify");
  }
  return refused("malformed", "the token is not a valid JWT");
}
