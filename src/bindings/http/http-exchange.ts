import type * as http from "node:http";
import * as http2 from "node:http2";
import { jsonText } from "./raw-json.js";

/** A request as both node:http and the node:http2 compatibility API deliver it. */
export type HttpRequest = http.IncomingMessage | http2.Http2ServerRequest;

/** A response as both node:http and the node:http2 compatibility API deliver it. */
export type HttpResponse = http.ServerResponse | http2.Http2ServerResponse;

/** Whether the exchange runs over HTTP/2, where connection-specific headers are forbidden (RFC 9113 §8.2.2). */
export function isHttp2(req: HttpRequest): boolean {
  return req.httpVersionMajor >= 2;
}

/** One request header as a string; repeated headers are joined with ", " as RFC 9110 §5.3 allows. */
export function headerValue(req: HttpRequest, name: string): string | undefined {
  const v = req.headers[name.toLowerCase()];
  if (v === undefined) return undefined;
  return Array.isArray(v) ? v.join(", ") : String(v);
}

/** The request's query parameters (the path is not needed here). */
export function queryParams(req: HttpRequest): URLSearchParams {
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  return new URLSearchParams(q < 0 ? "" : url.slice(q + 1));
}

/**
 * The request headers as a fetch Headers object, for the call context.
 * HTTP/2 pseudo-headers (":path", …) are not headers and are left out.
 */
export function requestHeaders(req: HttpRequest): Headers {
  const out = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (name.startsWith(":") || value === undefined) continue;
    try {
      for (const v of Array.isArray(value) ? value : [String(value)]) out.append(name, v);
    } catch {
      // A header value fetch refuses (e.g. control characters) is not worth failing the call for.
    }
  }
  return out;
}

/**
 * The request headers as a call context takes them (core's CallContextInit):
 * the fetch Headers made only when something reads them, and one header
 * read straight from the request meanwhile.
 */
export function lazyRequestHeaders(req: HttpRequest): { requestHeader: () => Headers; header: (name: string) => string | undefined } {
  return { requestHeader: () => requestHeaders(req), header: (name) => headerValue(req, name) };
}

/**
 * Writes an answer's status and headers on either protocol. Since
 * @types/node 24 the two responses' writeHead overloads no longer unify,
 * so a union cannot call it directly; both take (status, headers).
 */
export function writeHead(res: HttpResponse, status: number, headers: http.OutgoingHttpHeaders): void {
  (res as http.ServerResponse).writeHead(status, headers);
}

/**
 * Writes a complete JSON response; `body` undefined writes no body (e.g.
 * 204). HTTP/1.1 gets a Content-Length; HTTP/2 ends the stream instead
 * (RFC 9113 §8.1.1), because some clients (curl 7.x) stall on a
 * Content-Length in an answer that arrives before their upload finished.
 */
export function sendJson(res: HttpResponse, status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): void {
  if (body === undefined) {
    writeHead(res, status, { ...headers });
    res.end();
    return;
  }
  const text = jsonText(body);
  const length: Record<string, string> = res instanceof http2.Http2ServerResponse ? {} : { "content-length": String(Buffer.byteLength(text)) };
  writeHead(res, status, { "content-type": "application/json", ...length, ...headers });
  res.end(text);
}

/**
 * For an answer written before the request body was read (too large, or
 * refused from its headers): the rest of the body is not wanted. HTTP/1.1
 * drains it, and unless `keepAlive`, closes the connection after the answer
 * (the "connection: close" header this returns); HTTP/2 resets just the
 * stream with NO_ERROR once the answer is sent, as RFC 9113 §8.1 suggests.
 */
export function abandonBody(req: HttpRequest, res: HttpResponse, options: { keepAlive?: boolean } = {}): Record<string, string> {
  req.on("error", () => {});
  if (req.readableEnded) return {};
  if (isHttp2(req)) {
    const stream = (req as http2.Http2ServerRequest).stream;
    res.once("finish", () => {
      if (!stream.closed) stream.close(http2.constants.NGHTTP2_NO_ERROR);
    });
    req.resume();
    return {};
  }
  req.resume();
  return options.keepAlive ? {} : { connection: "close" };
}
