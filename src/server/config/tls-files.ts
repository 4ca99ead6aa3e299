import { readFileSync } from "node:fs";
import { createPrivateKey, X509Certificate } from "node:crypto";
import { ConfigError } from "./config-error.js";
import type { HubConfig } from "./hub-config.js";

/** A certificate (chain) and its private key, PEM, as a TLS server takes them. */
export interface TlsFiles {
  readonly cert: Buffer;
  readonly key: Buffer;
  /** CA certificates client certificates are verified against (mutual TLS). */
  readonly clientCa?: Buffer;
}

/**
 * Reads and checks the TLS files at start: each must be readable PEM and
 * the key must belong to the certificate, so a wrong path or a swapped
 * pair fails the start naming the file rather than every handshake.
 */
export function readTlsFiles(tls: NonNullable<HubConfig["tls"]>): TlsFiles {
  const read = (key: string, file: string): Buffer => {
    try {
      return readFileSync(file);
    } catch (e) {
      throw new ConfigError(key, `cannot read ${file}: ${(e as Error).message}`);
    }
  };
  const cert = read("tls.cert", tls.certFile);
  const key = read("tls.key", tls.keyFile);
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch (e) {
    throw new ConfigError("tls.cert", `${tls.certFile} is not a PEM certificate (${(e as Error).message})`);
  }
  let privateKey;
  try {
    privateKey = createPrivateKey(key);
  } catch (e) {
    throw new ConfigError("tls.key", `${tls.keyFile} is not an unencrypted PEM private key (${(e as Error).message})`);
  }
  if (!x509.checkPrivateKey(privateKey)) throw new ConfigError("tls.key", `${tls.keyFile} is not the private key of the certificate in ${tls.certFile}`);
  if (!tls.clientCaFile) return { cert, key };
  const clientCa = read("tls.clientCa", tls.clientCaFile);
  try {
    new X509Certificate(clientCa);
  } catch (e) {
    throw new ConfigError("tls.clientCa", `${tls.clientCaFile} is not a PEM certificate (${(e as Error).message})`);
  }
  return { cert, key, clientCa };
}
