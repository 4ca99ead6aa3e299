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
  private lastAttempt = Number.NEGATIVE_INFINITY;
  private pending: Promise<void> | undefined;
  private metadata: ProviderMetadata | undefined;

  constructor(private readonly options: IssuerKeysOptions) {}

  /** The provider's metadata once discovery has run (undefined with a configured jwksUri, or before). */
  get provider(): ProviderMetadata | undefined {
    return this.metadata;
  }

  /** The keys, fetching them first when none were ever fetched (or `kid` is unknown and the cooldown has passed). */
  async current(kid: string | undefined): Promise<JwksKeys | undefined> {
    if (this.keys && (kid === undefined || this.keys.kids.has(kid))) return this.keys;
    const cooldown = this.options.refetchCooldownMs ?? DEFAULT_REFETCH_COOLDOWN_MS;
    if (this.pending) await this.pending;
    else if (Date.now() - this.lastAttempt >= cooldown) await (this.pending = this.fetch().finally(() => (this.pending = undefined)));
    return this.keys;
  }

  /** Fetches now (start-up warms the cache this way); failures keep what was held. */
  fetch(): Promise<void> {
    this.lastAttempt = Date.now();
    return (async () => {
      try {
        let uri = this.options.jwksUri;
        if (!uri) {
          this.metadata = await fetchProviderMetadata(this.options.issuer);
          uri = this.metadata.jwks_uri;
        }
        this.keys = jwksKeys(await getJson(uri));
      } catch (e) {
        this.options.onFetchError?.(e instanceof Error ? e : new Error(String(e)));
      }
    })();
  }
}
