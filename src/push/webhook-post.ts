import * as http from "node:http";
import * as https from "node:https";
import type { AddressPolicy } from "./address-policy.js";
import { guardedLookup } from "./url-guard.js";
import { isIP } from "node:net";

/** One webhook POST. */
export interface WebhookRequest {
  readonly url: string;
  readonly body: string;
  readonly headers: Record<string, string>;
  readonly timeoutMs: number;
}

/** What the receiver said: a 2xx status is success; anything else, or an error, is retried. */
export type WebhookOutcome = { readonly ok: true; readonly status: number } | { readonly ok: false; readonly reason: string };

/**
 * POSTs one payload. Redirects are not followed (§13.2: a redirect could
 * point anywhere); every address is checked again at connect time.
 */
export function postWebhook(req: WebhookRequest, policy: AddressPolicy): Promise<WebhookOutcome> {
  return new Promise((resolve) => {
    let url: URL;
    try {
      url = new URL(req.url);
    } catch {
      return resolve({ ok: false, reason: "invalid URL" });
    }
    const host = url.hostname.replace(/^\[|\]$/g, "");
    if (isIP(host)) {
      const why = policy.refusal(host);
      if (why) return resolve({ ok: false, reason: `refused webhook address: ${why}` });
    }
    const client = url.protocol === "https:" ? https : http;
    const request = client.request(
      url,
      {
        method: "POST",
        headers: { ...req.headers, "content-length": String(Buffer.byteLength(req.body)) },
        lookup: guardedLookup(policy),
        timeout: req.timeoutMs,
        agent: false,
      },
      (res) => {
        res.resume();
        const status = res.statusCode ?? 0;
        res.once("end", () => resolve(status >= 200 && status < 300 ? { ok: true, status } : { ok: false, reason: `HTTP ${status}` }));
        res.once("error", (e) => resolve({ ok: false, reason: e.message }));
      },
    );
    request.once("timeout", () => request.destroy(new Error(`no answer within ${req.timeoutMs} ms`)));
    request.once("error", (e) => resolve({ ok: false, reason: e.message }));
    request.end(req.body);
  });
}
