import { lookup } from "node:dns/promises";
import type { LookupFunction } from "node:net";
import { isIP } from "node:net";
import { lookup as lookupCallback } from "node:dns";
import type { AddressPolicy } from "./address-policy.js";

/**
 * §13.2: why a webhook URL may not be used, or undefined when it may.
 * The host is resolved and every address it resolves to must be allowed.
 * A name that does not resolve now is accepted: it points nowhere internal
 * yet, and every connection is checked again when a delivery is made.
 */
export async function pushUrlRefusal(rawUrl: string, policy: AddressPolicy): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return "is not an absolute URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "must be http or https";
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host)) return policy.refusal(host);
  let addresses: { address: string }[];
  try {
    addresses = await lookup(host, { all: true, verbatim: true });
  } catch {
    return undefined;
  }
  for (const a of addresses) {
    const why = policy.refusal(a.address);
    if (why) return `host ${host} resolves to ${why}`;
  }
  return undefined;
}

/**
 * A DNS lookup for outgoing webhook connections that refuses disallowed
 * addresses at connect time, so a name cannot be re-pointed at an internal
 * address between the check and the request (DNS rebinding).
 */
export function guardedLookup(policy: AddressPolicy): LookupFunction {
  return ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    lookupCallback(hostname, { ...options, all: true, verbatim: true }, (err, addresses) => {
      if (err) return callback(err);
      const list = addresses as unknown as { address: string; family: number }[];
      for (const a of list) {
        const why = policy.refusal(a.address);
        if (why) return callback(Object.assign(new Error(`refused webhook address: ${why}`), { code: "EA2AREFUSED" }));
      }
      if (options?.all) return callback(null, list);
      const first = list[0];
      if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: "ENOTFOUND" }));
      callback(null, first.address, first.family);
    });
  }) as LookupFunction;
}
