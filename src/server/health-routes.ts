import type { HttpRequest, HttpResponse } from "../bindings/http/index.js";

/** What readiness depends on. */
export interface ReadinessState {
  /** A graceful stop has begun. */
  draining(): boolean;
  /** Why the store cannot serve now, or undefined when it can (it opened, so its migrations ran). */
  storeProblem(): string | undefined | Promise<string | undefined>;
}

/** The liveness path: the process answers. */
export const HEALTHZ_PATH = "/healthz";
/** The readiness path: the hub should get traffic. */
export const READYZ_PATH = "/readyz";

/**
 * `GET /healthz` (alive) and `GET /readyz` (store reachable, migrations
 * done, not draining): cheap, unauthenticated, never cached. During a
 * graceful stop /readyz answers 503 so a balancer takes the replica out
 * before it closes. Returns false for any other request.
 */
export function healthRoute(state: ReadinessState): (req: HttpRequest, res: HttpResponse) => boolean {
  return (req, res) => {
    const url = req.url ?? "";
    if (url !== HEALTHZ_PATH && url !== READYZ_PATH) return false;
    if (req.method !== "GET" && req.method !== "HEAD") return false;
    if (url === HEALTHZ_PATH) return answer(req, res, 200, { status: "ok" });
    if (state.draining()) return answer(req, res, 503, { status: "draining" });
    const problem = state.storeProblem();
    if (!(problem instanceof Promise)) return ready(req, res, problem);
    // A networked store is asked over the wire; the request is answered when it replies.
    problem.then(
      (p) => ready(req, res, p),
      (e: unknown) => ready(req, res, e instanceof Error ? e.message : String(e)),
    );
    return true;
  };
}

function ready(req: HttpRequest, res: HttpResponse, problem: string | undefined): true {
  return problem ? answer(req, res, 503, { status: "store unavailable", reason: problem }) : answer(req, res, 200, { status: "ready" });
}

function answer(req: HttpRequest, res: HttpResponse, status: number, body: unknown): true {
  const text = JSON.stringify(body);
  (res as import("node:http").ServerResponse).writeHead(status, { "content-type": "application/json", "cache-control": "no-store", "content-length": Buffer.byteLength(text) });
  if (req.method === "HEAD") res.end();
  else res.end(text);
  return true;
}
