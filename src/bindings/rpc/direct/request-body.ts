import type { Readable } from "node:stream";
import { Code, ConnectError } from "@connectrpc/connect";
import type { HttpRequest } from "../../http/index.js";

/** How one protocol reads a request body: checked as it arrives, judged when it is complete. */
export interface BodyRules {
  /** Checked after each chunk, with every chunk so far and their total; an error ends the read. */
  chunk(chunks: readonly Buffer[], received: number): ConnectError | undefined;
  /** The message once the body is complete, or the error that refuses it. */
  end(chunks: readonly Buffer[], received: number): Uint8Array | ConnectError;
}

/**
 * Reads a request body by `rules` for the direct paths. Rejects with the
 * signal's reason when it aborts first (the call's deadline; a call
 * without one gives none), and with CANCELED when the client resets or
 * closes the request mid-body (nobody is left to answer; the caller sees
 * the close).
 */
export function readRequestBody(request: HttpRequest, signal: AbortSignal | undefined, rules: BodyRules): Promise<Uint8Array> {
  const req = bodySource(request);
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const chunks: Buffer[] = [];
    let received = 0;
    const fail = (error: unknown): void => {
      cleanup();
      reject(error);
    };
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk);
      received += chunk.length;
      const error = rules.chunk(chunks, received);
      if (error) fail(error);
    };
    const onEnd = (): void => {
      cleanup();
      const result = rules.end(chunks, received);
      if (result instanceof ConnectError) reject(result);
      else resolve(result);
    };
    const onGone = (): void => fail(new ConnectError("the client closed the request", Code.Canceled));
    const onAbort = (): void => fail(signal?.reason);
    const cleanup = (): void => {
      signal?.removeEventListener("abort", onAbort);
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onGone);
      req.off("aborted", onGone);
      req.off("close", onGone);
    };
    req.on("data", onData);
    req.once("end", onEnd);
    req.once("error", onGone);
    req.once("aborted", onGone);
    // Closed before its end: the client went (a call without a deadline has no signal to say so).
    req.once("close", onGone);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** The chunks of a body as one buffer. */
export function joined(chunks: readonly Buffer[], received: number): Buffer {
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks as Buffer[], received);
}

/**
 * What an HTTP/2 body is read from: the request's own Http2Stream. Why not
 * the compatibility request: it is a second Readable stacked on the stream,
 * so every chunk was pushed, buffered and handed on twice, each layer with
 * its own resume, readable and end ticks (docs/performance-notes.md). Read
 * from the stream, the compatibility request is never set flowing and
 * holds nothing. Its
 * "end" then never fires; the one-port server's body timer, which also
 * listens to it, is cleared by the answer's "close" and reads the stream's
 * own state.
 */
function bodySource(req: HttpRequest): Readable {
  return "stream" in req ? req.stream : req;
}
