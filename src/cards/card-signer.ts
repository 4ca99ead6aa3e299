import { createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import { clone, create } from "@bufbuild/protobuf";
import { FlattenedSign, type JWK } from "jose";
import { AgentCardSchema, AgentCardSignatureSchema, type AgentCard, type AgentCardSignature } from "../../gen/a2a/v1/a2a_pb.js";
import { cardVerificationPayloads } from "../card-signature/index.js";

/** JWS algorithms a signing key may use, by the key type each needs. */
export const SIGNING_ALGORITHMS = ["ES256", "ES384", "EdDSA", "RS256", "PS256"] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];

/** One signing key as configured: a private key file (PEM or JWK JSON), its key id and algorithm. */
export interface SigningKeyConfig {
  readonly key: string;
  readonly kid: string;
  readonly alg: SigningAlgorithm;
}

/** A loaded signing key: the private half signs, the public half goes in the JWKS. */
export interface SigningKey {
  readonly kid: string;
  readonly alg: SigningAlgorithm;
  readonly privateKey: KeyObject;
  readonly publicJwk: JWK;
}

/** Signs served agent cards (§8.4) and publishes the keys that verify them. */
export interface CardSigner {
  /** The card with one signature per key appended; `jku` names the JWKS in each protected header. */
  sign(card: AgentCard, jku?: string): Promise<AgentCard>;
  /** The JWKS document (RFC 7517 §5) of every signing key's public half. */
  readonly jwks: { readonly keys: readonly JWK[] };
}

/** What each algorithm needs of the key (RFC 7518 §3, RFC 8037 §3.1). */
function checkKeyFits(key: KeyObject, alg: SigningAlgorithm, kid: string): void {
  const type = key.asymmetricKeyType;
  const curve = key.asymmetricKeyDetails?.namedCurve;
  const fits =
    alg === "ES256" ? type === "ec" && curve === "prime256v1"
    : alg === "ES384" ? type === "ec" && curve === "secp384r1"
    : alg === "EdDSA" ? type === "ed25519"
    : type === "rsa" || type === "rsa-pss";
  if (!fits) throw new Error(`signing key ${kid}: a ${type}${curve ? ` (${curve})` : ""} key cannot sign ${alg}`);
}

/** Reads a private key file: PEM (PKCS#8, SEC1 or PKCS#1) or a JWK with its private part. */
export function loadSigningKey(config: SigningKeyConfig): SigningKey {
  const text = readFileSync(config.key, "utf8");
  let privateKey: KeyObject;
  try {
    privateKey = text.trimStart().startsWith("{") ? createPrivateKey({ key: JSON.parse(text) as JsonWebKey, format: "jwk" }) : createPrivateKey(text);
  } catch (e) {
    throw new Error(`signing key ${config.kid}: ${config.key} is not a private key in PEM or JWK form (${(e as Error).message})`);
  }
  checkKeyFits(privateKey, config.alg, config.kid);
  const publicJwk: JWK = { ...(createPublicKey(privateKey).export({ format: "jwk" }) as JWK), kid: config.kid, alg: config.alg, use: "sig" };
  return { kid: config.kid, alg: config.alg, privateKey, publicJwk };
}

/** Cards signed per distinct payload: cards are rebuilt per request but few differ. */
const CACHE_LIMIT = 256;

/**
 * A signer over the keys in order. Every key signs (once per payload form,
 * see `sign`), so during a rotation a
 * card verifies with the old key and the new one (§8.4.3: several
 * signatures may be present); drop the old key when clients have the new JWKS.
 */
export function createCardSigner(keys: readonly SigningKey[]): CardSigner {
  if (keys.length === 0) throw new Error("card signing needs at least one key");
  const kids = new Set<string>();
  for (const k of keys) {
    if (kids.has(k.kid)) throw new Error(`signing key id ${k.kid} is listed twice`);
    kids.add(k.kid);
  }
  const cache = new Map<string, Promise<AgentCardSignature[]>>();
  const signWith = async (k: SigningKey, payload: string, jku: string | undefined): Promise<AgentCardSignature> => {
    // §8.4.2: alg, typ "JOSE" and kid in the protected header; jku when known.
    const header = { alg: k.alg, typ: "JOSE", kid: k.kid, ...(jku ? { jku } : {}) };
    const jws = await new FlattenedSign(new TextEncoder().encode(payload)).setProtectedHeader(header).sign(k.privateKey);
    return create(AgentCardSignatureSchema, { protected: jws.protected, signature: jws.signature });
  };
  const signaturesOf = (payloads: readonly string[], jku: string | undefined): Promise<AgentCardSignature[]> =>
    Promise.all(payloads.flatMap((payload) => keys.map((k) => signWith(k, payload, jku))));
  return {
    jwks: { keys: keys.map((k) => k.publicJwk) },
    async sign(card, jku) {
      // §8.4.1's payload; when a REQUIRED field is empty, also the one
      // @a2a-js/sdk computes (it drops empty values), so either verifier finds its match.
      const payloads = cardVerificationPayloads(card);
      const key = `${jku ?? ""}\n${payloads[0]}`;
      let signatures = cache.get(key);
      if (!signatures) {
        signatures = signaturesOf(payloads, jku);
        if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
        cache.set(key, signatures);
        signatures.catch(() => cache.delete(key));
      }
      const signed = clone(AgentCardSchema, card);
      signed.signatures = [...card.signatures, ...(await signatures)];
      return signed;
    },
  };
}
