import type { StreamResponse } from "../../gen/a2a/v1/a2a_pb.js";

/** The SSE ids of the events the JSON bindings read, kept beside the events rather than in them. */
const ids = new WeakMap<StreamResponse, string>();

/** Notes the SSE `id:` an event arrived with (when it had one) and returns the event. */
export function withEventId(event: StreamResponse, id: string | undefined): StreamResponse {
  if (id !== undefined) ids.set(event, id);
  return event;
}

/**
 * The SSE id a stream event arrived with over JSON-RPC or HTTP+JSON; a
 * client that lost the stream sends the last one back as `lastEventId`
 * to resubscribe after it (WHATWG HTML §9.2.4). Undefined over gRPC and
 * for events the server gave no id.
 */
export function streamEventId(event: StreamResponse): string | undefined {
  return ids.get(event);
}
