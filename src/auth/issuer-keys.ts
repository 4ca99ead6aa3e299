import { jwksKeys, type JwksKeys } from "./jwks-keys.js";

/** How long an HTTP request to the identity provider may take before it counts as down. */
const FETCH_TIMEOUT_MS = 5_000;
/** How often an unknown `kid` may make the keys be fetched again. */
export const DEFAULT_REFETCH_COOLDOWN_MS = 30_000;

/** Where an issuer's keys are, and how often they may be fetched again. */
export interface IssuerKeysOptions {
  readonly issuer: string;
  /** The JWKS URL; without it, discovery (`{issuer}/.well-known/openid-configuration`). */
  readonly jwksUri?: string;
  readonly refetchCooldownMs?: number;
  /** Told when a fetch fails (the keys held so far stay in use). */
  readonly onFetchError?: (error: Error) => void;
}

/** The OpenID Provider Metadata fields the hub reads (OpenID Connect Discovery 1.0 §3). */
export interface ProviderMetadata {
  readonly issuer: string;
  readonly jwks_uri: string;
  readonly token_endpoint?: string;
}

async function getJson(url: string): Promise<unknown> {
  const res = await fetch(url, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), redirect: "error" });
  if (!res.ok) throw new Error(`GET ${url}: HTTP ${res.status}`);
  return res.json();
}

/** The discovery URL of an issuer (OpenID Connect Discovery 1.0 §4). */
export function discoveryUrl(issuer: string): string {
  return `${issuer.replace(/\/$/, "")}/.well-known/openid-configuration`;
}

/** An issuer's metadata, checked: its `issuer` must be the one configured (Discovery §4.3). */
export async function fetchProviderMetadata(issuer: string): Promise<ProviderMetadata> {
  const doc = (await getJson(discoveryUrl(issuer))) as Partial<ProviderMetadata> | null;
  if (!doc || doc.issuer !== issuer) throw new Error(`the discovery document of ${issuer} names another issuer (${JSON.stringify(doc?.issuer)})`);
  if (typeof doc.jwks_uri !== "string") throw new Error(`the discovery document of ${issuer} has no jwks_uri`);
  return doc as ProviderMetadata;
}

/**
 * An issuer's signing keys, fetched once and kept: fetched again when a
 * token names a key not among them, at most once per cooldown, and kept
 * as they are while the provider cannot be reached, so that a provider
 * outage stops new keys, not known ones.
 */
export class IssuerKeys {
  private keys: JwksKeys | undefined;
  /** When keys were last fetched for lack of any, and when for an unknown `kid`: each waits out the cooldown. */
  private lastAttempt = Number.NEGATIVE_INFINITY;
  private lastKidRefetch = Number.NEGATIVE_INFINITY;
  private pending: Promise<void> | undefined;
  private metadata: ProviderMetadata | undefined;

  constructor(private readonly options: IssuerKeysOptions) {}

  /** The provider's metadata once discovery has run (undefined with a configured jwksUri, or before). */
  get provider(): ProviderMetadata | undefined {
    return this.metadata;
  }

  /**
   * The keys for a token whose header names `kid`: those held when they
   * have it; else fetched again, at most once per cooldown for an unknown
   * kid (and, while none were ever fetched, once per cooldown too, so a
   * provider that is down is not asked on every request).
   */
  async current(kid: string | undefined): Promise<JwksKeys | undefined> {
    if (this.pending) await this.pending;
    if (this.keys && (kid === undefined || this.keys.kids.has(kid))) return this.keys;
    const cooldown = this.options.refetchCooldownMs ?? DEFAULT_REFETCH_COOLDOWN_MS;
    const now = Date.now();
    const due = this.keys ? now - this.lastKidRefetch >= cooldown : now - this.lastAttempt >= cooldown;
    if (!due) return this.keys;
    if (this.keys) this.lastKidRefetch = now;
    await this.fetch();
    return this.keys;
  }

  /** Fetches now (start-up warms the cache this way); failures keep what was held. Concurrent callers share one fetch. */
  fetch(): Promise<void> {
    if (this.pending) return this.pending;
    this.lastAttempt = Date.now();
    this.pending = (async () => {
      try {
        let uri = this.options.jwksUri;
        if (!uri) {
          this.metadata = await fetchProviderMetadata(this.options.issuer);
          uri = this.metadata.jwks_uri;
        }
        this.keys = jwksKeys(await getJson(uri));
      } catch (e) {
        this.options.onFetchError?.(e instanceof Error ? e : new Error(String(e)));
      } finally {
        this.pending = undefined;
      }
    })();
    return this.pending;
  }
}
