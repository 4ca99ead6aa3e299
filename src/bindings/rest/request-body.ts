import { A2AError } from "../../core/index.js";
import { BodyTimeoutError, BodyTooLargeError, DEFAULT_MAX_JSON_DEPTH, exceedsJsonDepth, HttpFailure, jsonDepthRefusal, readBody, requireJsonContentType, type HttpRequest } from "../http/index.js";

/**
 * Reads a POST body as JSON; undefined when there is none (the SDK's
 * cancel, a bare subscribe), which the route reads as `{}`. A Content-Type
 * that is not JSON is ContentTypeNotSupported (415) before the body is read; a body over
 * `limit` is 413; JSON nesting deeper than `maxDepth` and text that is not
 * JSON are InvalidParams; a body not sent within the server's body timeout
 * is 408. Throws BodyAbortedError when the client goes away mid-body.
 */
export async function readJsonBody(req: HttpRequest, limit: number, maxDepth: number = DEFAULT_MAX_JSON_DEPTH): Promise<unknown> {
  requireJsonContentType(req);
  let body: Buffer;
  try {
    body = await readBody(req, limit);
  } catch (e) {
    if (e instanceof BodyTooLargeError) throw new HttpFailure("contentTooLarge", `${e.message}; send a smaller request`);
    // A slow sender still has a connection to answer on; one that went away does not.
    if (e instanceof BodyTimeoutError) throw new HttpFailure("requestTimeout", `${e.message}; send the whole body promptly`);
    throw e;
  }
  // Checked before parsing: every reader after JSON.parse walks the value recursively.
  if (exceedsJsonDepth(body, maxDepth)) throw new A2AError("InvalidParams", jsonDepthRefusal(maxDepth));
  const text = body.toString("utf8").replace(/^\uFEFF/, "");
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new A2AError("InvalidParams", `the request body is not JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
}
