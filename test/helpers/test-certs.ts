import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A PEM certificate and its key, and where they were written. */
export interface CertPair {
  readonly cert: Buffer;
  readonly key: Buffer;
  readonly certFile: string;
  readonly keyFile: string;
}

/**
 * Certificates made by openssl for one test: CAs, a server certificate for
 * 127.0.0.1, and client certificates (a SPIFFE ID as SAN URI, or an
 * expired one) signed by a CA. P-256 keys, one day of validity.
 */
export class TestCerts {
  readonly dir = mkdtempSync(join(tmpdir(), "a2a-hub-certs-"));
  private n = 0;

  private openssl(args: string[]): void {
    execFileSync("openssl", args, { stdio: "ignore" });
  }

  private pair(name: string): CertPair {
    const certFile = join(this.dir, `${name}.pem`);
    const keyFile = join(this.dir, `${name}.key`);
    return {
      certFile,
      keyFile,
      get cert() {
        return readFileSync(certFile);
      },
      get key() {
        return readFileSync(keyFile);
      },
    };
  }

  /** A self-signed certificate: a CA, or (with `san`) a server's own. */
  selfSigned(name: string, cn: string, san?: string): CertPair {
    const p = this.pair(name);
    this.openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", p.keyFile, "-out", p.certFile, "-days", "1", "-subj", `/CN=${cn}`, ...(san ? ["-addext", `subjectAltName=${san}`] : [])]);
    return p;
  }

  /** A client certificate signed by `ca`; `expired` makes one whose validity ended a day ago. */
  signed(name: string, ca: CertPair, cn: string, options: { san?: string; expired?: boolean } = {}): CertPair {
    const p = this.pair(name);
    const csr = join(this.dir, `${name}.csr`);
    this.openssl(["req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", p.keyFile, "-out", csr, "-subj", `/CN=${cn}`]);
    const ext = join(this.dir, `${name}-${this.n++}.ext`);
    writeFileSync(ext, `basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n${options.san ? `subjectAltName=${options.san}\n` : ""}`);
    this.openssl(["x509", "-req", "-in", csr, "-CA", ca.certFile, "-CAkey", ca.keyFile, "-CAcreateserial", "-out", p.certFile, "-days", options.expired ? "-1" : "1", "-extfile", ext]);
    return p;
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
