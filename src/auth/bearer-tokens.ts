import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Caller } from "./caller.js";

/** SHA-256 of a bearer token, hex: what the config file stores instead of the token (§13.1). */
export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** A new random bearer token (256 bits, base64url). */
export function newToken(): string {
  return randomBytes(32).toString("base64url");
}

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerToken(authorization: string | null | undefined): string | undefined {
  if (!authorization) return undefined;
  const m = /^Bearer[ \t]+([A-Za-z0-9\-._~+/]+=*)[ \t]*$/i.exec(authorization);
  return m?.[1];
}

/** A tenant and the hashes of the tokens that authenticate it. */
export interface TenantTokens {
  readonly tenant: string;
  /** Lowercase hex SHA-256 hashes. */
  readonly tokenHashes: readonly string[];
  /** Scopes of the tokens that list some (`tokens: [{ hash, scopes }]`), by hash; a token not here has every scope. */
  readonly scopesByHash?: ReadonlyMap<string, readonly string[]>;
}

/**
 * Maps bearer tokens to tenants. Every stored hash is compared, in constant
 * time, whatever matches first, so timing tells nothing about which tenant
 * or how much of a hash matched.
 */
export class BearerAuthenticator {
  private readonly entries: Array<{ hash: Buffer; caller: Caller }> = [];

  constructor(tenants: readonly TenantTokens[]) {
    for (const t of tenants) {
      for (const h of t.tokenHashes) {
        if (!/^[0-9a-f]{64}$/i.test(h)) throw new Error(`tenant ${t.tenant}: token hash must be 64 hex characters`);
        const scopes = t.scopesByHash?.get(h.toLowerCase());
        this.entries.push({ hash: Buffer.from(h.toLowerCase(), "hex"), caller: { tenant: t.tenant, scopes: scopes && new Set(scopes), method: "static-token" } });
      }
    }
  }

  /** The tenant a header authenticates, or undefined. */
  authenticate(authorization: string | null | undefined): string | undefined {
    return this.identify(authorization)?.tenant;
  }

  /** The caller a header's token names (its tenant and scopes), or undefined. */
  identify(authorization: string | null | undefined): Caller | undefined {
    const token = bearerToken(authorization);
    const presented = createHash("sha256").update(token ?? "", "utf8").digest();
    let found: Caller | undefined;
    for (const e of this.entries) {
      if (timingSafeEqual(presented, e.hash) && token !== undefined && found === undefined) found = e.caller;
    }
    return found;
  }
}
