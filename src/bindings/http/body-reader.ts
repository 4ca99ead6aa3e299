import type { HttpRequest } from "./http-exchange.js";

/** Default cap on a request body: 10 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;

/** The body is larger than the configured limit; nothing beyond the limit was kept. */
export class BodyTooLargeError extends Error {
  override readonly name = "BodyTooLargeError";
  constructor(readonly limit: number) {
    super(`request body exceeds the limit of ${limit} bytes (limits.maxBodyBytes)`);
  }
}

/** The client went away (or the connection failed) before the body was complete. */
export class BodyAbortedError extends Error {
  override readonly name: string = "BodyAbortedError";
}

/**
 * The client did not finish sending the body within the server's body
 * timeout (a slow sender, or one that stopped). A facade answers it with
 * 408 Request Timeout (RFC 9110 §15.5.9), after which the connection is
 * closed; one that treats it as any BodyAbortedError leaves the server to
 * drop the exchange unanswered.
 */
export class BodyTimeoutError extends BodyAbortedError {
  override readonly name = "BodyTimeoutError";
  constructor(readonly timeoutMs: number) {
    super(`the request body was not received within ${timeoutMs} ms (limits.bodyTimeoutMs)`);
  }
}

/**
 * How to stop the body read in progress on a request with an error: a
 * property under a private symbol, not a WeakMap entry per request (an
 * ephemeron the garbage collector traces each time). The property holds an
 * object that holds the function, never the function itself: a closure
 * put straight on Node's IncomingMessage made every request's objects
 * outlive young-generation collections (docs/hot-path-objects.md).
 */
const STOP = Symbol("a2a-hub body read");
type Reading = HttpRequest & { [STOP]?: { readonly stop: (error: Error) => void } };

/**
 * Ends the body read in progress on `req` with a BodyTimeoutError, so the
 * facade reading it answers 408. Returns false when no body is being read
 * (the server then drops the exchange itself). Called by the server when
 * its body timer for the request expires.
 */
export function expireBody(req: HttpRequest, timeoutMs: number): boolean {
  const reading = (req as Reading)[STOP];
  if (!reading) return false;
  reading.stop(new BodyTimeoutError(timeoutMs));
  return true;
}

/**
 * Reads a request body into memory, at most `limit` bytes. A declared
 * Content-Length over the limit is refused before a byte is read; a body
 * that grows past it is refused the moment it does. In both cases nothing
 * more is buffered: the caller answers and calls `abandonBody`. A body
 * the client is too slow to send ends with BodyTimeoutError when the
 * server's timer expires (see expireBody).
 */
export function readBody(req: HttpRequest, limit: number = DEFAULT_MAX_BODY_BYTES): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const declared = Number(req.headers["content-length"]);
    if (Number.isFinite(declared) && declared > limit) {
      reject(new BodyTooLargeError(limit));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = (): void => {
      (req as Reading)[STOP] = undefined;
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("close", onClose);
    };
    const onData = (chunk: Buffer | string): void => {
      const buf = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      size += buf.length;
      if (size > limit) {
        cleanup();
        chunks.length = 0;
        req.pause();
        reject(new BodyTooLargeError(limit));
        return;
      }
      chunks.push(buf);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (e: Error): void => {
      cleanup();
      reject(new BodyAbortedError(`request body could not be read: ${e.message}`, { cause: e }));
    };
    // "close" before "end" means the peer went away mid-body.
    const onClose = (): void => {
      cleanup();
      reject(new BodyAbortedError("the client closed the connection before the body was complete"));
    };
    (req as Reading)[STOP] = {
      stop: (error) => {
        cleanup();
        chunks.length = 0;
        req.pause();
        reject(error);
      },
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("close", onClose);
  });
}

