/** How many recent events an encoder remembers: more than one commit's burst (the echo agent's 16 per turn, up to four turns per unit: core/unit-of-work.ts). */
const REMEMBERED = 128;
/** An encoding longer than this (UTF-16 units or bytes) is not kept: the ring must not hold large events alive. */
const MAX_KEPT_SIZE = 16 * 1024;

/**
 * An encoder that encodes each event once, however many streams send it.
 * The bus hands one event object to every subscriber of a task
 * (execution/event-bus.ts), so with 10,000 subscribers the first stream's
 * encoding serves the other 9,999. Events read from the store (a snapshot,
 * a log replay) are objects of their own and are simply encoded.
 *
 * Why a ring of the last few events and not a WeakMap keyed by event: a
 * stream of one reader (the common case) would ask the WeakMap to insert
 * every event and the GC to clear its entries (docs/performance-notes.md).
 * Subscribers of one task read the same burst of
 * live events within one pass of the event loop, so the last few are all
 * that is ever asked for again; bounded in count and in size, the ring
 * keeps no large event alive.
 */
export function encodeOnce<E extends object, R extends string | Uint8Array>(encode: (event: E) => R): (event: E) => R {
  const events: Array<E | undefined> = new Array<E | undefined>(REMEMBERED).fill(undefined);
  const encodings: Array<R | undefined> = new Array<R | undefined>(REMEMBERED).fill(undefined);
  let next = 0;
  return (event) => {
    const at = events.indexOf(event);
    if (at >= 0) return encodings[at]!;
    const r = encode(event);
    if (r.length <= MAX_KEPT_SIZE) {
      events[next] = event;
      encodings[next] = r;
      next = (next + 1) % REMEMBERED;
    }
    return r;
  };
}
