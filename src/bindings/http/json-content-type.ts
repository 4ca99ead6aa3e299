import { A2AError } from "../../core/index.js";
import { headerValue, type HttpRequest } from "./http-exchange.js";

/** Whether a Content-Type names JSON: application/json, application/a2a+json (§14.1) or any other +json type. */
export function isJsonMediaType(contentType: string): boolean {
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  return type === "application/json" || /^application\/[^/\s]+\+json$/.test(type);
}

/**
 * §9.1/§11.1: JSON-RPC and REST bodies are JSON. A body declared as
 * anything else (`text/plain`, a form) is ContentTypeNotSupported, judged
 * from the header before the body is read. No Content-Type, or an empty
 * body, is let through: the body itself then decides.
 */
export function requireJsonContentType(req: HttpRequest): void {
  const contentType = headerValue(req, "content-type");
  if (contentType === undefined || contentType.trim() === "" || isJsonMediaType(contentType)) return;
  if (headerValue(req, "content-length") === "0") return;
  throw new A2AError("ContentTypeNotSupported", `request bodies are application/json or application/a2a+json, not ${contentType}`, {
    metadata: { contentType },
  });
}
