import type { Checker, Path } from "./config-checker.js";
import type { AuthConfig } from "./hub-config.js";

export const HASH = /^[0-9a-f]{64}$/;
export const HASH_HINT = "must be the SHA-256 hex digest of a token (run `npm start -- hash-token`), never the token itself";
/** RFC 6749 §3.3 scope-token: printable ASCII without space, '"' or '\'. */
export const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]+$/;
export const SCOPE_HINT = "must be a scope name: printable characters, no spaces or quotes";
const CERTIFICATE_FIELDS = ["subject.CN", "san.uri", "san.dns"] as const;

/** `tokens: ["<sha256>", { hash, scopes }]`: the hashes, and the scopes of those that list them. */
export function tenantTokensOf(c: Checker, raw: unknown, path: Path): { tokens: string[]; tokenScopes?: Record<string, string[]> } {
  if (!Array.isArray(raw)) c.fail(path, "must be a list");
  const tokenScopes: Record<string, string[]> = {};
  const tokens = raw.map((t, j) => {
    if (typeof t === "string") return c.string(t, [...path, j], HASH, HASH_HINT);
    const o = c.object(t, [...path, j]);
    c.known(o, [...path, j], ["hash", "scopes"]);
    const hash = c.string(o.hash, [...path, j, "hash"], HASH, HASH_HINT);
    tokenScopes[hash] = c.strings(o.scopes, [...path, j, "scopes"], SCOPE, SCOPE_HINT);
    return hash;
  });
  return { tokens, tokenScopes: Object.keys(tokenScopes).length > 0 ? tokenScopes : undefined };
}

/** "auth.jwt[0].issuer" for ["auth", "jwt", 0, "issuer"]. */
function keyOf(path: Path): string {
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? p : `.${p}`)).join("");
}

/** Whether a URL's host is a loopback address (where a plain-http identity provider is tolerated). */
function onLoopback(url: URL): boolean {
  const h = url.hostname.replace(/^\[|\]$/g, "");
  return h === "localhost" || h === "::1" || /^127\./.test(h);
}

/** An issuer or JWKS URL: https, or http on a loopback address (with a warning). */
function idpUrl(c: Checker, v: unknown, path: Path, warnings: string[]): string {
  const s = c.string(v, path);
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    c.fail(path, "must be an https:// URL");
  }
  if (url.protocol === "http:" && onLoopback(url)) warnings.push(`${keyOf(path)}: ${s} is plain http, accepted only because it is a loopback address`);
  else if (url.protocol !== "https:") c.fail(path, "must be an https:// URL (http:// only on a loopback address)");
  return s;
}

/**
 * `auth:` of the config file: JWT issuers (`jwt`), client certificates
 * (`mtls`), scope names (`scopes`), and the clock skew tolerated on token
 * times. A tenant an issuer or a certificate names must be declared under
 * `tenants`.
 */
export function authOf(c: Checker, raw: unknown, tenantIds: ReadonlySet<string>): AuthConfig | undefined {
  if (raw === undefined) return undefined;
  const o = c.object(raw, ["auth"]);
  c.known(o, ["auth"], ["jwt", "scopes", "mtls", "clockSkewSeconds"]);
  const warnings: string[] = [];
  const tenant = (v: unknown, path: Path): string => {
    const t = c.string(v, path);
    if (!tenantIds.has(t)) c.fail(path, `no tenant ${t} is declared under tenants`);
    return t;
  };
  const list = o.jwt === undefined ? [] : Array.isArray(o.jwt) ? o.jwt : c.fail(["auth", "jwt"], "must be a list of issuers");
  const issuers = new Set<string>();
  const jwt = list.map((item, i) => {
    const path = ["auth", "jwt", i];
    const j = c.object(item, path);
    c.known(j, path, ["issuer", "audience", "tenant", "tenantClaim", "jwksUri", "scopesClaim"]);
    const issuer = idpUrl(c, j.issuer, [...path, "issuer"], warnings);
    if (issuers.has(issuer)) c.fail([...path, "issuer"], `issuer ${issuer} is listed twice`);
    issuers.add(issuer);
    if (j.audience === undefined) c.fail([...path, "audience"], "is required: the audience (aud) the hub's tokens are issued for");
    if ((j.tenant === undefined) === (j.tenantClaim === undefined)) c.fail(path, "needs exactly one of tenant (every token is that tenant) and tenantClaim (the claim naming the tenant)");
    return {
      issuer,
      audience: c.string(j.audience, [...path, "audience"]),
      tenant: j.tenant === undefined ? undefined : tenant(j.tenant, [...path, "tenant"]),
      tenantClaim: c.optString(j.tenantClaim, [...path, "tenantClaim"]),
      jwksUri: j.jwksUri === undefined ? undefined : idpUrl(c, j.jwksUri, [...path, "jwksUri"], warnings),
      scopesClaim: c.optString(j.scopesClaim, [...path, "scopesClaim"]),
    };
  });
  let scopes: AuthConfig["scopes"];
  if (o.scopes !== undefined) {
    const s = c.object(o.scopes, ["auth", "scopes"]);
    c.known(s, ["auth", "scopes"], ["send", "read", "cancel", "push"]);
    const name = (k: string): string | undefined => c.optString(s[k], ["auth", "scopes", k], SCOPE, SCOPE_HINT);
    scopes = { send: name("send"), read: name("read"), cancel: name("cancel"), push: name("push") };
  }
  let mtls: AuthConfig["mtls"];
  if (o.mtls !== undefined) {
    const m = c.object(o.mtls, ["auth", "mtls"]);
    c.known(m, ["auth", "mtls"], ["tenantFrom", "map"]);
    const from = c.string(m.tenantFrom, ["auth", "mtls", "tenantFrom"]);
    if (!(CERTIFICATE_FIELDS as readonly string[]).includes(from)) c.fail(["auth", "mtls", "tenantFrom"], `must be one of ${CERTIFICATE_FIELDS.join(", ")}`);
    const map = c.object(m.map, ["auth", "mtls", "map"]);
    const entries = Object.entries(map).map(([k, v]) => [k, tenant(v, ["auth", "mtls", "map", k])] as const);
    if (entries.length === 0) c.fail(["auth", "mtls", "map"], "must map at least one certificate name to a tenant");
    mtls = { tenantFrom: from as (typeof CERTIFICATE_FIELDS)[number], map: Object.fromEntries(entries) };
  }
  const clockSkewSeconds = o.clockSkewSeconds === undefined ? undefined : c.int(o.clockSkewSeconds, ["auth", "clockSkewSeconds"], 0, 300);
  return { jwt, scopes, mtls, clockSkewSeconds, warnings };
}
