import { describe, expect, it } from "vitest";
import { encodeOnce } from "../../../../src/bindings/http/index.js";

/** An encoder that counts its calls, over events that are plain objects. */
function counted(size = 8) {
  let calls = 0;
  const encode = encodeOnce((e: { n: number }) => {
    calls++;
    return `${e.n}`.padEnd(size, ".");
  });
  return { encode, calls: () => calls };
}

describe("encodeOnce: one encoding per event for every stream that sends it", () => {
  it("encodes an event once however many subscribers ask, in either order", () => {
    const { encode, calls } = counted();
    // One unit's burst at most: the echo agent's 16 events a turn, four turns (core/engine/unit-of-work.ts).
    const burst = Array.from({ length: 64 }, (_, n) => ({ n }));
    // Subscriber after subscriber, each reading the whole burst...
    for (let s = 0; s < 100; s++) for (const e of burst) expect(encode(e)).toBe(`${e.n}`.padEnd(8, "."));
    // ...or event after event, every subscriber reading it.
    const next = Array.from({ length: 32 }, (_, n) => ({ n: 100 + n }));
    for (const e of next) for (let s = 0; s < 100; s++) encode(e);
    expect(calls()).toBe(96);
  });

  it("tells events apart by identity, not by content", () => {
    const { encode, calls } = counted();
    encode({ n: 1 });
    encode({ n: 1 });
    expect(calls()).toBe(2);
  });

  it("forgets old events: one asked again long after is encoded again, the same way", () => {
    const { encode, calls } = counted();
    const first = { n: 0 };
    const a = encode(first);
    for (let n = 1; n <= 200; n++) encode({ n });
    expect(encode(first)).toBe(a);
    expect(calls()).toBe(202);
  });

  it("keeps no large encoding (the ring must not hold big events alive)", () => {
    const { encode, calls } = counted(64 * 1024);
    const big = { n: 7 };
    encode(big);
    encode(big);
    expect(calls()).toBe(2);
  });
});
