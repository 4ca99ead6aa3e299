import { BlockList, isIP } from "node:net";

/** Which webhook addresses the operator allows beyond the public internet (§13.2). */
export interface AddressPolicyOptions {
  /** Allow every private, loopback and link-local range (development only). */
  readonly allowPrivateNetworks?: boolean;
  /** CIDR ranges allowed even though they are private, e.g. "127.0.0.1/32", "fd00::/8". */
  readonly allowCidrs?: readonly string[];
}

/** Ranges a webhook must never reach unless allow-listed: SSRF targets (§13.2). */
const BLOCKED_V4: ReadonlyArray<[string, number]> = [
  ["0.0.0.0", 8], // "this network", unspecified
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local, cloud metadata
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
];
const BLOCKED_V6: ReadonlyArray<[string, number]> = [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["fc00::", 7], // unique-local
  ["fe80::", 10], // link-local
  ["ff00::", 8], // multicast
  ["64:ff9b::", 96], // NAT64 can reach IPv4 internals
];

function parseCidr(cidr: string): { address: string; prefix: number; family: "ipv4" | "ipv6" } {
  const [address, prefixText] = cidr.split("/");
  const version = isIP(address ?? "");
  const prefix = Number(prefixText ?? (version === 6 ? 128 : 32));
  if (!address || version === 0 || !Number.isInteger(prefix) || prefix < 0 || prefix > (version === 6 ? 128 : 32)) {
    throw new Error(`not a CIDR range: ${JSON.stringify(cidr)}`);
  }
  return { address, prefix, family: version === 6 ? "ipv6" : "ipv4" };
}

/** The IPv4 address inside an IPv4-mapped IPv6 address (::ffff:a.b.c.d), or the address itself. */
function unmap(address: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (m) return m[1]!;
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (hex) {
    const hi = parseInt(hex[1]!, 16);
    const lo = parseInt(hex[2]!, 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return address;
}

/** Decides whether the hub may connect to an address for a webhook. */
export class AddressPolicy {
  private readonly blocked = new BlockList();
  private readonly allowed = new BlockList();
  private readonly allowAll: boolean;

  constructor(options: AddressPolicyOptions = {}) {
    this.allowAll = options.allowPrivateNetworks === true;
    for (const [a, p] of BLOCKED_V4) this.blocked.addSubnet(a, p, "ipv4");
    for (const [a, p] of BLOCKED_V6) this.blocked.addSubnet(a, p, "ipv6");
    for (const cidr of options.allowCidrs ?? []) {
      const c = parseCidr(cidr);
      this.allowed.addSubnet(c.address, c.prefix, c.family);
    }
  }

  /** Why `address` (an IP literal) is refused, or undefined when it is allowed. */
  refusal(address: string): string | undefined {
    const plain = unmap(address.replace(/^\[|\]$/g, ""));
    const version = isIP(plain);
    if (version === 0) return `${address} is not an IP address`;
    const family = version === 6 ? "ipv6" : "ipv4";
    if (this.allowAll || this.allowed.check(plain, family)) return undefined;
    if (this.blocked.check(plain, family)) return `${address} is in a private, loopback, link-local, multicast or reserved range`;
    return undefined;
  }
}
