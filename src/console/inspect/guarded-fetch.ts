import * as http from "node:http";
import * as https from "node:https";
import { isIP } from "node:net";
import { Readable } from "node:stream";
import { guardedLookup, type AddressPolicy } from "../../push/index.js";
import { maskedHeaders, type RecordedExchange } from "./recorded-exchange.js";

/** Limits of the inspector's outbound requests. */
export interface GuardedFetchOptions {
  /** Who may be reached: the same policy as push webhooks (§13.2). */
  readonly policy: AddressPolicy;
  /** Largest response body read, bytes; past it the body errors. */
  readonly maxBytes: number;
  /** No response head within this many ms fails the request. */
  readonly timeoutMs: number;
  /** Numbers exchanges (shared with the gRPC recorder of the same call). */
  readonly nextId: () => number;
  /** Told about each exchange when its head arrives and again when it ends. */
  readonly onExchange: (e: RecordedExchange, done: boolean) => void;
}

const NULL_BODY = new Set([101, 204, 205, 304]);

/**
 * A fetch for the hub's own A2A client when the console inspects an agent
 * by URL: every connection is resolved through the push SSRF guard (so a
 * name cannot be re-pointed at a private address), redirects are not
 * followed, the head must come within the timeout and the body may not
 * grow past the limit. Each exchange is recorded for the raw pane.
 */
export function guardedFetch(options: GuardedFetchOptions): typeof fetch {
  return (input, init) =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
      const method = init?.method ?? "GET";
      const headers = Object.fromEntries(new Headers(init?.headers).entries());
      const body = typeof init?.body === "string" ? init.body : undefined;
      const ex: RecordedExchange = { id: options.nextId(), method, url: url.href, requestHeaders: maskedHeaders(headers), ...(body ? { requestBody: body } : {}) };
      const started = performance.now();
      const fail = (why: string): void => {
        ex.error = why;
        ex.totalMs = Math.round(performance.now() - started);
        options.onExchange(ex, true);
        reject(new TypeError(why));
      };
      if (url.protocol !== "http:" && url.protocol !== "https:") return fail(`${url.protocol} URLs are not fetched`);
      const host = url.hostname.replace(/^\[|\]$/g, "");
      const literal = isIP(host) ? options.policy.refusal(host) : undefined;
      if (literal) return fail(`refused address: ${literal}`);
      const client = url.protocol === "https:" ? https : http;
      const req = client.request(url, { method, headers: body ? { ...headers, "content-length": String(Buffer.byteLength(body)) } : headers, lookup: guardedLookup(options.policy), agent: false, signal: init?.signal ?? undefined });
      const timer = setTimeout(() => req.destroy(new Error(`no answer within ${options.timeoutMs} ms`)), options.timeoutMs);
      req.once("error", (e) => {
        clearTimeout(timer);
        fail(e.message.replace("refused webhook address", "refused address"));
      });
      req.once("response", (res) => {
        clearTimeout(timer);
        ex.status = res.statusCode ?? 0;
        ex.responseHeaders = maskedHeaders(res.headers);
        ex.headMs = Math.round(performance.now() - started);
        options.onExchange(ex, false);
        const sse = String(res.headers["content-type"] ?? "").startsWith("text/event-stream");
        let bytes = 0;
        let line = "";
        res.on("data", (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes > options.maxBytes) res.destroy(new Error(`the answer is larger than ${options.maxBytes} bytes`));
          if (sse) line = sseIds(line + chunk.toString("utf8"), ex);
        });
        const end = (why?: string): void => {
          if (ex.totalMs !== undefined) return;
          ex.bytes = bytes;
          ex.totalMs = Math.round(performance.now() - started);
          if (why) ex.error = why;
          options.onExchange(ex, true);
        };
        res.once("end", () => end());
        res.once("close", () => end(res.errored?.message));
        const responseHeaders = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) responseHeaders.set(k, Array.isArray(v) ? v.join(", ") : v);
        const webBody = NULL_BODY.has(ex.status) || method === "HEAD" ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
        resolve(new Response(webBody, { status: ex.status, statusText: res.statusMessage, headers: responseHeaders }));
      });
      req.end(body);
    });
}

/** Records the `id:` fields of the complete lines in `text`; returns the incomplete rest. */
function sseIds(text: string, ex: RecordedExchange): string {
  const lines = text.split(/\r?\n/);
  const rest = lines.pop() ?? "";
  for (const l of lines) if (l.startsWith("id:")) (ex.sseIds ??= []).push(l.slice(3).trim());
  return rest;
}
