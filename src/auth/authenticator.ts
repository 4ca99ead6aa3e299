import { decodeJwt, decodeProtectedHeader } from "jose";
import { BearerAuthenticator, type TenantTokens } from "./bearer-tokens.js";
import { openCaller, refused, type Identification } from "./caller.js";
import { JwtIssuer, type JwtIssuerConfig } from "./jwt-issuer.js";
import { certificateCaller, type MtlsConfig, type PeerCertificate } from "./mtls-identity.js";
import type { IssuerKeys } from "./issuer-keys.js";

/** Tokens longer than this are refused before any parsing (a JWT of an IdP is far smaller). */
export const MAX_TOKEN_BYTES = 8 * 1024;

/** What a request shows of itself to be identified. */
export interface Credentials {
  readonly authorization: string | null | undefined;
  /** Present on a TLS connection that asked for client certificates and got one. */
  readonly peer?: PeerCertificate;
}

/** Every way a caller may prove who it is. */
export interface AuthenticatorOptions {
  readonly tenants: readonly TenantTokens[];
  readonly jwt?: readonly JwtIssuerConfig[];
  readonly mtls?: MtlsConfig;
  /** The tenant of a request when no way is configured. */
  readonly openTenant: string;
  /** Keys already fetched, by issuer, kept across a reload. */
  readonly keysOf?: (issuer: string) => IssuerKeys | undefined;
  readonly onFetchError?: (issuer: string, error: Error) => void;
}

/**
 * Turns a request's credentials into one Caller: a client certificate
 * (mTLS), a JWT access token of a configured issuer, or a static token;
 * or says why not. Synchronous unless a JWT is verified.
 */
export class Authenticator {
  private readonly statics: BearerAuthenticator;
  private readonly issuers = new Map<string, JwtIssuer>();
  /** The one answer of an open hub, made once rather than per request. */
  private readonly open: Identification;
  readonly required: boolean;

  constructor(private readonly options: AuthenticatorOptions) {
    this.statics = new BearerAuthenticator(options.tenants);
    const known = new Set(options.tenants.map((t) => t.tenant));
    // A tenant named outright by an issuer belongs to it: another issuer's tenant claim may not name it.
    const owner = new Map<string, string>();
    for (const j of options.jwt ?? []) if (j.tenant !== undefined) owner.set(j.tenant, j.issuer);
    const tenantAllowed = (tenant: string, issuer: string): boolean => known.has(tenant) && (owner.get(tenant) ?? issuer) === issuer;
    for (const j of options.jwt ?? []) {
      this.issuers.set(j.issuer, new JwtIssuer(j, tenantAllowed, (e) => options.onFetchError?.(j.issuer, e), options.keysOf?.(j.issuer)));
    }
    this.required = options.tenants.length > 0 || this.issuers.size > 0 || options.mtls !== undefined;
    this.open = { ok: true, caller: openCaller(options.openTenant) };
  }

  /** The configured issuers (their keys and metadata), for the card and for a reload to keep their caches. */
  get jwtIssuers(): readonly JwtIssuer[] {
    return [...this.issuers.values()];
  }

  /** Who the credentials name, or why they are refused. */
  identify(credentials: Credentials): Identification | Promise<Identification> {
    if (!this.required) return this.open;
    const { authorization, peer } = credentials;
    if (this.options.mtls && peer && (!authorization || !peer.authorized)) return certificateCaller(peer, this.options.mtls);
    if (!authorization) return refused("missing", "a bearer token is required");
    if (authorization.length > MAX_TOKEN_BYTES + 16) return refused("malformed", `the token is longer than ${MAX_TOKEN_BYTES} bytes`);
    const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
    if (!m) return refused("malformed", "the Authorization header is not 'Bearer <token>'");
    const token = m[1]!;
    if (token.length > MAX_TOKEN_BYTES) return refused("malformed", `the token is longer than ${MAX_TOKEN_BYTES} bytes`);
    const found = this.statics.identify(authorization);
    if (found) return { ok: true, caller: found };
    if (this.issuers.size === 0 || token.split(".").length !== 3) return refused("signature", "the token is not valid");
    let iss: unknown;
    let kid: unknown;
    try {
      iss = decodeJwt(token).iss;
      kid = decodeProtectedHeader(token).kid;
    } catch {
      return refused("malformed", "the token is not a valid JWT");
    }
    const issuer = typeof iss === "string" ? this.issuers.get(iss) : undefined;
    if (!issuer) return refused("issuer", "the token's issuer is not trusted");
    return issuer.verify(token, typeof kid === "string" ? kid : undefined);
  }
}
