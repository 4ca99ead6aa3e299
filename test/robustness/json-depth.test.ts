import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_MAX_JSON_DEPTH, exceedsJsonDepth } from "../../src/bindings/http/index.js";
import { post, rpc } from "../helpers/jsonrpc-requests.js";
import { userMessage } from "../helpers/json-messages.js";
import { expectStatusError, rest } from "../helpers/rest.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";

/** `{"a":{"a":…{"a":1}…}}`: `levels` nested objects. */
function nestedObjects(levels: number): string {
  return `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;
}

/**
 * A SendMessage whose body nests exactly `depth` levels: the envelope,
 * params and metadata are three, the value inside metadata the rest.
 */
function rpcBodyOfDepth(depth: number): string {
  const envelope = JSON.stringify(rpc("SendMessage", { message: userMessage("hello"), metadata: "@" }, 7));
  return envelope.replace('"@"', `{"a":${nestedObjects(depth - 3)}}`);
}

/** A REST send whose body nests exactly `depth` levels: body and metadata are two. */
function restBodyOfDepth(depth: number): string {
  return JSON.stringify({ message: userMessage("hello"), metadata: "@" }).replace('"@"', `{"a":${nestedObjects(depth - 2)}}`);
}

describe("the JSON nesting depth scan", () => {
  it("counts arrays and objects, not brackets inside strings", () => {
    expect(exceedsJsonDepth(Buffer.from("[[[]]]"), 3)).toBe(false);
    expect(exceedsJsonDepth(Buffer.from("[[[[]]]]"), 3)).toBe(true);
    expect(exceedsJsonDepth(Buffer.from('{"a":[{"b":1}]}'), 3)).toBe(false);
    expect(exceedsJsonDepth(Buffer.from('{"a":[{"b":{}}]}'), 3)).toBe(true);
    expect(exceedsJsonDepth(Buffer.from(`["${"[{".repeat(100)}"]`), 1)).toBe(false);
    // An escaped quote does not end the string; an escaped backslash does not escape the quote after it.
    expect(exceedsJsonDepth(Buffer.from(String.raw`["\"[[[[", 1]`), 1)).toBe(false);
    expect(exceedsJsonDepth(Buffer.from(String.raw`["\\", [[1]]]`), 2)).toBe(true);
  });

  it("is not fooled by closing brackets first or by bytes that are not UTF-8", () => {
    expect(exceedsJsonDepth(Buffer.from(`]]]]${"[".repeat(5)}`), 4)).toBe(true);
    expect(exceedsJsonDepth(Buffer.concat([Buffer.from('["'), Buffer.from([0xff, 0xc0, 0x22]), Buffer.from("[[[")]), 2)).toBe(true);
  });
});

describe(`the default JSON nesting limit (${DEFAULT_MAX_JSON_DEPTH})`, () => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub();
  });
  afterAll(async () => {
    await t.stop();
  });

  it("JSON-RPC serves a request nested exactly to the limit", async () => {
    const r = await post(t.url, rpcBodyOfDepth(DEFAULT_MAX_JSON_DEPTH));
    expect(r.json.result?.task?.status?.state, r.text).toBe("TASK_STATE_COMPLETED");
  });

  it("JSON-RPC refuses one level more with -32600 naming the limit, echoing the request's id", async () => {
    const r = await post(t.url, rpcBodyOfDepth(DEFAULT_MAX_JSON_DEPTH + 1));
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ jsonrpc: "2.0", id: 7, error: { code: -32600, message: expect.stringContaining(`limit of ${DEFAULT_MAX_JSON_DEPTH} (limits.maxJsonDepth)`) } });
  });

  it("JSON-RPC refuses 10,000 levels of [ (a batch of one too-deep element) without parsing it, and stays responsive", async () => {
    const r = await post(t.url, "[".repeat(10_000) + "]".repeat(10_000));
    expect(r.json).toEqual([{ jsonrpc: "2.0", id: null, error: { code: -32600, message: expect.stringContaining("limits.maxJsonDepth") } }]);
    const broken = await post(t.url, "[".repeat(10_000) + "]".repeat(9_999));
    expect(broken.json).toMatchObject({ id: null, error: { code: -32700 } });
    const again = await post(t.url, rpc("GetTask", { id: "t-unknown" }));
    expect(again.json.error.code).toBe(-32001);
  });

  it("REST serves a body nested exactly to the limit", async () => {
    const r = await rest(t.url, "POST", "/message:send", { raw: restBodyOfDepth(DEFAULT_MAX_JSON_DEPTH) });
    expect(r.status, r.text).toBe(200);
    expect(r.json.task.status.state).toBe("TASK_STATE_COMPLETED");
  });

  it("REST refuses one level more with 400 INVALID_ARGUMENT naming the limit", async () => {
    const r = await rest(t.url, "POST", "/message:send", { raw: restBodyOfDepth(DEFAULT_MAX_JSON_DEPTH + 1) });
    expectStatusError(r, 400, "INVALID_ARGUMENT");
    expect(r.json.error.message).toContain(`limit of ${DEFAULT_MAX_JSON_DEPTH} (limits.maxJsonDepth)`);
  });
});

describe("a configured JSON nesting limit", () => {
  const limit = 8;
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub({ maxJsonDepth: limit });
  });
  afterAll(async () => {
    await t.stop();
  });

  it("holds on JSON-RPC, for a single request and a batch alike", async () => {
    expect((await post(t.url, rpcBodyOfDepth(limit))).json.result?.task).toBeDefined();
    const single = await post(t.url, rpcBodyOfDepth(limit + 1));
    expect(single.json).toMatchObject({ id: 7, error: { code: -32600, message: expect.stringContaining("limit of 8 (limits.maxJsonDepth)") } });
    // The batch's array is one level more: that element alone is refused; its neighbour within the limit is answered.
    const batch = await post(t.url, `[${rpcBodyOfDepth(limit)}, ${JSON.stringify(rpc("GetTask", { id: "t-unknown" }, 8))}]`);
    expect(batch.json).toEqual([
      { jsonrpc: "2.0", id: 7, error: { code: -32600, message: expect.stringContaining("limit of 8") } },
      { jsonrpc: "2.0", id: 8, error: expect.objectContaining({ code: -32001 }) },
    ]);
  });

  it("holds on REST, under a tenant prefix and an agent's base path too", async () => {
    expect((await rest(t.url, "POST", "/message:send", { raw: restBodyOfDepth(limit) })).status).toBe(200);
    for (const path of ["/message:send", "/acme/message:send", "/v1/a2a/agents/echo/message:send"]) {
      const r = await rest(t.url, "POST", path, { raw: restBodyOfDepth(limit + 1) });
      expectStatusError(r, 400, "INVALID_ARGUMENT");
      expect(r.json.error.message).toContain("limit of 8 (limits.maxJsonDepth)");
    }
  });

  it("leaves requests without a body alone", async () => {
    const r = await rest(t.url, "GET", "/tasks?pageSize=1");
    expect(r.status, r.text).toBe(200);
  });
});
