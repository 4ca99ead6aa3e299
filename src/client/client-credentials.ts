/** Where an OAuth 2.0 client gets its tokens, and as whom (RFC 6749 §4.4: the client-credentials grant). */
export interface ClientCredentialsOptions {
  /** The token endpoint; or give `issuer`, whose OpenID discovery document names it. */
  readonly tokenUrl?: string;
  readonly issuer?: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Space-separated scopes to ask for (RFC 6749 §3.3); default: what the server grants by default. */
  readonly scope?: string;
  /** Sent as RFC 8707 `resource` when set, for servers that issue tokens per resource. */
  readonly resource?: string;
  /** How long before its expiry a token is replaced (ms); default 30 s. */
  readonly earlyRefreshMs?: number;
}

/** What gives a client its bearer token for each request. */
export interface TokenSource {
  /** A token valid for a while yet. */
  token(): Promise<string>;
  /** Drops `token` (the server refused it), so that the next `token()` gets a new one. */
  invalidate(token: string): void;
}

/** Why a token could not be had, without the secret. */
export class TokenRequestError extends Error {
  override readonly name = "TokenRequestError";
}

/** How long an HTTP request to the authorization server may take. */
const TOKEN_TIMEOUT_MS = 10_000;

/**
 * OAuth 2.0 client credentials (RFC 6749 §4.4) with plain fetch: one form
 * POST with HTTP Basic client authentication (§2.3.1), the token kept
 * until shortly before `expires_in` runs out, a refused one dropped so
 * the next request asks again. Concurrent callers share one request.
 */
export class ClientCredentials implements TokenSource {
  private current: { token: string; until: number } | undefined;
  private pending: Promise<string> | undefined;
  private endpoint: string | undefined;

  constructor(private readonly options: ClientCredentialsOptions) {
    if (!options.tokenUrl && !options.issuer) throw new TypeError("client credentials need a tokenUrl or an issuer");
    this.endpoint = options.tokenUrl;
  }

  token(): Promise<string> {
    if (this.current && Date.now() < this.current.until) return Promise.resolve(this.current.token);
    return (this.pending ??= this.request().finally(() => (this.pending = undefined)));
  }

  invalidate(token: string): void {
    if (this.current?.token === token) this.current = undefined;
  }

  private async tokenEndpoint(): Promise<string> {
    if (this.endpoint) return this.endpoint;
    const issuer = this.options.issuer!;
    const res = await fetch(`${issuer.replace(/\/$/, "")}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS) });
    const doc = (await res.json().catch(() => undefined)) as { token_endpoint?: unknown } | undefined;
    if (!res.ok || typeof doc?.token_endpoint !== "string") throw new TokenRequestError(`the discovery document of ${issuer} names no token_endpoint (HTTP ${res.status})`);
    return (this.endpoint = doc.token_endpoint);
  }

  private async request(): Promise<string> {
    const url = await this.tokenEndpoint();
    const o = this.options;
    // RFC 6749 §2.3.1: the client id and secret form-urlencoded before Basic encoding.
    const basic = btoa(`${encodeURIComponent(o.clientId)}:${encodeURIComponent(o.clientSecret)}`);
    const body = new URLSearchParams({ grant_type: "client_credentials" });
    if (o.scope) body.set("scope", o.scope);
    if (o.resource) body.set("resource", o.resource);
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json", authorization: `Basic ${basic}` },
      body,
      signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS),
    });
    const json = (await res.json().catch(() => ({}))) as { access_token?: unknown; expires_in?: unknown; error?: unknown; error_description?: unknown };
    if (!res.ok || typeof json.access_token !== "string") {
      // RFC 6749 §5.2: the error code and its description, never the secret.
      throw new TokenRequestError(`the token endpoint ${url} refused: HTTP ${res.status}${json.error ? ` ${String(json.error)}` : ""}${json.error_description ? `: ${String(json.error_description)}` : ""}`);
    }
    const lifetimeMs = typeof json.expires_in === "number" ? json.expires_in * 1000 : 300_000;
    const early = Math.min(o.earlyRefreshMs ?? 30_000, lifetimeMs / 2);
    this.current = { token: json.access_token, until: Date.now() + lifetimeMs - early };
    return json.access_token;
  }
}
