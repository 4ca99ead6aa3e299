import { describe, expect, it } from "vitest";
import { RecencyMap } from "../../../../src/store/sqlite/recency-map.js";

/** The order of a RecencyMap, oldest first, read by dropping every entry. */
function drain<V>(m: RecencyMap<V>): V[] {
  const out: V[] = [];
  for (let v = m.oldestValue(); v !== undefined; v = m.oldestValue()) {
    out.push(v);
    m.dropOldest();
  }
  return out;
}

describe("RecencyMap (the task records' LRU order)", () => {
  it("orders entries by last use: a use or a set moves an entry to the newest end, a peek does not", () => {
    const m = new RecencyMap<string>();
    for (const k of ["a", "b", "c", "d"]) m.set(k, k);
    expect(m.use("b")).toBe("b");
    expect(m.peek("a")).toBe("a");
    m.set("c", "C");
    expect(m.use("missing")).toBeUndefined();
    expect(m.size).toBe(4);
    expect(drain(m)).toEqual(["a", "d", "b", "C"]);
    expect(m.size).toBe(0);
  });

  it("deletes an entry by key from anywhere in the order, and a missing key is no-op", () => {
    const m = new RecencyMap<string>();
    for (const k of ["a", "b", "c", "d"]) m.set(k, k);
    m.delete("b");
    m.delete("a");
    m.delete("d");
    m.delete("missing");
    expect(m.peek("b")).toBeUndefined();
    m.set("e", "e");
    expect(m.size).toBe(2);
    expect(drain(m)).toEqual(["c", "e"]);
  });

  it("keeps its order through uses of the newest and oldest entries, drops, and a clear", () => {
    const m = new RecencyMap<number>();
    for (let i = 0; i < 5; i++) m.set(`k${i}`, i);
    m.use("k4");
    m.use("k0");
    m.dropOldest();
    m.set("k5", 5);
    expect(m.peek("k1")).toBeUndefined();
    expect(drain(m)).toEqual([2, 3, 4, 0, 5]);
    m.set("x", 1);
    m.clear();
    expect(m.oldestValue()).toBeUndefined();
    m.set("y", 2);
    expect(drain(m)).toEqual([2]);
  });
});
