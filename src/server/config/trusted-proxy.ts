import { isIP } from "node:net";

/** What a trusted proxy entry may be, for error messages. */
export const TRUSTED_PROXY_HINT = 'must be an IP address, a CIDR range (10.0.0.0/8, fd00::/8) or the word "loopback"';

/**
 * Whether `spec` names proxies the hub may believe X-Forwarded-* and
 * Forwarded (RFC 7239) headers from: an IPv4 or IPv6 address, a CIDR range
 * of either, or `loopback` (127.0.0.0/8 and ::1).
 */
export function isTrustedProxySpec(spec: string): boolean {
  if (spec === "loopback") return true;
  const slash = spec.indexOf("/");
  if (slash < 0) return isIP(spec) !== 0;
  const family = isIP(spec.slice(0, slash));
  const prefix = spec.slice(slash + 1);
  return family !== 0 && /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}
