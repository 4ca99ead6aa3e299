import type * as http2 from "node:http2";

/** An HTTP/2 session that has served requests and has none open is closed (GOAWAY) after this. */
const H2_IDLE_TIMEOUT_MS = 5 * 60_000;

/**
 * An HTTP/2 session with no stream open is closed (GOAWAY): after
 * `firstMs` if it never opened one (a preface and silence), after
 * H2_IDLE_TIMEOUT_MS once it has served requests. A stream open keeps it,
 * however quiet (a subscription waiting for events).
 *
 * One idle timer per session, re-armed (`refresh`) whenever its last
 * stream closes and ignored while a stream is open, rather than a timer
 * made at each close and cleared at the next stream: a client that sends
 * one call at a time closes its last stream on every call.
 */
export function watchSessionIdle(session: http2.ServerHttp2Session, firstMs: number, onSilent: () => void): void {
  let open = 0;
  let served = false;
  const closeIfIdle = (): void => {
    if (open !== 0 || session.closed || session.destroyed) return;
    if (!served) onSilent();
    session.close();
  };
  let timer = setTimeout(closeIfIdle, firstMs);
  session.on("stream", (stream) => {
    open++;
    if (!served) {
      served = true;
      clearTimeout(timer);
      timer = setTimeout(closeIfIdle, H2_IDLE_TIMEOUT_MS);
      timer.unref();
    }
    stream.once("close", () => {
      if (--open === 0) timer.refresh();
    });
  });
  session.once("close", () => clearTimeout(timer));
}
