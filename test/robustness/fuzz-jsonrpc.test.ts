import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rpcCase, type RpcCase } from "../helpers/fuzz-arbitraries.js";
import { fuzzBinding, startFuzzHub, type FuzzHub } from "../helpers/fuzz-hub.js";
import { bodyPreview, fuzzSeed } from "../helpers/fuzz-http.js";
import { judgeJsonRpc } from "../helpers/fuzz-oracle.js";
import { post, rpc } from "../helpers/jsonrpc-requests.js";
import { userMessage } from "../helpers/json-messages.js";

/** Bodies to send; FUZZ_SEED replays a failing run. */
const TOTAL = 20_000;
const SEED = fuzzSeed(0x2a2a_1001);

let fz: FuzzHub;
beforeAll(async () => {
  fz = await startFuzzHub();
});
afterAll(async () => {
  await fz?.stop();
});

describe("JSON-RPC facade under generated input", () => {
  it(`answers ${TOTAL} generated bodies with well-formed JSON-RPC 2.0, never a crash or a hang`, { timeout: 240_000 }, () =>
    fuzzBinding<RpcCase>(fz, {
      label: "JSON-RPC",
      cases: rpcCase(fz.pool),
      total: TOTAL,
      seed: SEED,
      describe: (c) => `${c.kind} POST ${c.path} ${JSON.stringify(c.headers)} body ${bodyPreview(c.body)}`,
      request: (c) => ({ method: "POST", target: c.path, headers: c.headers, body: c.body }),
      judge: (c, reply) => judgeJsonRpc(c, reply, fz.limits),
      serverFailure: (outcome) => outcome.includes("-32603"),
    }));

  it("stays responsive afterwards, with no run or subscription left behind", async () => {
    const r = await post(fz.t.url, rpc("SendMessage", { message: userMessage("hello after the storm") }, "after"));
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ jsonrpc: "2.0", id: "after", result: { task: { status: { state: "TASK_STATE_COMPLETED" } } } });
    const engine = fz.t.hub.core.engine;
    await expect.poll(() => engine.activeRuns, { timeout: 10_000 }).toBe(0);
    await expect.poll(() => engine.bus.listenerCount(), { timeout: 10_000 }).toBe(0);
  });
});

describe("what the JSON-RPC fuzzer found, pinned", () => {
  it("a number literal beyond a double (1e400) is -32602 naming its field, and poisons no later read", async () => {
    const send = `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":${JSON.stringify(userMessage("hello"))},"metadata":{"a":1e400}}}`;
    expect((await post(fz.t.url, send)).json).toMatchObject({ id: 1, error: { code: -32602, message: expect.stringContaining("metadata.a") } });
    const v03 = `{"jsonrpc":"2.0","id":2,"method":"message/send","params":{"message":{"kind":"message","messageId":"inf-1","role":"user","parts":[{"kind":"data","data":{"x":[-1e400]}}]}}}`;
    expect((await post(fz.t.url, v03)).json).toMatchObject({ id: 2, error: { code: -32602, message: expect.stringContaining("message.parts[0].data.x[0]") } });
    // Before the fix the task was stored, and every ListTasks that met it failed with -32603.
    expect((await post(fz.t.url, rpc("ListTasks", { includeArtifacts: true }, 3))).json.result?.tasks).toBeDefined();
  });

  it("a full batch links each call to the exchange's signal without a listener-leak warning", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error): void => void warnings.push(`${w.name}: ${w.message}`);
    process.on("warning", onWarning);
    try {
      const batch = Array.from({ length: 100 }, (_, i) => rpc("GetTask", { id: "t-unknown" }, i));
      const r = await post(fz.t.url, batch);
      expect(r.json).toHaveLength(100);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off("warning", onWarning);
    }
    expect(warnings.filter((w) => w.startsWith("MaxListenersExceededWarning"))).toEqual([]);
  });
});
