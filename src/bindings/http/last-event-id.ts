import { headerValue, type HttpRequest } from "./http-exchange.js";

/**
 * Where a reconnecting SSE client wants a stream to resume: the
 * Last-Event-ID header (WHATWG HTML §9.2.4) read as an event-log sequence
 * number, the SSE `id:` the facades write. Undefined when the header is
 * absent or empty (a fresh subscription). A value that is not a decimal
 * number is NaN, which the service refuses as invalid params naming
 * Last-Event-ID, so a client with a foreign id learns why instead of
 * silently getting the whole stream again.
 */
export function lastEventId(req: HttpRequest): number | undefined {
  const raw = headerValue(req, "last-event-id")?.trim();
  if (raw === undefined || raw === "") return undefined;
  return /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
}
