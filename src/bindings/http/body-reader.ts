import type { Readable } from "node:stream";
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
 * How one binding reads a request body: what it refuses as the bytes
 * arrive, what it makes of them once complete, and what a client gone
 * mid-body is on its wire.
 */
export interface BodyRules<T extends Uint8Array = Uint8Array> {
  /** Checked after each chunk, with every chunk so far and their total; an error ends the read. */
  chunk(chunks: readonly Buffer[], received: number): Error | undefined;
  /** The body once complete, or the error that refuses it. */
  end(chunks: readonly Buffer[], received: number): T | Error;
  /** The error a read ends with when the client goes away mid-body; `cause` is the stream's error, when it gave one. */
  gone(cause: Error | undefined): Error;
  /**
   * The JSON facades' reading: the server's body timer ends it with
   * BodyTimeoutError (expireBody), so the facade answers 408; a refusal
   * pauses the request, so nothing more is buffered before the answer; and
   * the body is read from the request itself. Without it (the direct RPC
   * path) the body timer drops the exchange, and an HTTP/2 body is read
   * from its own stream (see bodySource).
   */
  readonly timed?: boolean;
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
 * facade reading it answers 408. Returns false when no timed body read is
 * in progress (the server then drops the exchange itself). Called by the
 * server when its body timer for the request expires.
 */
export function expireBody(req: HttpRequest, timeoutMs: number): boolean {
  const reading = (req as Reading)[STOP];
  if (!reading) return false;
  reading.stop(new BodyTimeoutError(timeoutMs));
  return true;
}

/**
 * Reads a request body by `rules`: the one reader every binding uses.
 * Rejects with the first error `rules` give, with the signal's reason when
 * it aborts first (a call's deadline; a read without one passes none), and
 * with `rules.gone` when the client resets or closes the request mid-body.
 * Nothing is kept once the read has ended.
 */
export function readRequestBody<T extends Uint8Array>(request: HttpRequest, signal: AbortSignal | undefined, rules: BodyRules<T>): Promise<T> {
  const timed = rules.timed === true;
  const req = timed ? request : bodySource(request);
  return new Promise<T>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const chunks: Buffer[] = [];
    let received = 0;
    // A refusal (`pause`) leaves a timed request paused, so nothing more is buffered before the answer.
    const fail = (error: unknown, pause?: boolean): void => {
      cleanup();
      chunks.length = 0;
      if (pause && timed) req.pause();
      reject(error);
    };
    const onData = (chunk: Buffer | string): void => {
      const buf = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      chunks.push(buf);
      received += buf.length;
      const error = rules.chunk(chunks, received);
      if (error) fail(error, true);
    };
    const onEnd = (): void => {
      cleanup();
      const result = rules.end(chunks, received);
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    // "error" hands over why; "close" (and "aborted") before "end" mean the peer went away mid-body.
    const onGone = (cause?: unknown): void => fail(rules.gone(cause instanceof Error ? cause : undefined));
    const onAbort = (): void => fail(signal?.reason);
    const cleanup = (): void => {
      if (timed) (request as Reading)[STOP] = undefined;
      signal?.removeEventListener("abort", onAbort);
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onGone);
      req.off("aborted", onGone);
      req.off("close", onGone);
    };
    if (timed) (request as Reading)[STOP] = { stop: (error) => fail(error, true) };
    req.on("data", onData);
    req.once("end", onEnd);
    req.once("error", onGone);
    // A facade's request says "aborted" before the "error" that tells why; the direct path has no use for why.
    if (!timed) req.once("aborted", onGone);
    // Closed before its end: the client went (a call without a deadline has no signal to say so).
    req.once("close", onGone);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** The chunks of a body as one buffer; a body of one chunk is not copied. */
export function joined(chunks: readonly Buffer[], received: number): Buffer {
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks as Buffer[], received);
}

/** The JSON facades' rules: at most `limit` bytes, a copy of them once complete. */
class LimitedBody implements BodyRules<Buffer> {
  readonly timed = true;
  constructor(private readonly limit: number) {}

  chunk(_chunks: readonly Buffer[], received: number): Error | undefined {
    return received > this.limit ? new BodyTooLargeError(this.limit) : undefined;
  }

  end(chunks: readonly Buffer[], received: number): Buffer {
    return Buffer.concat(chunks as Buffer[], received);
  }

  gone(cause: Error | undefined): Error {
    return cause
      ? new BodyAbortedError(`request body could not be read: ${cause.message}`, { cause })
      : new BodyAbortedError("the client closed the connection before the body was complete");
  }
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
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(new BodyTooLargeError(limit));
  return readRequestBody(req, undefined, new LimitedBody(limit));
}

/**
 * What an HTTP/2 body is read from on the direct path: the request's own
 * Http2Stream. Why not the compatibility request: it is a second Readable
 * stacked on the stream, so every chunk was pushed, buffered and handed on
 * twice, each layer with its own resume, readable and end ticks
 * (docs/performance-notes.md). Read from the stream, the compatibility
 * request is never set flowing and holds nothing. Its "end" then never
 * fires; the one-port server's body timer, which also listens to it, is
 * cleared by the answer's "close" and reads the stream's own state.
 */
function bodySource(req: HttpRequest): Readable {
  return "stream" in req ? req.stream : req;
}
