import type { TLSSocket } from "node:tls";
import { scopeRefusal, type AccessDecision, type AccessGuard, type Credentials, type Identification, type PeerCertificate } from "../../auth/index.js";
import type { CallScope } from "../../core/index.js";
import { writeHead, type HttpRequest, type HttpResponse } from "./http-exchange.js";
import { HTTP_FAILURES, httpFailureBody } from "./http-failure.js";

/** Kept on the request under a private symbol: who it was found to be, once. */
const IDENTIFICATION = Symbol("a2a-hub identification");
type Identified = HttpRequest & { [IDENTIFICATION]?: Identification };

/** What the TLS connection says about the client's certificate, when it sent one. */
function peerOf(req: HttpRequest): PeerCertificate | undefined {
  const socket = req.socket as Partial<TLSSocket> | undefined;
  if (!socket || typeof socket.getPeerCertificate !== "function") return undefined;
  const cert = socket.getPeerCertificate();
  if (!cert || Object.keys(cert).length === 0) return undefined;
  return {
    authorized: socket.authorized === true,
    authorizationError: socket.authorizationError === undefined || socket.authorizationError === null ? undefined : String(socket.authorizationError),
    subjectCN: typeof cert.subject?.CN === "string" ? cert.subject.CN : undefined,
    subjectAltName: cert.subjectaltname,
  };
}

/** The credentials a request carries: its Authorization header, and its client certificate when mTLS is configured. */
export function credentialsOf(req: HttpRequest, withCertificate: boolean): Credentials {
  const authorization = req.headers.authorization;
  return { authorization, peer: withCertificate ? peerOf(req) : undefined };
}

/**
 * Identifies every request once, before any binding sees it, and keeps the
 * result on the request: each binding then decides with the same caller.
 * A JWT is verified before the request is handed on (its body waits,
 * unread, meanwhile).
 */
export function identifyFirst<Req extends HttpRequest, Res extends HttpResponse>(guard: AccessGuard, handler: (req: Req, res: Res) => void): (req: Req, res: Res) => void {
  return (req, res) => {
    const id = guard.identify(credentialsOf(req, guard.current.mtls !== undefined));
    if (!(id instanceof Promise)) {
      (req as Identified)[IDENTIFICATION] = id;
      return handler(req, res);
    }
    id.catch((): Identification => ({ ok: false, refusal: { reason: "malformed", message: "the token could not be verified" } }))
      .then((found) => {
        (req as Identified)[IDENTIFICATION] = found;
        handler(req, res);
      })
      // The handlers answer their own failures; this is the last resort, so that nothing is left unanswered.
      .catch(() => {
        if (!res.headersSent) writeHead(res, HTTP_FAILURES.internal.httpStatus, { "content-type": "application/json" });
        if (!res.writableEnded) res.end(JSON.stringify(httpFailureBody("internal", "internal error")));
      });
  };
}

/** What identifyFirst found for a request, if it passed there. */
export function keptIdentification(req: HttpRequest): Identification | undefined {
  return (req as Identified)[IDENTIFICATION];
}

/** Who a request was found to be; requests that did not pass identifyFirst are identified now (static tokens and open hubs only). */
export function identificationOf(guard: AccessGuard, req: HttpRequest): Identification {
  const kept = (req as Identified)[IDENTIFICATION];
  if (kept) return kept;
  const id = guard.identify(credentialsOf(req, guard.current.mtls !== undefined));
  return id instanceof Promise ? { ok: false, refusal: { reason: "malformed", message: "the token was not verified before the request was routed" } } : id;
}

/**
 * The call scope of an admitted request (§13.1): its tenant, the agents it
 * may use, and the scope check core applies to each operation (§7.5),
 * counted under `binding` when it refuses.
 */
export function callScopeOf(guard: AccessGuard, decision: AccessDecision & { ok: true }, binding: string, agentId?: string, tenantNamesAgent?: boolean): CallScope {
  const { tenant, caller } = decision;
  const refuseOperation =
    caller.scopes === undefined
      ? undefined
      : (operation: string, agent: string): Error | undefined => {
          const missing = guard.missingScopes(caller, operation, agent, binding);
          return missing.length > 0 ? scopeRefusal(missing, operation, agent) : undefined;
        };
  return { tenant, agentId, mayCall: (id) => guard.mayCall(tenant, id), tenantNamesAgent, refuseOperation };
}
