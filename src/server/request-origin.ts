import { BlockList, isIP } from "node:net";
import type { HttpRequest } from "../bindings/http/index.js";

/**
 * Which peers may tell the hub, through `Forwarded` (RFC 7239) or
 * `X-Forwarded-Proto`/`X-Forwarded-Host`, the scheme and host a client
 * used. Anyone else's forwarding headers are ignored: a client that could
 * set them would choose the URLs the hub's cards advertise.
 */
export class TrustedProxies {
  private readonly list = new BlockList();
  /** True when at least one proxy is trusted. */
  readonly any: boolean;

  /** `entries`: IP addresses, CIDR blocks (`10.0.0.0/8`, `fd00::/8`) or `loopback`. Throws on anything else. */
  constructor(entries: readonly string[] = []) {
    for (const entry of entries) {
      if (entry === "loopback") {
        this.list.addSubnet("127.0.0.0", 8, "ipv4");
        this.list.addAddress("::1", "ipv6");
        continue;
      }
      const [address, bits, extra] = entry.split("/");
      const family = isIP(address ?? "");
      if (!family || extra !== undefined) throw new Error(`trusted proxy ${JSON.stringify(entry)}: expected an IP address, a CIDR block or "loopback"`);
      const type = family === 4 ? "ipv4" : "ipv6";
      if (bits === undefined) {
        this.list.addAddress(address!, type);
        continue;
      }
      const prefix = Number(bits);
      if (!/^\d{1,3}$/.test(bits) || prefix > (family === 4 ? 32 : 128)) throw new Error(`trusted proxy ${JSON.stringify(entry)}: bad prefix length`);
      this.list.addSubnet(address!, prefix, type);
    }
    this.any = entries.length > 0;
  }

  /** Whether a connection from `address` is a trusted proxy. */
  trusts(address: string | undefined): boolean {
    if (!this.any || !address) return false;
    // An IPv4 peer on a dual-stack socket reads as ::ffff:a.b.c.d.
    const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
    if (v4) return this.list.check(v4, "ipv4");
    return this.list.check(address, isIP(address) === 6 ? "ipv6" : "ipv4");
  }
}

/** How the hub tells the base URL a request reached it at. */
export interface OriginPolicy {
  /** The configured public base URL; when set, nothing in the request matters. */
  readonly publicUrl?: string;
  readonly trustedProxies: TrustedProxies;
}

/** The base URL a request reached the hub at, or why it cannot be told. */
export type RequestOrigin =
  | {
      readonly ok: true;
      /** e.g. `https://agents.example.org/` (always ends in `/`). */
      readonly baseUrl: string;
      /** The request headers the URL was read from: an answer built on it varies by them. */
      readonly vary: readonly string[];
    }
  | { readonly ok: false; readonly message: string };

/**
 * RFC 3986 §3.2.2 host with an optional port: a bracketed IPv6 literal, or
 * dot-separated labels (IPv4 and DNS names; `_` tolerated as container
 * names use it). Anything else (spaces, `@`, `/`, a second colon) is not a
 * host a URL can be built from.
 */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?)(?::(\d{1,5}))?$/;

/** Whether `value` is a valid `host[:port]`. */
export function isValidHost(value: string): boolean {
  const m = HOST.exec(value);
  return m !== null && value.length <= 261 && (m[1] === undefined || Number(m[1]) <= 65535);
}

/** The first value of a header that may repeat or hold a comma-separated list. */
function first(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return v?.split(",")[0]?.trim() || undefined;
}

/** RFC 7239 §4: `proto` and `host` of the first (client-facing) element of `Forwarded`. */
function forwarded(value: string | string[] | undefined): { proto?: string; host?: string } {
  const element = first(value);
  if (!element) return {};
  const out: { proto?: string; host?: string } = {};
  for (const pair of element.split(";")) {
    const eq = pair.indexOf("=");
    if (eq < 0) continue;
    const key = pair.slice(0, eq).trim().toLowerCase();
    const raw = pair.slice(eq + 1).trim();
    const val = raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
    if (key === "proto") out.proto = val.toLowerCase();
    else if (key === "host") out.host = val;
  }
  return out;
}

/** `address:port` of the connection's local end (IPv6 bracketed). */
function localAuthority(req: HttpRequest): string {
  const address = req.socket?.localAddress ?? "127.0.0.1";
  const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  const host = v4 ?? (address.includes(":") ? `[${address}]` : address);
  return `${host}:${req.socket?.localPort ?? 80}`;
}

const FORWARDING_HEADERS = ["forwarded", "x-forwarded-proto", "x-forwarded-host"] as const;

/**
 * The base URL a request reached the hub at: the configured public URL;
 * else, from a trusted proxy, what `Forwarded` or `X-Forwarded-*` say;
 * else the request's own `Host` (`:authority` on HTTP/2) and whether the
 * connection is TLS. A host that is not a valid `host[:port]` is refused
 * (RFC 9112 §3.2: 400), so no card ever carries it.
 */
export function requestOrigin(req: HttpRequest, policy: OriginPolicy): RequestOrigin {
  if (policy.publicUrl) return { ok: true, baseUrl: policy.publicUrl.endsWith("/") ? policy.publicUrl : `${policy.publicUrl}/`, vary: [] };
  const encrypted = (req.socket as { encrypted?: boolean } | undefined)?.encrypted === true;
  let proto = encrypted ? "https" : "http";
  let host = (req.headers[":authority"] as string | undefined) ?? first(req.headers.host);
  const vary = ["Host"];
  if (policy.trustedProxies.trusts(req.socket?.remoteAddress)) {
    vary.push("Forwarded", "X-Forwarded-Proto", "X-Forwarded-Host");
    const f = forwarded(req.headers[FORWARDING_HEADERS[0]]);
    const fProto = f.proto ?? first(req.headers[FORWARDING_HEADERS[1]])?.toLowerCase();
    const fHost = f.host ?? first(req.headers[FORWARDING_HEADERS[2]]);
    if (fProto !== undefined) {
      if (fProto !== "http" && fProto !== "https") return { ok: false, message: `the forwarded protocol ${JSON.stringify(fProto)} is not http or https` };
      proto = fProto;
    }
    if (fHost !== undefined) {
      if (!isValidHost(fHost)) return { ok: false, message: `the forwarded host ${JSON.stringify(fHost)} is not a valid host[:port]` };
      host = fHost;
    }
  }
  // HTTP/1.0 may name no host: the address the connection reached is one the client can use.
  host ??= localAuthority(req);
  if (!isValidHost(host)) return { ok: false, message: `the Host header ${JSON.stringify(host)} is not a valid host[:port]` };
  return { ok: true, baseUrl: `${proto}://${host}/`, vary };
}
