import { createLocalJWKSet, createRemoteJWKSet, decodeProtectedHeader, flattenedVerify, type FlattenedVerifyGetKey, type JSONWebKeySet, type JWTVerifyGetKey } from "jose";
import type { AgentCard } from "../../gen/a2a/v1/a2a_pb.js";
import { cardVerificationPayloads } from "../card-signature/index.js";

/**
 * Whom a client trusts to sign agent cards (§8.4.3 step 2: keys from a
 * trusted store or a JWKS URL). A card's own `jku` is never fetched: a key
 * the card points at would prove nothing.
 */
export interface CardTrust {
  /** Trusted public keys, as a JWKS document. */
  readonly keys?: JSONWebKeySet;
  /** A JWKS URL the keys are read from (cached, refetched on an unknown kid). */
  readonly jwksUrl?: string;
}

/** The signature that verified. */
export interface VerifiedSignature {
  readonly kid: string;
  readonly alg: string;
}

/** A card whose signatures could not be verified with the trusted keys. */
export class CardSignatureError extends Error {
  override readonly name = "CardSignatureError";
}

/** Asymmetric algorithms only: an `alg: none` or HMAC header is refused before any key is looked up. */
const ALGORITHMS = ["ES256", "ES384", "ES512", "EdDSA", "Ed25519", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512"];

/** A verifier of cards against one trust setting; a remote JWKS is fetched once and cached. */
export function cardVerifier(trust: CardTrust): (card: AgentCard) => Promise<VerifiedSignature> {
  const sets: FlattenedVerifyGetKey[] = [];
  if (trust.keys) sets.push(asFlattened(createLocalJWKSet(trust.keys)));
  if (trust.jwksUrl) sets.push(asFlattened(createRemoteJWKSet(new URL(trust.jwksUrl), { timeoutDuration: 10_000 })));
  if (sets.length === 0) throw new TypeError("card verification needs trusted keys or a JWKS URL");
  return (card) => verifyCardSignatures(card, sets);
}

/** jose's JWKS lookups read only alg and kid, which a flattened JWS header has too. */
function asFlattened(set: JWTVerifyGetKey): FlattenedVerifyGetKey {
  return (header, token) => set({ ...header, alg: header?.alg ?? "" } as Parameters<JWTVerifyGetKey>[0], { payload: token.payload, signature: token.signature, protected: token.protected ?? "" });
}

/**
 * §8.4.3: succeeds when at least one of the card's signatures verifies with
 * a trusted key over the card's canonical payload (signatures excluded);
 * otherwise throws CardSignatureError saying why each one failed.
 */
async function verifyCardSignatures(card: AgentCard, sets: readonly FlattenedVerifyGetKey[]): Promise<VerifiedSignature> {
  if (card.signatures.length === 0) throw new CardSignatureError(`agent card "${card.name}" is not signed`);
  const payloads = cardVerificationPayloads(card).map((p) => Buffer.from(p, "utf8").toString("base64url"));
  const reasons: string[] = [];
  for (const [i, sig] of card.signatures.entries()) {
    let header;
    try {
      header = decodeProtectedHeader({ protected: sig.protected, payload: "", signature: sig.signature });
    } catch {
      reasons.push(`signature ${i}: the protected header is not base64url JSON`);
      continue;
    }
    // §8.4.2: alg, typ and kid are required in the protected header.
    if (!header.alg || !header.kid || !header.typ) {
      reasons.push(`signature ${i}: the protected header lacks alg, typ or kid`);
      continue;
    }
    let why = "";
    for (const getKey of sets) {
      for (const payload of payloads) {
        try {
          await flattenedVerify({ protected: sig.protected, payload, signature: sig.signature }, getKey, { algorithms: ALGORITHMS });
          return { kid: header.kid, alg: header.alg };
        } catch (e) {
          why = (e as { code?: string }).code === "ERR_JWS_SIGNATURE_VERIFICATION_FAILED" ? "the signature does not match the card (tampered, or signed over another card)" : (e as Error).message;
        }
      }
    }
    reasons.push(`signature ${i} (kid ${header.kid}, ${header.alg}): ${why}`);
  }
  throw new CardSignatureError(`agent card "${card.name}" failed signature verification: ${reasons.join("; ")}`);
}
