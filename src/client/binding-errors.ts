import { Code, ConnectError } from "@connectrpc/connect";
import { A2AError, ENVELOPE_ERRORS, ERROR_TABLE, type A2AErrorName, type ErrorRow, type FieldViolation } from "../protocol/index.js";
import { BadRequestSchema, ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { clientFailure, type ClientFailureKind } from "./client-failure.js";

/*
 * Every binding's error, read back into the one A2AError (§5.4). The
 * ErrorInfo reason decides when the server sent one (§9.5, §10.6, §11.6);
 * otherwise the binding's code is looked up in ERROR_TABLE, the only place
 * codes are written down.
 */

const NAMES = Object.keys(ERROR_TABLE) as A2AErrorName[];

function namesWhere(match: (row: ErrorRow) => boolean): A2AErrorName[] {
  return NAMES.filter((n) => match(ERROR_TABLE[n]));
}

/** The A2A error an ErrorInfo reason names ("TASK_NOT_FOUND" → TaskNotFound). */
export function nameOfReason(reason: string): A2AErrorName | undefined {
  return namesWhere((row) => row.reason === reason)[0];
}

/**
 * When a code stands for several errors and no ErrorInfo says which, the
 * most general of them: InvalidParams for a bad request, UnsupportedOperation
 * for a refused precondition, Internal for a server failure, and the spec's
 * TaskNotFound for "not found" (an unknown agent always names itself by reason).
 */
function pick(candidates: readonly A2AErrorName[]): A2AErrorName | undefined {
  if (candidates.length === 1) return candidates[0];
  for (const general of ["InvalidParams", "UnsupportedOperation", "Internal", "TaskNotFound"] as const) if (candidates.includes(general)) return general;
  return undefined;
}

/** What the google.rpc details of an error body say (ProtoJSON `Any` objects with "@type"). */
interface DetailFacts {
  readonly reason?: string;
  readonly metadata: Record<string, string>;
  readonly violations: FieldViolation[];
}

function readDetails(details: unknown): DetailFacts {
  const facts: { reason?: string; metadata: Record<string, string>; violations: FieldViolation[] } = { metadata: {}, violations: [] };
  if (!Array.isArray(details)) return facts;
  for (const d of details) {
    if (!isObject(d) || typeof d["@type"] !== "string") continue;
    const type = d["@type"];
    if (type.endsWith(`/${ErrorInfoSchema.typeName}`)) {
      if (typeof d.reason === "string" && facts.reason === undefined) facts.reason = d.reason;
      if (isObject(d.metadata)) for (const [k, v] of Object.entries(d.metadata)) if (typeof v === "string") facts.metadata[k] = v;
    } else if (type.endsWith(`/${BadRequestSchema.typeName}`) && Array.isArray(d.fieldViolations)) {
      for (const v of d.fieldViolations) {
        if (isObject(v) && typeof v.field === "string") facts.violations.push({ field: v.field, description: typeof v.description === "string" ? v.description : "" });
      }
    }
  }
  return facts;
}

function build(name: A2AErrorName, message: string, facts: DetailFacts, extra: Record<string, string> = {}): A2AError {
  return new A2AError(name, message || ERROR_TABLE[name].title, { metadata: { ...facts.metadata, ...extra }, violations: facts.violations });
}

/**
 * §9.5: a JSON-RPC error object. The data's ErrorInfo names the error; else
 * the code is read through ERROR_TABLE (v0.3 used the same codes, §A); the
 * envelope codes of JSON-RPC 2.0 itself: an unknown method is an operation
 * the agent does not support, a malformed request is InvalidParams.
 */
export function fromJsonRpcError(error: unknown): A2AError {
  if (!isObject(error) || typeof error.code !== "number") return new A2AError("InvalidAgentResponse", "the agent answered with a malformed JSON-RPC error");
  const message = typeof error.message === "string" ? error.message : "";
  const facts = readDetails(error.data);
  const byReason = facts.reason === undefined ? undefined : nameOfReason(facts.reason);
  if (byReason) return build(byReason, message, facts);
  const code = error.code;
  if (code === ENVELOPE_ERRORS.methodNotFound.code) return build("UnsupportedOperation", message, facts, { jsonRpcCode: String(code) });
  if (code === ENVELOPE_ERRORS.invalidRequest.code || code === ENVELOPE_ERRORS.parseError.code) return build("InvalidParams", message, facts, { jsonRpcCode: String(code) });
  const name = pick(namesWhere((row) => row.jsonRpcCode === code)) ?? "Internal";
  return build(name, message, facts, { jsonRpcCode: String(code) });
}

/** HTTP statuses that are about the exchange, not the operation. */
const HTTP_FAILURES: Readonly<Record<number, ClientFailureKind>> = {
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  408: "DEADLINE_EXCEEDED",
  429: "RESOURCE_EXHAUSTED",
  502: "UNAVAILABLE",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

/** The exchange failure an HTTP status stands for whatever the body says (access, load, availability). */
export function exchangeFailureOf(status: number): ClientFailureKind | undefined {
  return HTTP_FAILURES[status];
}

/**
 * §11.6: an HTTP error response. The google.rpc.Status body's ErrorInfo
 * names the error (an RFC 9457 body's `reason` member too); else the
 * status is read through ERROR_TABLE where that is unambiguous. Statuses
 * about access or availability, and anything else, are client failures.
 */
export function fromHttpError(status: number, statusText: string, body: unknown): A2AError {
  const error = isObject(body) && isObject(body.error) ? body.error : isObject(body) ? body : {};
  const message = typeof error.message === "string" ? error.message : typeof error.detail === "string" ? error.detail : typeof error.title === "string" ? error.title : "";
  const facts = readDetails(error.details);
  const reason = facts.reason ?? (typeof error.reason === "string" ? error.reason : undefined);
  const byReason = reason === undefined ? undefined : nameOfReason(reason);
  if (byReason) return build(byReason, message, facts);
  const what = `HTTP ${status}${statusText ? ` ${statusText}` : ""}${message ? `: ${message}` : ""}`;
  const failure = HTTP_FAILURES[status];
  if (failure) return clientFailure(failure, what, undefined, { httpStatus: String(status) });
  if (status === 405 || status === 501) return build("UnsupportedOperation", what, facts, { httpStatus: String(status) });
  if (status === 415) return build("ContentTypeNotSupported", what, facts, { httpStatus: String(status) });
  // §11.6 makes ErrorInfo mandatory for A2A errors, so without one only the
  // statuses every A2A server uses for validation (400, with BadRequest), for
  // its own failures (500) and v1.0.0 §5.4's one 409 (servers of that version) are A2A errors; a 404 is then a wrong URL.
  if (status === 400 || status === 409 || status === 500) return build(pick(namesWhere((row) => row.httpStatus === status)) ?? "Internal", message || what, facts, { httpStatus: String(status) });
  return clientFailure("HTTP_STATUS", what, undefined, { httpStatus: String(status) });
}

/** gRPC codes that are about the exchange, not the operation. */
const GRPC_FAILURES: Partial<Record<Code, ClientFailureKind>> = {
  [Code.Unavailable]: "UNAVAILABLE",
  [Code.DeadlineExceeded]: "DEADLINE_EXCEEDED",
  [Code.Unauthenticated]: "UNAUTHENTICATED",
  [Code.PermissionDenied]: "PERMISSION_DENIED",
  [Code.Canceled]: "CANCELED",
  [Code.ResourceExhausted]: "RESOURCE_EXHAUSTED",
};

/** §10.6: a gRPC/Connect status; its ErrorInfo detail names the error, else the code via ERROR_TABLE. */
export function fromConnectError(e: ConnectError): A2AError {
  const info = e.findDetails(ErrorInfoSchema)[0];
  const violations = e.findDetails(BadRequestSchema).flatMap((b) => b.fieldViolations.map((v) => ({ field: v.field, description: v.description })));
  const facts: DetailFacts = { reason: info?.reason, metadata: { ...(info?.metadata ?? {}) }, violations };
  const byReason = info ? nameOfReason(info.reason) : undefined;
  if (byReason) return build(byReason, e.rawMessage, facts);
  const failure = GRPC_FAILURES[e.code];
  if (failure) return clientFailure(failure, `gRPC ${Code[e.code]}: ${e.rawMessage}`, e);
  if (e.code === Code.Unimplemented) return build("UnsupportedOperation", e.rawMessage, facts);
  const name = pick(namesWhere((row) => row.grpcCode === e.code)) ?? "Internal";
  return build(name, e.rawMessage, facts, { grpcCode: Code[e.code] ?? String(e.code) });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
