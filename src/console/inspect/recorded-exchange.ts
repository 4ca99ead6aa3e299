/**
 * One HTTP exchange the console's inspector made on the user's behalf, as
 * the raw pane shows it: what was sent, what came back, how long it took,
 * and for streams the SSE event ids or the gRPC status and trailers.
 */
export interface RecordedExchange {
  /** Numbers the exchanges of one inspector call, so a later update finds its head. */
  readonly id: number;
  readonly method: string;
  readonly url: string;
  readonly requestHeaders: Record<string, string>;
  /** The request body as sent (JSON text), when there was one. */
  readonly requestBody?: string;
  status?: number;
  responseHeaders?: Record<string, string>;
  /** Milliseconds until the response head arrived. */
  headMs?: number;
  /** Milliseconds until the response body ended (or the call failed). */
  totalMs?: number;
  /** Response body bytes read. */
  bytes?: number;
  /** `id:` fields of the server-sent events, in order (§9.4.2, §11.7). */
  sseIds?: string[];
  /** gRPC: the status code name and message, and the trailers. */
  grpcStatus?: string;
  grpcMessage?: string;
  trailers?: Record<string, string>;
  /** Why the exchange failed before or during the answer (refused address, timeout, too large). */
  error?: string;
}

/** Headers whose values are credentials: shown as their scheme and a mask, never in full. */
const SECRET = /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|api-key|x-auth-token)$/i;

/** Headers as a plain object, credentials masked (`Bearer •••• (24 chars)`). */
export function maskedHeaders(headers: Iterable<[string, string]> | Record<string, string | string[] | undefined>): Record<string, string> {
  const entries: [string, string][] = Symbol.iterator in headers ? [...(headers as Iterable<[string, string]>)] : Object.entries(headers as Record<string, string | string[] | undefined>).flatMap(([k, v]) => (v === undefined ? [] : [[k, Array.isArray(v) ? v.join(", ") : v] as [string, string]]));
  const out: Record<string, string> = {};
  for (const [k, v] of entries) out[k.toLowerCase()] = SECRET.test(k) ? mask(v) : v;
  return out;
}

function mask(value: string): string {
  const space = value.indexOf(" ");
  const scheme = space > 0 && space < 20 ? `${value.slice(0, space)} ` : "";
  return `${scheme}•••• (${value.length - scheme.length} chars)`;
}
