import type { Caller, Identification } from "./caller.js";
import { refused } from "./caller.js";

/** Which part of a verified client certificate names the caller. */
export type CertificateField = "subject.CN" | "san.uri" | "san.dns";

/** `auth.mtls`: how a verified client certificate becomes a tenant. */
export interface MtlsConfig {
  readonly tenantFrom: CertificateField;
  /** The field's value → tenant id; a value not listed is refused. */
  readonly map: Readonly<Record<string, string>>;
}

/** What the TLS layer says about the peer of a request. */
export interface PeerCertificate {
  /** Whether the chain verified against the configured client CA (and is in its validity period). */
  readonly authorized: boolean;
  /** OpenSSL's reason when it did not (CERT_HAS_EXPIRED, UNABLE_TO_VERIFY_LEAF_SIGNATURE, …). */
  readonly authorizationError?: string;
  readonly subjectCN?: string;
  /** `subjectaltname` as node:tls gives it: "URI:spiffe://…, DNS:bot.example". */
  readonly subjectAltName?: string;
}

/** The values of one kind in a subjectaltname string. */
function sanValues(san: string | undefined, kind: "URI" | "DNS"): string[] {
  return (san ?? "")
    .split(/,\s*/)
    .filter((e) => e.startsWith(`${kind}:`))
    .map((e) => e.slice(kind.length + 1));
}

/**
 * The caller a client certificate names (RFC 8705 §2: the TLS layer has
 * verified the chain; this maps the verified identity, e.g. a SPIFFE ID in
 * a SAN URI, to a tenant). Full access: a certificate carries no scopes.
 */
export function certificateCaller(peer: PeerCertificate, config: MtlsConfig): Identification {
  if (!peer.authorized) return refused("certificate", `the client certificate is not accepted (${peer.authorizationError ?? "not verified"})`);
  const candidates =
    config.tenantFrom === "subject.CN" ? (peer.subjectCN ? [peer.subjectCN] : []) : sanValues(peer.subjectAltName, config.tenantFrom === "san.uri" ? "URI" : "DNS");
  for (const value of candidates) {
    const tenant = config.map[value];
    if (tenant !== undefined) {
      const caller: Caller = { tenant, scopes: undefined, method: "mtls", subject: value };
      return { ok: true, caller };
    }
  }
  return refused("certificate", `the client certificate's ${config.tenantFrom} names no configured tenant`);
}
