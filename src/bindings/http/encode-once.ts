/**
 * An encoder that encodes each event once, however many streams send it.
 * The bus hands one event object to every subscriber of a task
 * (execution/event-bus.ts), so with 10,000 subscribers the first stream's
 * encoding serves the other 9,999. Events read from the store (a snapshot,
 * a log replay) are objects of their own and are simply encoded; an entry
 * lives only as long as its event.
 */
export function encodeOnce<E extends object, R>(encode: (event: E) => R): (event: E) => R {
  const encoded = new WeakMap<E, R>();
  return (event) => {
    let r = encoded.get(event);
    if (r === undefined) {
      r = encode(event);
      encoded.set(event, r);
    }
    return r;
  };
}
