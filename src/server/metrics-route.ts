import { timingSafeEqual } from "node:crypto";
import * as http from "node:http";
import { bearerToken, hashToken } from "../auth/index.js";
import type { HubMetrics } from "../telemetry/index.js";
import type { HttpRequest, HttpResponse } from "../bindings/http/index.js";

/** The Prometheus scrape path. */
export const METRICS_PATH = "/metrics";

/** Who may scrape. */
export interface MetricsAccess {
  /** SHA-256 hex of the scrape token (`Authorization: Bearer <token>`); required when set. */
  readonly tokenHash?: string;
  /** Tenants are configured: without a token hash, /metrics is then refused to everyone. */
  readonly tenantsConfigured: boolean;
}

/**
 * `GET /metrics` in the Prometheus text format. Behind the configured token
 * when there is one; with tenants configured and no token, refused (the
 * series name agents and, optionally, tenants); on an open hub, served to
 * loopback clients only. Returns false for any other request.
 */
export function metricsRoute(metrics: HubMetrics, access: MetricsAccess): (req: HttpRequest, res: HttpResponse) => boolean {
  const expected = access.tokenHash ? Buffer.from(access.tokenHash, "hex") : undefined;
  return (req, res) => {
    if ((req.url ?? "").split("?")[0] !== METRICS_PATH || (req.method !== "GET" && req.method !== "HEAD")) return false;
    const refusal = refusalOf(req, expected, access.tenantsConfigured);
    if (refusal) {
      send(res, refusal.status, "text/plain; charset=utf-8", `${refusal.message}\n`, refusal.status === 401 ? { "www-authenticate": 'Bearer realm="a2a-hub metrics"' } : {});
      return true;
    }
    metrics.scrape().then(
      ({ body, contentType }) => send(res, 200, contentType, req.method === "HEAD" ? "" : body),
      (e: unknown) => send(res, 500, "text/plain; charset=utf-8", `metrics collection failed: ${String(e)}\n`),
    );
    return true;
  };
}

function refusalOf(req: HttpRequest, expected: Buffer | undefined, tenantsConfigured: boolean): { status: number; message: string } | undefined {
  if (expected) {
    const token = bearerToken(req.headers.authorization);
    const got = token === undefined ? undefined : Buffer.from(hashToken(token), "hex");
    return got && got.length === expected.length && timingSafeEqual(got, expected) ? undefined : { status: 401, message: "a valid metrics bearer token is required" };
  }
  if (tenantsConfigured) return { status: 403, message: "metrics need a token when tenants are configured: set metrics.tokenHash" };
  const peer = req.socket?.remoteAddress ?? "";
  return isLoopbackAddress(peer) ? undefined : { status: 403, message: "metrics are served to loopback clients only unless metrics.tokenHash is set" };
}

function isLoopbackAddress(address: string): boolean {
  const a = address.startsWith("::ffff:") ? address.slice(7) : address;
  return a === "::1" || a.startsWith("127.");
}

function send(res: HttpResponse, status: number, contentType: string, body: string, headers: Record<string, string> = {}): void {
  (res as import("node:http").ServerResponse).writeHead(status, { "content-type": contentType, "cache-control": "no-store", "content-length": Buffer.byteLength(body), ...headers });
  res.end(body);
}

/**
 * A plain HTTP/1.1 listener of its own for `--metrics-port`: `handle`
 * answers what it serves (true), everything else is 404.
 */
export async function listenMetricsPort(port: number, host: string, handle: (req: http.IncomingMessage, res: http.ServerResponse) => boolean): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    if (!handle(req, res)) res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("only /metrics, /healthz and /readyz are served here\n");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return server;
}
