import { describe, expect, it } from "vitest";
import { jsonText, RawJson } from "../../../../src/bindings/http/index.js";

/** sendJson's writer (bindings/http/raw-json.ts): RawJson texts spliced where JSON.stringify would write their value. */
describe("jsonText", () => {
  const raw = new RawJson('{"task":{"id":"t\\"1","status":{"state":"TASK_STATE_COMPLETED"}}}');
  const value = JSON.parse(raw.text) as unknown;

  it("writes what JSON.stringify writes of the same values, at the top, in a response and in a batch", () => {
    const response = { jsonrpc: "2.0", id: "x\u2028", result: raw };
    const batch = [response, { jsonrpc: "2.0", id: 2, error: { code: -32601, message: "no" } }, { jsonrpc: "2.0", id: null, result: raw, skipped: undefined }];
    const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v));
    expect(jsonText(raw)).toBe(raw.text);
    expect(jsonText(response)).toBe(JSON.stringify({ jsonrpc: "2.0", id: "x\u2028", result: value }));
    expect(jsonText(batch)).toBe(JSON.stringify(plain(batch)));
    expect(jsonText({ a: 1, b: [1, "2"] })).toBe('{"a":1,"b":[1,"2"]}');
  });

  it("still writes the right JSON for a RawJson nested deeper, through toJSON", () => {
    expect(JSON.parse(jsonText({ outer: { inner: raw } }))).toEqual({ outer: { inner: value } });
  });
});
