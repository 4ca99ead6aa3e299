import { createLocalJWKSet, type JSONWebKeySet, type JWK, type JWTVerifyGetKey } from "jose";

/** The signature algorithms a public key of the JWKS may verify: from its `alg`, else from its type (RFC 7518 §3.1). */
function algorithmsOf(jwk: JWK): string[] {
  if (jwk.use !== undefined && jwk.use !== "sig") return [];
  if (typeof jwk.alg === "string") return /^(?:none|HS\d+)$/i.test(jwk.alg) ? [] : [jwk.alg];
  if (jwk.kty === "RSA") return ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512"];
  if (jwk.kty === "EC") return ({ "P-256": ["ES256"], "P-384": ["ES384"], "P-521": ["ES512"] } as Record<string, string[]>)[jwk.crv ?? ""] ?? [];
  if (jwk.kty === "OKP") return jwk.crv === "Ed25519" || jwk.crv === "Ed448" ? ["EdDSA", "Ed25519"] : [];
  // "oct" (a shared secret) never verifies a token of an identity provider.
  return [];
}

/** One fetched JWKS: the keys, the algorithms they allow, and their ids. */
export interface JwksKeys {
  readonly getKey: JWTVerifyGetKey;
  /** Only what the keys themselves allow: never `none`, never HMAC (no public key is an HMAC secret). */
  readonly algorithms: readonly string[];
  readonly kids: ReadonlySet<string>;
}

/** The usable signing keys of a JWKS document. */
export function jwksKeys(doc: unknown): JwksKeys {
  const keys = (typeof doc === "object" && doc !== null && Array.isArray((doc as JSONWebKeySet).keys) ? (doc as JSONWebKeySet).keys : undefined) ?? [];
  if (keys.length === 0 && !(typeof doc === "object" && doc !== null && Array.isArray((doc as JSONWebKeySet).keys))) throw new Error("the document is not a JWKS (no keys list)");
  const usable = keys.filter((k) => algorithmsOf(k).length > 0 && k.kty !== "oct" && !("d" in k));
  const algorithms = [...new Set(usable.flatMap(algorithmsOf))];
  return {
    getKey: createLocalJWKSet({ keys: usable }),
    algorithms,
    kids: new Set(usable.map((k) => k.kid).filter((k): k is string => typeof k === "string")),
  };
}
