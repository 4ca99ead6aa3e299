import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fuzzBinding, startFuzzHub, type FuzzHub } from "../helpers/fuzz-hub.js";
import { bodyPreview, fuzzSeed } from "../helpers/fuzz-http.js";
import { judgeRest } from "../helpers/fuzz-oracle.js";
import { restCase, type RestCase } from "../helpers/fuzz-rest-cases.js";
import { expectStatusError, rest, sendText } from "../helpers/rest.js";
import { userMessage } from "../helpers/json-messages.js";

/** Requests to send; FUZZ_SEED replays a failing run. */
const TOTAL = 5_000;
const SEED = fuzzSeed(0x2a2a_2002);

let fz: FuzzHub;
beforeAll(async () => {
  fz = await startFuzzHub();
});
afterAll(async () => {
  await fz?.stop();
});

describe("REST facade under generated input", () => {
  it(`answers ${TOTAL} generated requests with a ProtoJSON result, an event stream or a §11.6 error, never a crash or a hang`, { timeout: 240_000 }, () =>
    fuzzBinding<RestCase>(fz, {
      label: "REST",
      cases: restCase(fz.pool),
      total: TOTAL,
      seed: SEED,
      describe: (c) => `${c.kind} ${c.method} ${bodyPreview(c.target, 200)} ${JSON.stringify(c.headers)} body ${bodyPreview(c.body)}`,
      request: (c) => ({ method: c.method, target: c.target, headers: c.headers, body: c.body }),
      judge: (c, reply) => judgeRest(c, reply),
      serverFailure: (outcome) => outcome.startsWith("5"),
    }));

  it("stays responsive afterwards, with no run or subscription left behind", async () => {
    const task = await sendText(fz.t.url, "hello after the storm");
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    const engine = fz.t.hub.core.engine;
    await expect.poll(() => engine.activeRuns, { timeout: 10_000 }).toBe(0);
    await expect.poll(() => engine.bus.listenerCount(), { timeout: 10_000 }).toBe(0);
  });
});

describe("what the REST fuzzer found, pinned", () => {
  it("a number literal beyond a double (1e400) is 400 INVALID_ARGUMENT naming its field", async () => {
    const raw = `{"message":${JSON.stringify(userMessage("hello"))},"metadata":{"a":{"b":[1e400]}}}`;
    const r = await rest(fz.t.url, "POST", "/message:send", { raw });
    expectStatusError(r, 400, "INVALID_ARGUMENT");
    expect(r.json.error.message).toContain("metadata.a.b[0]");
    expect((await rest(fz.t.url, "GET", "/tasks?includeArtifacts=true")).status).toBe(200);
  });
});
