import { readFileSync } from "node:fs";
import tls from "node:tls";
import { UsageError } from "./cli-io.js";

/**
 * `--cacert FILE`: trusts the PEM certificates in FILE beside the system's
 * for this process's TLS connections (fetch and HTTP/2 alike), so the CLI
 * talks to a hub whose certificate a private CA signed. Node 22.19 and
 * newer can change the default CAs at run time; older ones are told about
 * NODE_EXTRA_CA_CERTS, which does the same when set before Node starts.
 */
export function trustExtraCa(file: string): void {
  let pem: string;
  try {
    pem = readFileSync(file, "utf8");
  } catch (e) {
    throw new UsageError(`--cacert: cannot read ${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const certs = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g);
  if (!certs) throw new UsageError(`--cacert: ${file} holds no PEM certificate`);
  const set = (tls as { setDefaultCACertificates?: (certs: string[]) => void }).setDefaultCACertificates;
  const get = (tls as { getCACertificates?: (which: string) => string[] }).getCACertificates;
  if (!set || !get) throw new UsageError(`--cacert needs Node 22.19 or newer (this is ${process.version}); set NODE_EXTRA_CA_CERTS=${file} instead`);
  set([...get("default"), ...certs]);
}
