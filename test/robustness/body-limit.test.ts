import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";

let t: TestHub;
beforeAll(async () => {
  t = await startTestHub({ maxBodyBytes: 2048 });
});
afterAll(async () => {
  await t.stop();
});

describe("the hub's request body limit applies to both JSON facades", () => {
  const params = { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "x".repeat(4096) }] } };

  it("JSON-RPC answers -32600 naming the limit", async () => {
    const res = await fetch(t.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params }) });
    expect(await res.json()).toMatchObject({ id: null, error: { code: -32600, message: expect.stringContaining("2048") } });
  });

  it("REST answers 413", async () => {
    const res = await fetch(new URL("./message:send", t.url), { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(params) });
    expect(res.status).toBe(413);
  });

  it("a body under the limit is served", async () => {
    const res = await fetch(new URL("./message:send", t.url), { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ message: { ...params.message, parts: [{ text: "small" }] } }) });
    expect(res.status).toBe(200);
  });
});
