import { describe, expect, it } from "vitest";
import { LogWindow } from "../../../src/core/log-window.js";

describe("LogWindow", () => {
  it("lets one line through per window, however the calls fall inside it", () => {
    const w = new LogWindow(1_000);
    expect(w.take(10_000)).toBe(true);
    expect([10_001, 10_500, 10_999].map((t) => w.take(t))).toEqual([false, false, false]);
    expect(w.take(11_000)).toBe(true);
    expect(w.take(11_999)).toBe(false);
    expect(w.take(20_000)).toBe(true);
  });
});
