/**
 * JSON-RPC 2.0 envelopes (jsonrpc.org/specification): what a Request
 * object must look like, and the Response objects the server writes.
 */

/** JSON-RPC 2.0 §4: a request id is a string, a number or null. */
export type JsonRpcId = string | number | null;

/** JSON-RPC 2.0 §5.1 error object. */
export interface JsonRpcError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** JSON-RPC 2.0 §5 response object. */
export type JsonRpcResponse =
  | { readonly jsonrpc: "2.0"; readonly id: JsonRpcId; readonly result: unknown }
  | { readonly jsonrpc: "2.0"; readonly id: JsonRpcId; readonly error: JsonRpcError };

/**
 * The envelope errors JSON-RPC defines for itself (§5.1), with the standard
 * messages of A2A §9.5. Invalid params (-32602) and internal errors (-32603)
 * are A2A errors and come from the core error table instead.
 */
export const ENVELOPE_ERRORS = {
  parseError: { code: -32700, message: "Invalid JSON payload" },
  invalidRequest: { code: -32600, message: "Request payload validation error" },
  methodNotFound: { code: -32601, message: "Method not found" },
} as const;

/** Which envelope error. */
export type EnvelopeErrorKind = keyof typeof ENVELOPE_ERRORS;

/** An envelope-level failure: the body is not JSON, not a Request, or names no method we serve. */
export class EnvelopeError extends Error {
  override readonly name = "EnvelopeError";
  constructor(
    readonly kind: EnvelopeErrorKind,
    readonly detail: string,
  ) {
    super(`${ENVELOPE_ERRORS[kind].message}: ${detail}`);
  }

  /** The JSON-RPC error object. */
  toJsonRpc(): JsonRpcError {
    return { code: ENVELOPE_ERRORS[this.kind].code, message: this.message };
  }
}

/** A well-formed JSON-RPC 2.0 Request object. */
export interface JsonRpcRequest {
  readonly method: string;
  /** The id to echo; null also when the request is a notification. */
  readonly id: JsonRpcId;
  /** JSON-RPC 2.0 §4.1: a request without an `id` member is a notification and gets no response. */
  readonly notification: boolean;
  /** The `params` member, undefined when absent. */
  readonly params: unknown;
}

/** The outcome of checking one element: a request, or an error to answer with the id it could recover. */
export type EnvelopeCheck = { readonly ok: true; readonly request: JsonRpcRequest } | { readonly ok: false; readonly id: JsonRpcId; readonly error: EnvelopeError };

/** Whether a value is a valid JSON-RPC id (JSON-RPC 2.0 §4). */
export function isJsonRpcId(v: unknown): v is JsonRpcId {
  return v === null || typeof v === "string" || (typeof v === "number" && Number.isFinite(v));
}

/**
 * JSON-RPC 2.0 §4: checks that `value` is a Request object: an object with
 * `jsonrpc` exactly "2.0", a string `method`, when present an `id` that is
 * a string, number or null, and when present `params` that is an object or
 * an array. The id of an invalid request is echoed
 * when it is itself valid, else null (§5).
 */
export function checkEnvelope(value: unknown): EnvelopeCheck {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return invalid(null, `expected a Request object, got ${describe(value)}`);
  }
  const o = value as Record<string, unknown>;
  const hasId = Object.prototype.hasOwnProperty.call(o, "id");
  if (hasId && !isJsonRpcId(o.id)) return invalid(null, `"id" must be a string, a number or null, got ${describe(o.id)}`);
  const id = hasId ? (o.id as JsonRpcId) : null;
  if (o.jsonrpc !== "2.0") {
    return invalid(id, o.jsonrpc === undefined ? `the "jsonrpc" member is missing; it must be "2.0"` : `"jsonrpc" must be "2.0", got ${describe(o.jsonrpc)}`);
  }
  if (typeof o.method !== "string") {
    return invalid(id, o.method === undefined ? `the "method" member is missing` : `"method" must be a string, got ${describe(o.method)}`);
  }
  // §4: params, when present, MUST be a structured value. A request with any other
  // params is not a valid notification either, so it is answered (id null without an id).
  if (Object.prototype.hasOwnProperty.call(o, "params") && (typeof o.params !== "object" || o.params === null)) {
    return invalid(id, `"params" must be an object or an array, got ${describe(o.params)}`);
  }
  return { ok: true, request: { method: o.method, id, notification: !hasId, params: o.params } };
}

/** A success response. */
export function resultResponse(id: JsonRpcId, result: unknown): JsonRpcResponse {
  return { jsonrpc: "2.0", id, result };
}

/** An error response. */
export function errorResponse(id: JsonRpcId, error: JsonRpcError): JsonRpcResponse {
  return { jsonrpc: "2.0", id, error };
}

function invalid(id: JsonRpcId, detail: string): EnvelopeCheck {
  return { ok: false, id, error: new EnvelopeError("invalidRequest", detail) };
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (v === undefined) return "nothing";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "string") return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  return typeof v === "object" ? "an object" : `${typeof v} ${String(v)}`;
}
